import Foundation

/// The OpenAPI 3.1 document of the API, kept in the repository at
/// `Sources/HubServer/Resources/openapi.json` and shipped inside the build as a resource.
enum OpenAPIDocument {
    /// `nil` only when the resource bundle was not installed beside the executable.
    static let bytes: [UInt8]? = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return Array(data)
    }()
}
