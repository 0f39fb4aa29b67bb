import HubKernel

/// The tip jar's events. Types are dotted and owned by the rail (`tipjar.*`); a unit stamps
/// `source` (`/rails/tip-jar`) and its time; `subject` is the jar id, so a reader can follow one
/// jar; `data` is the same JSON the API returns for it.
enum TipJarEvents {
    static let jarOpened = "tipjar.jar.opened"
    static let jarTipped = "tipjar.jar.tipped"
    static let jarClosed = "tipjar.jar.closed"

    /// Every type the rail appends: declared as ``TipJarPlugin/eventTypes``, the only ones the
    /// kernel lets its units append.
    static let all = [jarOpened, jarTipped, jarClosed]

    /// The data of `tipjar.jar.tipped`: the jar after the tip, and the tip.
    struct Tipped: Encodable {
        var jar: JarRepresentation
        var tip: TipRepresentation
    }
}
