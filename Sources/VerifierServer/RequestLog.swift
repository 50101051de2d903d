import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import VerificationCore
import WalletJSON

/// The request identifier of each answer (`X-Request-Id`): the caller's, when it is 1 to 64
/// printable ASCII characters without spaces, else one generated here. It is sent back on every
/// answer, put into every problem body (`requestId`) and every log line of the request.
public enum RequestID {
    /// The header's name.
    public static let headerName = HTTPField.Name("X-Request-Id")!
    /// The identifier of the request being answered (nil outside one).
    @TaskLocal public static var current: String?

    /// The caller's identifier when it is usable, else a new one.
    public static func accept(_ header: String?) -> String {
        if let header, (1...64).contains(header.utf8.count), header.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) { return header }
        return generate()
    }

    /// 16 random bytes as 32 hex digits.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in stride(from: 0, to: 32, by: 2) {
            let byte = UInt8.random(in: 0...255, using: &generator)
            bytes[index] = hex[Int(byte >> 4)]
            bytes[index + 1] = hex[Int(byte & 0x0f)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// What a verification adds to its request's log line: the flow, the verdict and the ids of the
/// checks that failed or erred — never a value from the submission.
final class RequestRecord: Sendable {
    private let state = Mutex<(flow: String, verdict: String, failed: [String])?>(nil)
    @TaskLocal static var current: RequestRecord?

    /// Notes `report` for the current request's log line (nothing outside a request).
    static func note(_ report: VerificationReport) {
        guard let current else { return }
        let failed = report.checks.filter { $0.status == .failed || $0.status == .error }.map(\.id.rawValue)
        current.state.withLock { $0 = (report.flow, report.verdict.rawValue, failed) }
    }

    var verification: (flow: String, verdict: String, failed: [String])? { state.withLock { $0 } }
}

/// One log line per answered request — method, path, status, milliseconds and the request id, and
/// for a verification its flow, verdict and failed checks — and the `X-Request-Id` of every answer.
/// It is the outermost middleware, so refusals of the others (a 401, a 404) carry the id too.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = VerifierRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let id = RequestID.accept(request.headers[RequestID.headerName])
        let record = RequestRecord()
        var context = context
        context.logger[metadataKey: "requestId"] = .string(id)
        let logger = self.logger
        func logAnswer(_ status: Int) {
            var metadata: Logger.Metadata = [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(status)",
                "ms": "\(Self.milliseconds(since: start))", "requestId": .string(id),
            ]
            if let verification = record.verification {
                metadata["flow"] = .string(verification.flow)
                metadata["verdict"] = .string(verification.verdict)
                metadata["failedChecks"] = .array(verification.failed.map { .string($0) })
            }
            logger.info("request", metadata: metadata)
        }
        return try await RequestID.$current.withValue(id) {
            try await RequestRecord.$current.withValue(record) {
                var response: Response
                do {
                    response = try await next(request, context)
                } catch let error as any HTTPResponseError {
                    // A refusal the router would answer (a ``Problem``): answered here, with the id.
                    response = try error.response(from: request, context: context)
                } catch {
                    logger.info(
                        "request",
                        metadata: [
                            "method": "\(request.method)", "path": "\(request.uri.path)", "error": .string(operatorDescription(error)),
                            "requestId": .string(id),
                        ])
                    throw error
                }
                response.headers[RequestID.headerName] = id
                logAnswer(response.status.code)
                return response
            }
        }
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = (ContinuousClock.now - start).components
        return elapsed.attoseconds / 1_000_000_000_000_000 + elapsed.seconds * 1000
    }
}

/// `--log-format json`: one JSON object per line on standard error — `time` (RFC 3339 with
/// milliseconds, UTC), `level`, `message`, then the metadata (`requestId`, and for a request's line
/// `method`, `path`, `status`, `ms`, and for a verification `flow`, `verdict`, `failedChecks`).
/// What the service logs carries no element value, PAN, cryptogram, nonce, key or token, in either format.
public struct JSONLogHandler: LogHandler {
    /// The metadata of this logger.
    public var metadata: Logger.Metadata = [:]
    /// The least severe level written.
    public var logLevel: Logger.Level = .info
    private let write: @Sendable (String) -> Void

    /// A handler writing each line to standard error, or to `write` (tests).
    public init(write: (@Sendable (String) -> Void)? = nil) {
        self.write = write ?? { line in FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Metadata of this logger by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line.
    public func log(event: LogEvent) {
        var writer = JSONWriter(capacity: 256)
        writer.raw("{")
        writer.key("time")
        writer.string(Self.timestamp(Date()))
        writer.raw(",")
        writer.key("level")
        writer.string(event.level.rawValue)
        writer.raw(",")
        writer.key("message")
        writer.string("\(event.message)")
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        for key in merged.keys.sorted() where !["time", "level", "message"].contains(key) {
            writer.raw(",")
            writer.key(key)
            Self.write(merged[key] ?? .string(""), to: &writer)
        }
        writer.raw("}\n")
        write(writer.text)
    }

    static func write(_ value: Logger.Metadata.Value, to writer: inout JSONWriter) {
        switch value {
        case .string(let text): writer.string(text)
        case .stringConvertible(let convertible): writer.string(convertible.description)
        case .array(let values):
            writer.raw("[")
            for (index, element) in values.enumerated() {
                if index > 0 { writer.raw(",") }
                write(element, to: &writer)
            }
            writer.raw("]")
        case .dictionary(let members):
            writer.raw("{")
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { writer.raw(",") }
                writer.key(key)
                write(members[key] ?? .string(""), to: &writer)
            }
            writer.raw("}")
        }
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)
        return formatter.format(date)
    }
}

/// An error as an operator's log line says it: what our own errors say (a store's failure names the
/// operation and the database's result code, never a value), else that it was unexpected — never a
/// Swift type name.
func operatorDescription(_ error: any Error) -> String {
    switch error {
    case let failure as any CheckFailureDescribing: return failure.checkMessage
    case is CancellationError: return "cancelled"
    default: return "an unexpected error"
    }
}
