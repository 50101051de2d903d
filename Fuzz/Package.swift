// swift-tools-version: 6.0
// libFuzzer targets for wallet-verifier's parsers. Built only by scripts/fuzz (with
// -sanitize=fuzzer,address), never by the main package's build or tests.
import PackageDescription

let package = Package(
    name: "WalletVerifierFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "wallet-verifier", path: "..")],
    targets: [
        .executableTarget(name: "FuzzDeviceResponse", dependencies: [
            .product(name: "WalletCBOR", package: "wallet-verifier"), .product(name: "Mdoc", package: "wallet-verifier"),
            .product(name: "MdocVerifier", package: "wallet-verifier"), .product(name: "VerificationCore", package: "wallet-verifier"),
        ]),
        .executableTarget(name: "FuzzApplePayToken", dependencies: [
            .product(name: "ApplePayVerifier", package: "wallet-verifier"), .product(name: "VerificationCore", package: "wallet-verifier"),
        ]),
    ]
)
