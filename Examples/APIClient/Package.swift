// swift-tools-version: 6.0
// A typed Swift client of the wallet-verifier HTTP API, generated at build time from the service's own
// OpenAPI document (Sources/VerifierServer/Resources/openapi.yaml, linked into the client target) by
// swift-openapi-generator. Its own package, so the main package does not pay for the generator.
import PackageDescription

let package = Package(
    name: "WalletVerifierAPIClient",
    platforms: [.macOS(.v15)],
    products: [.library(name: "WalletVerifierClient", targets: ["WalletVerifierClient"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0"),
    ],
    targets: [
        .target(
            name: "WalletVerifierClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(name: "wallet-verifier-client-example", dependencies: [
            "WalletVerifierClient", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
        ]),
    ]
)
