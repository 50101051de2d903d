// swift-tools-version: 6.2
// Benchmarks of wallet-verifier: they measure and print, never pass or fail on time. A package of its own
// (like the fuzz targets in Fuzz/), so that the main package ships no bench executable:
//   swift run -c release --package-path Benchmarks wallet-verifier-bench [mdoc|identity|applepay|openid4vp|all|...]
import PackageDescription

let package = Package(
    name: "WalletVerifierBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "wallet-verifier", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "wallet-verifier-bench",
            dependencies: [
                .product(name: "WalletCBOR", package: "wallet-verifier"),
                .product(name: "WalletCOSE", package: "wallet-verifier"),
                .product(name: "WalletJSON", package: "wallet-verifier"),
                .product(name: "Mdoc", package: "wallet-verifier"),
                .product(name: "MdocVerifier", package: "wallet-verifier"),
                .product(name: "WalletIdentity", package: "wallet-verifier"),
                .product(name: "WalletJOSE", package: "wallet-verifier"),
                .product(name: "WebIdentity", package: "wallet-verifier"),
                .product(name: "SDJWTVerifier", package: "wallet-verifier"),
                .product(name: "ApplePayVerifier", package: "wallet-verifier"),
                .product(name: "GooglePayVerifier", package: "wallet-verifier"),
                .product(name: "VerificationCore", package: "wallet-verifier"),
                .product(name: "VerifierServer", package: "wallet-verifier"),
                .product(name: "ReplayStoreSQLite", package: "wallet-verifier"),
                .product(name: "WalletVerifierTestSupport", package: "wallet-verifier"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        )
    ]
)
