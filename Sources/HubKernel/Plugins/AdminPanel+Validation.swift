/// Why a rail's ``AdminPanel`` cannot be drawn: the place in the panel (as the JSON names it,
/// `lists[0].detail.actions[1].path`) and what is wrong there.
public struct AdminPanelError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: String
    public var message: String

    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "admin panel \(location): \(message)" }
}

extension AdminPanel {
    /// Checks what the console relies on: ids it uses in the page (unique, lower-case), paths it
    /// appends to the rail's prefix (absolute, no `..`, no other host), placeholders it can fill
    /// (`{key.path}` only where there is an object to fill them from), and the names of the
    /// members actions send.
    ///
    /// A panel is code, so a failure is a programming error of the rail; the plugin host reports it
    /// at start-up rather than leaving the console to draw a broken page.
    /// - Throws: ``AdminPanelError`` naming the first problem.
    public func validate() throws {
        try Self.require(!title.isEmpty, "title", "is empty")
        for (index, link) in links.enumerated() {
            try Self.checkPath(link.path, at: "links[\(index)].path", placeholders: false)
        }
        try Self.checkLists(lists, at: "lists", placeholders: false, nested: false)
    }

    private static func checkLists(_ lists: [List], at location: String, placeholders: Bool, nested: Bool) throws(AdminPanelError) {
        var ids: Set<String> = []
        for (index, list) in lists.enumerated() {
            let here = "\(location)[\(index)]"
            try checkID(list.id, at: "\(here).id")
            try require(ids.insert(list.id).inserted, "\(here).id", "'\(list.id)' is used by another list here")
            try require(!list.title.isEmpty, "\(here).title", "is empty")
            try checkPath(list.path, at: "\(here).path", placeholders: placeholders)
            try require(!list.columns.isEmpty, "\(here).columns", "a list needs at least one column")
            for (position, column) in list.columns.enumerated() { try checkColumn(column, at: "\(here).columns[\(position)]") }
            guard let detail = list.detail else { continue }
            try checkDetail(detail, at: "\(here).detail", nested: nested)
        }
    }

    private static func checkDetail(_ detail: Detail, at location: String, nested: Bool) throws(AdminPanelError) {
        try checkPath(detail.path, at: "\(location).path", placeholders: true)
        for (position, field) in detail.fields.enumerated() { try checkColumn(field, at: "\(location).fields[\(position)]") }
        // One level of nesting keeps the page readable and the templates' lookups unambiguous.
        if nested {
            try require(detail.lists.isEmpty, "\(location).lists", "a related list's detail cannot have related lists")
            try require(detail.actions.isEmpty, "\(location).actions", "a related list's detail cannot have actions")
        }
        try checkLists(detail.lists, at: "\(location).lists", placeholders: true, nested: true)
        var ids: Set<String> = []
        for (index, action) in detail.actions.enumerated() {
            let here = "\(location).actions[\(index)]"
            try checkID(action.id, at: "\(here).id")
            try require(ids.insert(action.id).inserted, "\(here).id", "'\(action.id)' is used by another action here")
            try checkAction(action, at: here)
        }
    }

    private static func checkAction(_ action: Action, at location: String) throws(AdminPanelError) {
        try require(!action.title.isEmpty, "\(location).title", "is empty")
        try checkPath(action.path, at: "\(location).path", placeholders: true)
        try require(!action.confirmation.isEmpty, "\(location).confirmation", "an action is always confirmed: say what it does")
        if let key = action.statusKey { try checkKeyPath(key, at: "\(location).status_key") }
        for (index, status) in action.statuses.enumerated() {
            try require(!status.isEmpty, "\(location).statuses[\(index)]", "is empty")
        }
        var names: Set<String> = []
        for (index, field) in action.fields.enumerated() {
            let here = "\(location).fields[\(index)]"
            try checkMemberName(field.name, at: "\(here).name")
            try require(names.insert(field.name).inserted, "\(here).name", "'\(field.name)' is sent by another field")
            try require(!field.label.isEmpty, "\(here).label", "is empty")
            if let key = field.assetKey { try checkKeyPath(key, at: "\(here).asset_key") }
        }
        if let idField = action.idField {
            try checkMemberName(idField, at: "\(location).id_field")
            try require(!names.contains(idField), "\(location).id_field", "'\(idField)' is also a field of the form")
        }
    }

