// The generated `Client`, `Components` and `Operations` come from openapi.yaml, a link to the
// service's own document (Sources/VerifierServer/Resources/openapi.yaml).
import Foundation
import OpenAPIRuntime

/// RFC 3339 timestamps as the service writes them: with milliseconds (`expiresAt`, `evaluatedAt`) or
/// without (a token's `signingTime`). The runtime's default ISO 8601 transcoder reads only the second
/// form, so a client of this API is configured with this one (``Configuration/walletVerifier``).
public struct RFC3339DateTranscoder: DateTranscoder, @unchecked Sendable {
    private let lock = NSLock()
    private let fractional: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
    private let whole = ISO8601DateFormatter()

    public init() {}

    public func encode(_ date: Date) throws -> String {
        lock.withLock { fractional.string(from: date) }
    }

    public func decode(_ text: String) throws -> Date {
        let date = lock.withLock { fractional.date(from: text) ?? whole.date(from: text) }
        guard let date else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(text) is not an RFC 3339 timestamp"))
        }
        return date
    }
}

extension Configuration {
    /// The configuration for this API: RFC 3339 timestamps with or without fractional seconds.
    public static var walletVerifier: Configuration { Configuration(dateTranscoder: RFC3339DateTranscoder()) }
}
