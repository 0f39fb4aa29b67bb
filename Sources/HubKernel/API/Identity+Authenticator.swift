/// The identity services are what authenticates API requests.
extension Identity: Authenticator {}
