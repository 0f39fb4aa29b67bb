import ChainKit
import HubKernel
import Logging
import Synchronization

/// Reads from the configured node for the API, each read on its own short connection: the
/// chain's head and runtime, an account's `System.Account` and a DID attribute in chain storage.
/// The runtime's metadata (half a megabyte) is fetched once per runtime version and kept.
struct NodeReader: Sendable {
    let node: SubstrateConfiguration.Node
    let logger: Logger
    private let metadataCache = MetadataCache()

    init(node: SubstrateConfiguration.Node, logger: Logger) {
        self.node = node
        self.logger = logger
    }

    /// `body` with a connection and the node's current metadata; a node that does not answer in
    /// `timeout` (or at all) is `node_unavailable`.
    func read<T: Sendable>(
        timeout: Duration = .seconds(15),
        _ body: @escaping @Sendable (SubstrateNode, RuntimeMetadata) async throws -> T
    ) async throws -> T {
        let (url, logger, cache) = (node.url, logger, metadataCache)
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    try await NodeConnection.connect(url: url, logger: logger) { connection in
                        let node = SubstrateNode(connection: connection)
                        let version = try await node.runtimeVersion()
                        let metadata: RuntimeMetadata
                        if let cached = cache.metadata(for: version.specVersion) {
                            metadata = cached
                        } else {
                            metadata = try await node.metadata()
                            cache.keep(metadata, for: version.specVersion)
                        }
                        return try await body(node, metadata)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let value = try await group.next() ?? nil else { throw NodeRPCError.timeout("the read") }
                return value
            }
        } catch let error as SubstrateError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as ChainKitError {
            throw SubstrateError.nodeUnavailable("its answer did not decode: \(error)")
        } catch {
            throw SubstrateError.nodeUnavailable("\(error)")
        }
    }

    private final class MetadataCache: Sendable {
        private let kept = Mutex<(specVersion: UInt32, metadata: RuntimeMetadata)?>(nil)

        func metadata(for specVersion: UInt32) -> RuntimeMetadata? {
            kept.withLock { $0?.specVersion == specVersion ? $0?.metadata : nil }
        }

        func keep(_ metadata: RuntimeMetadata, for specVersion: UInt32) {
            kept.withLock { $0 = (specVersion, metadata) }
        }
    }
}