    private static func checkColumn(_ column: Column, at location: String) throws(AdminPanelError) {
        try checkKeyPath(column.key, at: "\(location).key")
        try require(!column.title.isEmpty, "\(location).title", "is empty")
        if let key = column.assetKey { try checkKeyPath(key, at: "\(location).asset_key") }
        switch column.kind {
        case .link:
            if let link = column.link {
                try require(link.hasPrefix("/admin/"), "\(location).link", "a link column's target is a console page under /admin/")
                try checkPath(link, at: "\(location).link", placeholders: true)
            }
        case .images:
            guard let link = column.link else { throw AdminPanelError("\(location).link", "an images column needs the rail's image path") }
            try checkPath(link, at: "\(location).link", placeholders: true)
        default:
            break
        }
    }

    // MARK: Words

    /// Lower-case ASCII letters, digits and `-`, 1 to 32 characters, starting with a letter: safe
    /// in an element id and a URL fragment.
    static func isValidID(_ id: String) -> Bool {
        guard let first = id.utf8.first, (0x61...0x7A).contains(first), id.utf8.count <= 32 else { return false }
        return id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// Dotted names of letters, digits and `_`: `payee.display_name`.
    static func isValidKeyPath(_ path: String) -> Bool {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false)
        return !path.isEmpty && path.utf8.count <= 100
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
            }
    }

    /// Where a path is wrong, or `nil`: absolute under the rail's prefix, printable ASCII without
    /// spaces, `\`, `#` or a `..` or empty segment (which could leave the prefix), and `{key.path}`
    /// placeholders only where `placeholders` allows.
    static func pathProblem(_ path: String, placeholders: Bool) -> String? {
        guard path.hasPrefix("/") else { return "a path starts with '/'" }
        guard path.utf8.count <= 300 else { return "a path is at most 300 characters" }
        guard path.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x5C && $0 != 0x23 }) else {
            return "a path is printable ASCII without spaces, '\\' or '#'"
        }
        let route = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let segments = route.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if route != "/" && segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            return "a path has no empty, '.' or '..' segment"
        }
        var rest = Substring(path)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else { return "a '{' or '}' without its pair" }
            let key = rest[rest.index(after: open)..<close]
            guard isValidKeyPath(String(key)) else { return "'{\(key)}' is not a key path" }
            guard placeholders else { return "'{\(key)}' has nothing to be filled from here" }
            rest = rest[rest.index(after: close)...]
        }
        return nil
    }

    private static func checkID(_ id: String, at location: String) throws(AdminPanelError) {
        try require(isValidID(id), location, "'\(id)' is not 1 to 32 lower-case letters, digits and '-' starting with a letter")
    }

    private static func checkKeyPath(_ path: String, at location: String) throws(AdminPanelError) {
        try require(isValidKeyPath(path), location, "'\(path)' is not a key path of letters, digits and '_' joined by '.'")
    }

    private static func checkMemberName(_ name: String, at location: String) throws(AdminPanelError) {
        let valid =
            name.utf8.first.map { (0x61...0x7A).contains($0) } == true && name.utf8.count <= 64
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
        try require(valid, location, "'\(name)' is not a snake_case member name")
    }

    private static func checkPath(_ path: String, at location: String, placeholders: Bool) throws(AdminPanelError) {
        if let problem = pathProblem(path, placeholders: placeholders) { throw AdminPanelError(location, problem) }
    }

    private static func require(_ condition: Bool, _ location: String, _ message: String) throws(AdminPanelError) {
        if !condition { throw AdminPanelError(location, message) }
    }
}
