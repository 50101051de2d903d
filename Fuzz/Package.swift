// swift-tools-version: 6.0
// libFuzzer targets for wallet-verifier's parsers. Built only by scripts/fuzz (with
// -sanitize=fuzzer,address), never by the main package's build or tests.
import PackageDescription

func fuzzTarget(_ name: String, _ products: [String], extra: [Target.Dependency] = []) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: "wallet-verifier") } + extra)
}

let package = Package(
    name: "WalletVerifierFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "wallet-verifier", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "MdocVerifier", package: "wallet-verifier"), .product(name: "VerificationCore", package: "wallet-verifier"),
            ]),
        fuzzTarget("FuzzCBOR", ["WalletCBOR", "Mdoc"]),
        fuzzTarget(
            "FuzzCOSE", ["WalletCBOR", "WalletCOSE", "Mdoc", "VerificationCore", "WebIdentity"],
            extra: [.product(name: "Crypto", package: "swift-crypto"), .product(name: "X509", package: "swift-certificates")]),
        fuzzTarget(
            "FuzzDeviceResponse", ["WalletCBOR", "Mdoc", "MdocVerifier", "VerificationCore"],
            extra: [.product(name: "Crypto", package: "swift-crypto")]),
        fuzzTarget("FuzzIdentityEnvelope", ["WalletIdentity", "MdocVerifier", "VerificationCore", "WalletCBOR"]),
        fuzzTarget(
            "FuzzWebResponse", ["WebIdentity", "Mdoc", "MdocVerifier", "VerificationCore"],
            extra: [.product(name: "X509", package: "swift-certificates")]),
        fuzzTarget(
            "FuzzOpenID4VPResponse", ["WebIdentity", "WalletJOSE", "MdocVerifier", "VerificationCore"],
            extra: [.product(name: "Crypto", package: "swift-crypto")]),
        fuzzTarget("FuzzApplePayToken", ["ApplePayVerifier", "VerificationCore"]),
        fuzzTarget("FuzzSDJWT", ["SDJWTVerifier", "MdocVerifier", "VerificationCore", "WalletJSON"]),
        fuzzTarget("FuzzGooglePayToken", ["GooglePayVerifier", "VerificationCore"]),
        fuzzTarget("FuzzRevocationList", ["MdocVerifier", "WalletCOSE"], extra: [.product(name: "Crypto", package: "swift-crypto")]),
        fuzzTarget("FuzzVICAL", ["MdocVerifier", "VerificationCore"], extra: [.product(name: "X509", package: "swift-certificates")]),
        fuzzTarget("FuzzPEMKeys", ["ApplePayVerifier", "MdocVerifier", "WalletIdentity", "WebIdentity"]),
        fuzzTarget(
            "FuzzHTTPJSON", ["VerifierServer", "VerificationCore"],
            extra: [
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
    ]
)
