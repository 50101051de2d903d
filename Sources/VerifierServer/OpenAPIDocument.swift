import Foundation

/// The OpenAPI document the server implements (written first; the routes follow it).
enum OpenAPIDocument {
    static let text: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let data = try? Data(contentsOf: url)
        else { return "openapi: 3.1.0\n" }
        return String(decoding: data, as: UTF8.self)
    }()
}
