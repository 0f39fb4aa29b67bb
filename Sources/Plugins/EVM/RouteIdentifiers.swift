import HubKernel
import Hummingbird

extension HubRequestContext {
    /// A listing or token id from the path. The rail stores them in BIGINT columns, so an id past
    /// `Int64.max` cannot name anything stored: it is refused here as "no such thing" instead of
    /// trapping when it is bound into SQL.
    func storedID(_ name: String) -> UInt64? {
        guard let id = parameters.get(name).flatMap({ UInt64($0) }), id <= UInt64(Int64.max) else { return nil }
        return id
    }
}
