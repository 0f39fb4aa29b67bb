/// Where a coder is in the document, built only as far as it is used: a child is one small
/// allocation, and the array of coding keys is made only when someone asks (an error, mostly).
final class CodingPathNode: Sendable {
    enum Step: Sendable {
        case key(String)
        case index(Int)
    }

    let parent: CodingPathNode?
    let step: Step?

    static let root = CodingPathNode(parent: nil, step: nil)

    private init(parent: CodingPathNode?, step: Step?) {
        self.parent = parent
        self.step = step
    }

    func appending(key: some CodingKey) -> CodingPathNode { CodingPathNode(parent: self, step: .key(key.stringValue)) }
    func appending(index: Int) -> CodingPathNode { CodingPathNode(parent: self, step: .index(index)) }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: CodingPathNode? = self
        while let current = node, let step = current.step {
            switch step {
            case .key(let name): keys.append(AnyKey(name))
            case .index(let index): keys.append(AnyKey(intValue: index)!)
            }
            node = current.parent
        }
        return keys.reversed()
    }
}
