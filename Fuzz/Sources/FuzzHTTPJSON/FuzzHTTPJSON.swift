import Foundation
import FuzzSupport
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import VerificationCore
import VerifierServer

// The `http-json` target: the service's request-body parsing, through its real router in process
// (its responder called directly, as the server does), on the in-memory store with every flow configured (Apple's
// sample identity key and IACA, the 2014 Apple Pay merchant pair, a web origin and key). The first
// byte picks the route; the rest is the body, sent as application/json. In a body, the text
// REQUESTID is replaced by the id of a created request (identity or web, by route), so
// generated bodies reach the verification code.
// Oracle: never a 5xx other than 503, never an accepted verdict, every error a problem+json object
// (or, for 503, an indeterminate report).

let routes = ["/v1/identity/requests", "/v1/identity/verify", "/v1/applepay/decrypt", "/v1/web/requests", "/v1/web/verify", "/v1/mdoc/verify"]
let jsonHeaders: HTTPFields = [.contentType: "application/json"]

let directory: String = {
    let path = NSTemporaryDirectory() + "wallet-verifier-fuzz-http-\(ProcessInfo.processInfo.processIdentifier)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    // The keys copied here go when the run ends (libFuzzer exits through `exit`); a directory was left per run.
    atexit { try? FileManager.default.removeItem(atPath: directory) }
    return path
}()
func copyVector(_ path: String, as name: String) -> String {
    let target = directory + "/" + name
    FileManager.default.createFile(atPath: target, contents: Data(testVector(path)), attributes: [.posixPermissions: 0o600])
    return target
}

let settings: ServerSettings = {
    var settings = ServerSettings()
    settings.store = .memory
    settings.dataDirectory = directory + "/data"
    settings.identityKeys = [copyVector("mdoc/apple-verify-with-wallet-sample/sample/merchant_encryption.key", as: "identity.key")]
    settings.merchantID = "PassKit_Identity_Test_Merchant_ID"
    settings.teamID = "PassKit_Identity_Test_Team_ID"
    settings.trust = [copyVector("mdoc/apple-verify-with-wallet-sample/sample/issuer_root.crt", as: "iaca.crt")]
    settings.applePayCertificates = [copyVector("applepay/seatgeek-2014-ec/certificate.pem", as: "merchant.pem")]
    settings.applePayKeys = [copyVector("applepay/seatgeek-2014-ec/private_key.pem", as: "merchant.key")]
    settings.webOrigins = ["https://fuzz.example"]
    settings.webKeys = [copyVector("mdoc/dcapi-annex-c-chrome-android-jmandel/request/recipient-private.jwk.json", as: "web.jwk")]
    settings.requestRate = 0
    return settings
}()

/// The service's router, driven in process: one responder and one test channel for the whole run
/// (a channel per request, as Hummingbird's router test client makes, is never freed).
nonisolated(unsafe) var responder: RouterResponder<VerifierRequestContext>?
let channel = NIOAsyncTestingChannel()
let quietLogger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

func startResponder() {
    let ready = DispatchSemaphore(value: 0)
    Task {
        let services = try await VerifierServices.make(
            settings: settings, logger: quietLogger,
            clock: FixedClock(fixedTime("2022-04-01T00:00:00Z")))
        try await services.prepare()
        responder = VerifierApplication.buildRouter(services: services, logger: quietLogger).buildResponder()
        ready.signal()
    }
    ready.wait()
}

/// A collected answer: status, headers and the whole body.
struct Answer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: [UInt8]
}

/// Collects a response body in memory.
final class BodyCollector: @unchecked Sendable {
    var bytes: [UInt8] = []
}
struct CollectingWriter: ResponseBodyWriter {
    let collector: BodyCollector
    mutating func write(_ buffer: ByteBuffer) async throws { collector.bytes += buffer.readableBytesView }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

func post(_ path: String, _ body: [UInt8]) async -> Answer {
    var headers = jsonHeaders
    headers[.contentLength] = String(body.count)
    let request = Request(
        head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: path, headerFields: headers),
        body: RequestBody(buffer: ByteBuffer(bytes: body)))
    let context = VerifierRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: quietLogger))
    let response: Response
    do {
        response = try await responder!.respond(to: request, context: context)
    } catch let error as any HTTPResponseError {
        // What the server does with a thrown HTTP error (for example a body past the size limit).
        response = try! error.response(from: request, context: context)
    } catch {
        fatalError("\(path) threw \(type(of: error)), which the server answers with 500")
    }
    let collector = BodyCollector()
    try! await response.body.write(CollectingWriter(collector: collector))
    return Answer(status: response.status, headers: response.headers, body: collector.bytes)
}

func requestID(web: Bool) async -> String {
    let body =
        web
        ? #"{"docType":"org.iso.18013.5.1.mDL","origin":"https://fuzz.example","elements":["org.iso.18013.5.1/age_over_21"]}"#
        : #"{"descriptor":{"document":"driversLicense","elements":[{"element":"age","atLeast":21,"intentToStore":"willNotStore"}]}}"#
    let response = await post(web ? "/v1/web/requests" : "/v1/identity/requests", Array(body.utf8))
    guard response.status == .created, let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
        let id = object["requestId"] as? String
    else { fatalError("fuzz: cannot create a request (\(response.status))") }
    return id
}

/// A created request's id per flow, renewed every 100 uses so the store stays small (the clock is fixed,
/// so requests never expire).
nonisolated(unsafe) var cachedIDs: [Bool: (id: String, uses: Int)] = [:]
func cachedRequestID(web: Bool) async -> String {
    if let cached = cachedIDs[web], cached.uses < 100 {
        cachedIDs[web] = (cached.id, cached.uses + 1)
        return cached.id
    }
    let id = await requestID(web: web)
    cachedIDs[web] = (id, 1)
    return id
}

func run(_ input: [UInt8]) async {
    guard let selector = input.first else { return }
    let route = routes[Int(selector) % routes.count]
    var body = Array(input.dropFirst())
    if route.hasSuffix("/verify"), let range = body.firstRange(of: Array("REQUESTID".utf8)) {
        body.replaceSubrange(range, with: Array(await cachedRequestID(web: route.contains("/web/")).utf8))
    }
    let response = await post(route, body)
    let status = response.status.code
    guard status < 500 || status == 503 else { fatalError("\(route) answered \(status)") }
    let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    if status >= 400, !(status == 503 && object?["verdict"] as? String == "indeterminate") {
        guard response.headers[.contentType] == "application/problem+json", object?["status"] as? Int == status else {
            fatalError("\(route) answered \(status) without a problem+json body")
        }
    }
    if object?["verdict"] as? String == "accepted" { fatalError("\(route) accepted a generated body") }
}

@_cdecl("FuzzHTTPJSON_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, prepare: { startResponder() }, .asynchronous(run))
}
