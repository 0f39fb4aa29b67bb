public import HubKernel

extension WebhookAddressPolicy {
    /// The tests' webhook receivers listen on loopback, which the hub refuses by default (SSRF):
    /// tests allow it explicitly, as a deployment allows its private receivers.
    public static let testReceivers = WebhookAddressPolicy(allowedNetworks: ["127.0.0.0/8", "::1/128"])
}

extension WebhookConfiguration {
    /// The defaults, with loopback receivers allowed.
    public static var forTestReceivers: WebhookConfiguration {
        var configuration = WebhookConfiguration()
        configuration.addressPolicy = .testReceivers
        return configuration
    }
}
