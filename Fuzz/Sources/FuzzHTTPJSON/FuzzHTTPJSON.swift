import Foundation
import FuzzSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import VerificationCore
import VerifierServer

// The `http-json` target: the service's request-body parsing, through its real router in process
// (Hummingbird's router test client), on the in-memory store with every flow configured (Apple's
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

/// The router's test client, kept open for the whole run.
nonisolated(unsafe) var client: (any TestClientProtocol)?

func startClient() {
    let ready = DispatchSemaphore(value: 0)
    Task {
        let services = try await VerifierServices.make(settings: settings, logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }),
                                                      clock: FixedClock(RFC3339Time.parse("2022-04-01T00:00:00Z")!))
        let app = VerifierApplication.build(services: services, logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await app.test(.router) { testClient in
            client = testClient
            ready.signal()
            try await Task.sleep(for: .seconds(86_400 * 365))
        }
    }
    ready.wait()
}

func post(_ path: String, _ body: [UInt8]) async -> TestResponse {
    try! await client!.execute(uri: path, method: .post, headers: jsonHeaders, body: ByteBuffer(bytes: body))
}

func requestID(web: Bool) async -> String {
    let body = web ? #"{"docType":"org.iso.18013.5.1.mDL","origin":"https://fuzz.example","elements":["org.iso.18013.5.1/age_over_21"]}"#
        : #"{"descriptor":{"document":"driversLicense","elements":[{"element":"age","atLeast":21,"intentToStore":"willNotStore"}]}}"#
    let response = await post(web ? "/v1/web/requests" : "/v1/identity/requests", Array(body.utf8))
    guard response.status == .created, let object = try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any],
          let id = object["requestId"] as? String else { fatalError("fuzz: cannot create a request (\(response.status))") }
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
    let object = try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
    if status >= 400, !(status == 503 && object?["verdict"] as? String == "indeterminate") {
        guard response.headers[.contentType] == "application/problem+json", object?["status"] as? Int == status else {
            fatalError("\(route) answered \(status) without a problem+json body")
        }
    }
    if object?["verdict"] as? String == "accepted" { fatalError("\(route) accepted a generated body") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzOneInput(data, size) { await run($0) }
}

@_cdecl("FuzzHTTPJSON_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    startClient()
    return runFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
