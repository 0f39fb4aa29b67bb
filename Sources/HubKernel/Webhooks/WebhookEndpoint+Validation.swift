import Foundation

/// Checks on the fields people type in. Each failure names the field in the HTTP API's spelling so
/// the problem document can point at it.
enum WebhookValidation {
    static let maxURLLength = 2048
    static let maxDescriptionLength = 1024

    /// An absolute `http` or `https` URL with a host, no credentials and no fragment.
    ///
    /// Credentials in the URL would be stored and shown next to the endpoint; receivers
    /// authenticate the hub by its signature instead. A host that is a non-public address (or
    /// `localhost`) is refused unless `policy` allows it (``WebhookAddressPolicy``); names are
    /// checked again on every address they resolve to when delivering.
    static func url(_ text: String, policy: WebhookAddressPolicy) throws -> String {
        func invalid(_ why: String) -> WebhookError { WebhookError(.invalidURL, why, field: "url") }
        guard !text.isEmpty, text.utf8.count <= maxURLLength else {
            throw invalid("the URL must be 1 to \(maxURLLength) bytes long")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) else {
            throw invalid("the URL must not contain spaces or control characters")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw invalid("'\(text.prefix(200))' is not an absolute URL")
        }
        guard scheme == "http" || scheme == "https" else { throw invalid("only http and https URLs can receive webhooks") }
        guard let host = components.host, !host.isEmpty else { throw invalid("the URL has no host") }
        guard components.user == nil, components.password == nil else { throw invalid("the URL must not carry credentials") }
        guard components.fragment == nil else { throw invalid("the URL must not have a fragment") }
        if let refusal = policy.refusal(forHost: host) {
            throw WebhookError(
                .addressRefused,
                "\(refusal): webhooks go to public addresses only (an operator allows private receivers with HUB_WEBHOOK_ALLOW_PRIVATE)",
                field: "url"
            )
        }
        return text
    }

    static func description(_ text: String) throws -> String {
        guard text.count <= maxDescriptionLength else {
            throw WebhookError(.invalidField, "the description is at most \(maxDescriptionLength) characters", field: "description")
        }
        return text
    }
}
