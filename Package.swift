// swift-tools-version: 6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "wallet-verifier",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WalletCBOR", targets: ["WalletCBOR"]),
        .library(name: "WalletCOSE", targets: ["WalletCOSE"]),
        .library(name: "WalletJOSE", targets: ["WalletJOSE"]),
        .library(name: "VerificationCore", targets: ["VerificationCore"]),
        .library(name: "WalletJSON", targets: ["WalletJSON"]),
        .library(name: "ApplePayVerifier", targets: ["ApplePayVerifier"]),
        .library(name: "GooglePayVerifier", targets: ["GooglePayVerifier"]),
        .library(name: "Mdoc", targets: ["Mdoc"]),
        .library(name: "MdocVerifier", targets: ["MdocVerifier"]),
        .library(name: "WalletIdentity", targets: ["WalletIdentity"]),
        .library(name: "MdocRevocationHTTP", targets: ["MdocRevocationHTTP"]),
        .library(name: "TrustDocuments", targets: ["TrustDocuments"]),
        .library(name: "WebIdentity", targets: ["WebIdentity"]),
        .library(name: "SDJWTVerifier", targets: ["SDJWTVerifier"]),
        .library(name: "VerificationReceipts", targets: ["VerificationReceipts"]),
        .library(name: "ReplayStoreSQLite", targets: ["ReplayStoreSQLite"]),
        .library(name: "ReplayStorePostgres", targets: ["ReplayStorePostgres"]),
        // The HTTP service as a library: for embedding, and for the fuzz target of its request bodies.
        .library(name: "VerifierServer", targets: ["VerifierServer"]),
        .executable(name: "wallet-verifier", targets: ["wallet-verifier"]),
        // For the benchmarks package (Benchmarks/) and for other packages' tests: fixtures built in code.
        .library(name: "WalletVerifierTestSupport", targets: ["WalletVerifierTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", exact: "2.0.1"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", exact: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        // Outbound fetches (revocation lists, VICALs): one deadline over connect, headers and body.
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        // Apple Pay merchant validation: the Merchant Identity certificate as the TLS client certificate.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
    ],
    targets: [
        // Layer 0: text encodings every layer uses (hex, Base64, RFC 3339, PEM). No dependencies; its
        // names are `package`, not part of the public API.
        .target(name: "WalletEncoding", swiftSettings: swiftSettings),

        // Layer 1: the CBOR codec. No third-party dependencies.
        .target(name: "WalletCBOR", dependencies: ["WalletEncoding"], swiftSettings: swiftSettings),

        // Layer 1: strict JSON reading (byte ranges of values as received) and fast JSON writing. No dependencies.
        .target(name: "WalletJSON", swiftSettings: swiftSettings),

        // Layer 2: COSE on top of CBOR and swift-crypto.
        .target(
            name: "WalletCOSE",
            dependencies: [
                "WalletCBOR",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // Layer 2: JOSE (JWK, JWS ES256, JWE ECDH-ES with AES-GCM) on top of strict JSON and swift-crypto.
        .target(
            name: "WalletJOSE",
            dependencies: [
                "WalletEncoding", "WalletJSON",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // Layer 3: the verification vocabulary (report, checks, policy, clock, replay store).
        .target(
            name: "VerificationCore",
            dependencies: [
                "WalletEncoding", "WalletJSON",
                // Store keys are SHA-256 digests (ReplayStoreKeys.swift), the same in every store.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // Layer 4: the ISO 18013-5 mdoc model (no policy), and its verifier: issuer data, device
        // authentication, MSO revocation (identifier and status lists), VICAL trust lists and the
        // passport (photo ID) rules, with no networking.
        .target(
            name: "Mdoc",
            dependencies: [
                "WalletEncoding",
                "WalletCBOR",
                "WalletCOSE",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MdocVerifier",
            dependencies: [
                "WalletEncoding",
                "Mdoc",
                "WalletCBOR",
                "WalletCOSE",
                "VerificationCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),

        // Layer 5: Verify with Wallet (Apple in-app): HPKE envelope, transcript, request sessions.
        .target(
            name: "WalletIdentity",
            dependencies: [
                "WalletEncoding",
                "Mdoc",
                // With the MSO revocation checks and the passport rules, as in the web and mdoc flows.
                "MdocVerifier",
                "WalletCBOR",
                "VerificationCore",
                "WalletJSON",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // Layer 5: the one home of trust documents — revocation lists, VICALs, IACA roots fetched by a
        // pinned URL, Google Pay root keys — fetched over HTTP through one transport (its own module,
        // so the verifiers stay free of networking), kept, refreshed and described with their
        // provenance. The service and the command line compose it; neither fetches on its own.
        .target(
            name: "TrustDocuments",
            dependencies: [
                "WalletEncoding", "MdocVerifier", "GooglePayVerifier", "VerificationCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The former home of the HTTP transport: re-exports TrustDocuments for existing code.
        .target(
            name: "MdocRevocationHTTP",
            dependencies: ["TrustDocuments"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WebIdentity",
            dependencies: [
                "WalletEncoding",
                "Mdoc", "MdocVerifier", "WalletCBOR", "WalletCOSE", "VerificationCore",
                // OpenID4VP over the DC API: signed request objects, encrypted responses, strict JSON.
                "WalletJOSE", "WalletJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                // Reader authentication: the reader's certificate chain and its Annex B profile.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SDJWTVerifier",
            dependencies: [
                // SD-JWT VC (IETF SD-JWT, SD-JWT VC): strict JSON, the trust store mdoc uses, x5c chains.
                "WalletEncoding", "WalletJSON", "VerificationCore", "MdocVerifier",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),

        // Layer 5: Apple Pay payment tokens.
        .target(
            name: "ApplePayVerifier",
            dependencies: [
                "WalletEncoding",
                "VerificationCore", "WalletJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Resources/AppleRootCA-G3.pem")],
            swiftSettings: swiftSettings
        ),

        // Layer 5: Google Pay payment tokens (protocolVersion ECv2).
        .target(
            name: "GooglePayVerifier",
            dependencies: [
                "WalletEncoding", "WalletJSON", "VerificationCore",
                .product(name: "Crypto", package: "swift-crypto"),
                // AES._CTR: ECv2 encrypts with AES-256-CTR.
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // Layer 5: persistent replay stores (embedded SQLite; shared PostgreSQL for several instances).
        // Both write keys and times the same way (VerificationCore's ReplayStoreKeys.swift), without
        // depending on each other.
        .target(
            name: "ReplayStoreSQLite",
            dependencies: [
                "VerificationCore",
                // Only for the SQLite library it vendors (VaporCSQLite), called directly.
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ReplayStorePostgres",
            dependencies: [
                "VerificationCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // Signed verification receipts (ES256 JWS): what was checked, when, against which issuer,
        // with what outcome — built from every flow's result, without personal data.
        .target(
            name: "VerificationReceipts",
            dependencies: [
                "WalletEncoding", "WalletJSON", "WalletJOSE", "VerificationCore", "Mdoc", "MdocVerifier", "WalletIdentity", "WebIdentity",
                "ApplePayVerifier", "GooglePayVerifier",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),

        // The HTTP service (Hummingbird): API, web page, metrics, stores.
        .target(
            name: "VerifierServer",
            dependencies: [
                "WalletEncoding",
                "VerificationCore", "WalletCBOR", "WalletCOSE", "WalletJSON", "Mdoc", "MdocVerifier", "TrustDocuments", "WalletIdentity",
                "ApplePayVerifier", "GooglePayVerifier",
                "ReplayStoreSQLite", "ReplayStorePostgres", "WebIdentity",
                // Signed verification receipts in every verification answer, and their JWKS.
                "VerificationReceipts",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The connection guard sits in the HTTP/1 pipeline (per-client connections, deadlines).
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // SIGHUP: reload without restart.
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // Apple Pay merchant validation: one POST to Apple with the Merchant Identity certificate.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // GET /v1/trust: anchor subjects and fingerprints.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Resources/openapi.yaml")],
            swiftSettings: swiftSettings
        ),

        // Top: the command line. The commands live in a library so tests can run them in-process.
        .target(
            name: "WalletVerifierCommands",
            dependencies: [
                "SDJWTVerifier",
                "WalletEncoding",
                "WalletCBOR",
                "WalletJSON",
                "WalletCOSE",
                "VerificationCore",
                "ApplePayVerifier",
                "GooglePayVerifier",
                "Mdoc",
                "MdocVerifier",
                "WalletIdentity",
                "TrustDocuments", "WebIdentity",
                "VerifierServer",
                // --receipt-key on the verify commands, and `receipt verify`.
                "VerificationReceipts",
                // keys new / keys import: key generation (P-256, RSA-2048) and JWK thumbprints.
                "WalletJOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "wallet-verifier",
            dependencies: ["WalletVerifierCommands"],
            swiftSettings: swiftSettings
        ),

        // Fixtures built in code (own PKI, own tokens, own mdocs) and access to the shared vectors.
        .target(
            name: "WalletVerifierTestSupport",
            dependencies: [
                "WalletEncoding",
                "WalletCBOR",
                "WalletCOSE",
                "VerificationCore",
                "ApplePayVerifier",
                "GooglePayVerifier",
                "WalletJSON",
                "Mdoc",
                "MdocVerifier",
                "WalletIdentity",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "WalletCBORTests",
            dependencies: [
                "WalletCBOR", "WalletVerifierTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletCOSETests",
            dependencies: ["WalletCOSE", "WalletCBOR", "WalletVerifierTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletEncodingTests",
            dependencies: ["WalletEncoding"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletJOSETests",
            dependencies: ["WalletJOSE", "WalletJSON", "WalletEncoding", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletJSONTests",
            dependencies: ["WalletJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "VerificationReceiptsTests",
            dependencies: [
                "VerificationReceipts", "VerificationCore", "WalletEncoding", "WalletJSON", "WalletJOSE", "WalletCBOR", "Mdoc", "MdocVerifier",
                "WalletIdentity", "WebIdentity", "ApplePayVerifier", "GooglePayVerifier", "WalletVerifierTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "VerificationCoreTests",
            dependencies: ["WalletEncoding", "VerificationCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SDJWTVerifierTests",
            dependencies: [
                "SDJWTVerifier", "MdocVerifier", "VerificationCore", "WalletJSON", "WalletEncoding", "WalletVerifierTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MdocVerifierTests",
            dependencies: [
                "WalletEncoding", "MdocVerifier", "MdocRevocationHTTP", "Mdoc", "WalletCBOR", "WalletCOSE", "VerificationCore",
                "WalletVerifierTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                // RSA issuers for the Annex B algorithm rules.
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TrustDocumentsTests",
            dependencies: [
                "TrustDocuments", "MdocVerifier", "GooglePayVerifier", "VerificationCore", "WalletEncoding", "WalletVerifierTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletIdentityTests",
            dependencies: [
                // The README example checks revocation with the HTTP transport.
                "TrustDocuments",
                "WalletEncoding", "WalletIdentity", "MdocVerifier", "Mdoc", "WalletCBOR", "VerificationCore", "WalletVerifierTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "VerifierServerTests",
            dependencies: [
                "WalletEncoding", "VerifierServer", "TrustDocuments", "ApplePayVerifier", "GooglePayVerifier", "VerificationCore", "WalletIdentity",
                "WebIdentity",
                "WalletCOSE",
                "WalletCBOR", "WalletVerifierCommands", "WalletVerifierTestSupport", "MdocVerifier",
                // Wallets' OpenID4VP answers (JWE) in the web tests.
                "WalletJOSE",
                // What a running service left in its store (Apple Pay replay records, the VICAL rollback record).
                "ReplayStoreSQLite", "ReplayStorePostgres",
                // Receipts in the answers, verified as an auditor would.
                "VerificationReceipts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"), .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                // A TLS server that requires a client certificate (Apple Pay merchant validation).
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            // The receipt interop script (Python), run by the tests.
            exclude: ["Interop"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ApplePayVerifierTests",
            dependencies: ["WalletEncoding", "ApplePayVerifier", "VerificationCore", "WalletJSON", "WalletVerifierTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GooglePayVerifierTests",
            dependencies: [
                "WalletEncoding", "GooglePayVerifier", "VerificationCore", "WalletJSON", "WalletVerifierTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Test data from other projects, read from the source tree (see Vectors/README.md).
            exclude: ["Vectors", "Interop"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReplayStoreTests",
            dependencies: [
                "ReplayStoreSQLite", "ReplayStorePostgres", "VerificationCore",
                // The revocation-list cache shared through the stores.
                "MdocRevocationHTTP", "WalletVerifierTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WalletVerifierCommandsTests",
            dependencies: [
                "WalletEncoding", "WalletVerifierCommands", "TrustDocuments", "MdocVerifier", "WalletVerifierTestSupport", "WalletCBOR", "WalletCOSE",
                "VerificationCore",
                "Mdoc", "WebIdentity", "WalletJOSE", "ApplePayVerifier", "WalletIdentity",
                // The receipts the verify commands print, checked with the library's verifier (its claims are strict JSON).
                "VerificationReceipts", "WalletJSON",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebIdentityTests",
            dependencies: [
                "WalletEncoding", "WebIdentity", "MdocVerifier", "Mdoc", "WalletCBOR", "WalletCOSE", "VerificationCore",
                "WalletJOSE", "WalletJSON", "WalletVerifierCommands", "WalletVerifierTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            // The independent wallet (Python: joserfc, cbor2) the interop test runs.
            exclude: ["Interop"],
            swiftSettings: swiftSettings
        ),
    ]
)
