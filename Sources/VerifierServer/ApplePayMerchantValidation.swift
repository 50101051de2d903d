import ApplePayVerifier
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import SwiftASN1
import Synchronization
import VerificationCore
import WalletEncoding
import WalletJSON
import X509

/// The Apple Pay Merchant Identity certificate and its private key: the TLS client certificate the
/// service presents to Apple's merchant-validation servers (Apple Pay on the web).
///
/// The certificate and the key are read and checked to belong together by ``MerchantKey``, which
/// also names the merchant identifier the session request carries
/// (``MerchantKey/validationMerchantIdentifier``). `description` never shows key material.
public struct ApplePayMerchantIdentity: Sendable, CustomStringConvertible {
    /// The certificate with its key, checked to match.
    public let merchantKey: MerchantKey
    /// What the session request names as `merchantIdentifier`.
    public let merchantIdentifier: String
    /// The certificate's DER, leaf first (the file may carry intermediates after it).
    let chainDER: [[UInt8]]
    /// The key file as read, for the TLS library.
    private let keyFile: [UInt8]

    /// Why a Merchant Identity certificate cannot be used alone, and the flag that helps.
    static let noMerchantIdentifier =
        "the certificate names no merchant identifier (neither the extension 1.2.840.113635.100.6.32 nor a UID in its subject); give it with --applepay-merchant-id (e.g. --applepay-merchant-id merchant.com.example), or use the Merchant Identity certificate Apple issued for the merchant ID"

    /// The certificate's subject and the merchant identifier; never key material.
    public var description: String {
        "ApplePayMerchantIdentity(\(merchantKey.subjectName), merchantIdentifier \(merchantIdentifier))"
    }

    /// Reads a certificate file (PEM, the leaf first, or DER) and a private-key file (PEM or DER;
    /// RSA or P-256). `merchantIdentifier` (`--applepay-merchant-id`) names the merchant when the
    /// certificate does not (it must match the certificate's merchant-id extension when it has one).
    /// Throws ``SettingsError`` when either cannot be read, the key is not the certificate's, or no
    /// merchant identifier is known.
    public init(certificateFile: [UInt8], keyFile: [UInt8], merchantIdentifier: String? = nil) throws(SettingsError) {
        let key: MerchantKey
        do {
            key = try MerchantKey(certificateFile: certificateFile, privateKeyFile: keyFile, merchantIdentifier: merchantIdentifier)
        } catch {
            // Apple Pay decryption keys take the merchant id as --merchant-id; here it is --applepay-merchant-id.
            guard error.code == .merchantIdentifierMissing else { throw SettingsError("\(error)") }
            throw SettingsError(Self.noMerchantIdentifier)
        }
        guard let identifier = key.validationMerchantIdentifier else { throw SettingsError(Self.noMerchantIdentifier) }
        var chain: [[UInt8]] = []
        do {
            var serializer = DER.Serializer()
            try serializer.serialize(key.certificate)
            chain.append(serializer.serializedBytes)
            if certificateFile.first != 0x30 {
                for certificate in try NIOSSLCertificate.fromPEMBytes(certificateFile).dropFirst() { chain.append(try certificate.toDERBytes()) }
            }
            _ = try Self.tlsKey(keyFile)
        } catch {
            throw SettingsError("the certificate or the key cannot be used for TLS: \(error)")
        }
        self.merchantKey = key
        self.merchantIdentifier = identifier
        self.chainDER = chain
        self.keyFile = keyFile
    }

    /// The private key for the TLS library: DER when the file starts as DER, else PEM (text around
    /// the key block is skipped).
    static func tlsKey(_ file: [UInt8]) throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: file, format: file.first == 0x30 ? .der : .pem)
    }

    /// The TLS configuration of a session request: this certificate and key as the client's, the
    /// given roots (or the system's) for the server, TLS 1.2 or later.
    func tlsConfiguration(trustRoots: [[UInt8]]?) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.shutdownTimeout = .seconds(1)
        configuration.certificateChain = try chainDER.map { .certificate(try NIOSSLCertificate(bytes: $0, format: .der)) }
        configuration.privateKey = .privateKey(try Self.tlsKey(keyFile))
        if let trustRoots {
            configuration.trustRoots = .certificates(try trustRoots.map { try NIOSSLCertificate(bytes: $0, format: .der) })
        }
        return configuration
    }

    /// Builds the TLS client context a session request uses (this certificate and key, the given
    /// roots), as ``ApplePayMerchantValidator/requestSession(_:)`` will: what the TLS library refuses
    /// is found at start and by `serve --check`, not by every session as a 502.
    func checkTLS(trustRoots: [[UInt8]]?) throws(SettingsError) {
        do { _ = try NIOSSLContext(configuration: try tlsConfiguration(trustRoots: trustRoots)) } catch {
            throw SettingsError("the Merchant Identity certificate and key cannot be loaded for TLS: \(error)")
        }
    }

    /// The CA certificates of a PEM file (`--applepay-validation-ca`), as DER; throws when it holds none.
    public static func validationRoots(pemFile: [UInt8]) throws(SettingsError) -> [[UInt8]] {
        let roots: [[UInt8]]
        do { roots = try NIOSSLCertificate.fromPEMBytes(pemFile).map { try $0.toDERBytes() } } catch {
            throw SettingsError("not a PEM file of CA certificates: \(error)")
        }
        guard !roots.isEmpty else { throw SettingsError("the file holds no PEM certificate") }
        return roots
    }
}

/// A merchant-validation URL (`validationURL` of Apple Pay JS) this service may call: `https`, no
/// user information, no query or fragment, a host of the allow-list (Apple's documented hosts, or the
/// `--applepay-validation-hosts` entries) on port 443, or on the port an allow-list entry names,
/// and one of Apple's session paths (``sessionPaths``). Anything else is refused before any
/// connection is made: the Merchant Identity certificate is presented to nothing else.
public struct ApplePayValidationTarget: Sendable, Hashable {
    /// The host, lowercased.
    public let host: String
    /// The port: 443 unless an allow-list entry names another.
    public let port: Int
    /// The URL the session request is posted to, rebuilt from the parts that were checked.
    public let url: String

    /// The hosts of Apple's merchant-validation servers ("Setting up your server" in Apple's Apple
    /// Pay on the web documentation): production, the China region, their regional pods, and the
    /// sandbox hosts.
    public static let appleHosts: [String] =
        ["apple-pay-gateway.apple.com", "cn-apple-pay-gateway.apple.com"]
        + (1...5).map { "apple-pay-gateway-nc-pod\($0).apple.com" } + (1...5).map { "apple-pay-gateway-pr-pod\($0).apple.com" }
        + ["apple-pay-gateway-cert.apple.com", "cn-apple-pay-gateway-cert.apple.com"]

    /// The paths of Apple's session endpoints: Payment Session, and Start Session, which Apple Pay JS
    /// still hands over while it is phased out.
    public static let sessionPaths = ["/paymentservices/paymentSession", "/paymentservices/startSession"]

    /// Reads `text` and checks it against `allowed` (entries `host` or `host:port`; nil: ``appleHosts``
    /// on port 443). Throws the reason as a sentence that never repeats the URL.
    static func parse(_ text: String, allowed: [String]?) throws(Problem) -> ApplePayValidationTarget {
        func refuse(_ reason: String) -> Problem { Problem.badRequest("/validationURL: \(reason)") }
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 2048, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw refuse("must be an https URL of at most 2048 characters, without spaces or non-ASCII characters")
        }
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") else {
            throw refuse(
                lower.hasPrefix("http://") ? "must be https, not http" : "must be an https URL, as Apple Pay JS hands it over (event.validationURL)")
        }
        let rest = text.dropFirst("https://".count)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let pathAndQuery = rest[authorityEnd...]
        guard !authority.contains("@") else { throw refuse("must not carry user information (user@ or user:password@)") }
        guard !authority.hasPrefix("[") else { throw refuse("names an IP address; only the hosts of Apple's merchant-validation servers are called") }
        var hostText = Substring(authority)
        var port: Int?
        if let colon = authority.lastIndex(of: ":") {
            hostText = authority[..<colon]
            let portText = authority[authority.index(after: colon)...]
            guard let number = Int(portText), portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber), (1...65535).contains(number) else {
                throw refuse("has a port that is not a number from 1 to 65535")
            }
            port = number
        }
        let host = hostText.lowercased()
        guard isHostName(host) else { throw refuse("has a host that is not a DNS name") }
        let entries = allowed ?? appleHosts
        let effectivePort = port ?? 443
        let listed = effectivePort == 443 ? entries.contains(host) || entries.contains("\(host):443") : entries.contains("\(host):\(effectivePort)")
        guard listed else {
            if entries.contains(host) || entries.contains(where: { $0.hasPrefix(host + ":") }) {
                throw refuse(
                    allowed == nil
                        ? "names port \(effectivePort); the merchant-validation server is called on port 443 only"
                        : "names port \(effectivePort), which --applepay-validation-hosts does not list for this host")
            }
            if host.allSatisfy({ $0 == "." || $0.isNumber }) {
                throw refuse("names an IP address; only the hosts of Apple's merchant-validation servers are called")
            }
            throw refuse(
                allowed == nil
                    ? "names a host that is not one of Apple's merchant-validation servers (such as apple-pay-gateway.apple.com); no other host is called"
                    : "names a host that is not in --applepay-validation-hosts; no other host is called")
        }
        guard !pathAndQuery.contains("#") else { throw refuse("must not have a fragment (#...)") }
        guard pathAndQuery.isEmpty || pathAndQuery.hasPrefix("/"), isPathAndQuery(pathAndQuery) else {
            throw refuse("has a path with characters a URL path does not allow unencoded")
        }
        guard sessionPaths.contains(String(pathAndQuery)) else {
            throw refuse(
                "names a path other than Apple's session endpoints (\(sessionPaths.joined(separator: ", "))), or a query; no other is called")
        }
        let url = "https://\(host)\(port.map { ":\($0)" } ?? "")\(pathAndQuery.isEmpty ? "/" : pathAndQuery)"
        // The URL as the HTTP client will read it must name the same host and port.
        guard let parsed = URL(string: url), parsed.scheme == "https", parsed.host?.lowercased() == host, parsed.port == port, parsed.user == nil
        else { throw refuse("cannot be read as a URL") }
        return ApplePayValidationTarget(host: host, port: effectivePort, url: url)
    }

    /// Whether `host` is a DNS name (or a dotted IPv4 address): labels of lowercase letters, digits and
    /// hyphens, 1 to 63 characters, not starting or ending with a hyphen; at most 253 characters.
    static func isHostName(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        return host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d }
        }
    }

    /// Whether `text` holds only what a URL's path and query allow unencoded, and `%` only before two hex digits.
    static func isPathAndQuery(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?".utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, Hex.decodeStrict(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self)) != nil else {
                    return false
                }
                index += 3
                continue
            }
            guard allowed.contains(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    /// An allow-list entry of `--applepay-validation-hosts`, lowercased: `HOST` or `HOST:PORT`; nil
    /// when it is neither.
    static func hostEntry(_ text: String) -> String? {
        let entry = text.lowercased()
        var host = Substring(entry)
        if let colon = entry.lastIndex(of: ":") {
            host = entry[..<colon]
            let port = entry[entry.index(after: colon)...]
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65535).contains(number) else { return nil }
        }
        return isHostName(String(host)) ? entry : nil
    }

    /// The domain of `--applepay-domain`, lowercased; nil when it is not a DNS name (a scheme, a port,
    /// a path, an address).
    static func domainName(_ text: String) -> String? {
        let domain = text.lowercased()
        guard isHostName(domain), domain.contains("."), !domain.allSatisfy({ $0 == "." || $0.isNumber }) else { return nil }
        return domain
    }
}

/// Asks Apple's merchant-validation server for a payment session: one POST of the merchant
/// identifier, the display name, `initiative` `web` and the domain, over TLS with the Merchant
/// Identity certificate as the client certificate, under one deadline over connecting, the answer's
/// head and its body; redirects not followed, the answer capped at ``answerLimit`` bytes.
struct ApplePayMerchantValidator: Sendable {
    /// The Merchant Identity certificate and key.
    let identity: ApplePayMerchantIdentity
    /// `initiativeContext`: the domain the button is shown on.
    let domain: String
    /// `displayName`.
    let displayName: String
    /// The allow-list entries; nil: ``ApplePayValidationTarget/appleHosts``.
    let allowedHosts: [String]?
    /// DER CA certificates trusted for the server instead of the system roots; nil: the system roots.
    let trustRoots: [[UInt8]]?
    /// Seconds the whole request may take (`--fetch-timeout`).
    let timeout: Int

    /// The largest session object accepted from the server, bytes.
    static let answerLimit = 65_536

    /// Why no session object came back: the metric's outcome and the problem's detail (never the
    /// answer's content, never key material).
    struct Failure: Error {
        let outcome: String
        let detail: String
    }

    /// The session request's JSON body.
    var requestBody: [UInt8] {
        var body = JSONWriter(capacity: 256)
        body.raw("{\"merchantIdentifier\":")
        body.string(identity.merchantIdentifier)
        body.raw(",\"displayName\":")
        body.string(displayName)
        body.raw(",\"initiative\":\"web\",\"initiativeContext\":")
        body.string(domain)
        body.raw("}")
        return body.bytes
    }

    /// Posts the session request to `target` and returns Apple's session object as the bytes received.
    /// Throws ``Failure`` for an answer other than 200 with a body, a timeout, a TLS or connection failure.
    func requestSession(_ target: ApplePayValidationTarget) async throws -> [UInt8] {
        let tls: TLSConfiguration
        do { tls = try identity.tlsConfiguration(trustRoots: trustRoots) } catch {
            throw Failure(outcome: "tls-failed", detail: "the Merchant Identity certificate could not be used for TLS")
        }
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(1))
        // A refused connection fails at once instead of being retried until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        // The request's own deadline bounds connecting too.
        configuration.timeout = .init(connect: .seconds(600), read: nil)
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let seconds = timeout
        let result: Result<[UInt8], any Error>
        do {
            // The request races a timer: whichever ends first ends the other (the request's task is
            // cancelled, which closes its connection), so a server that trickles cannot stretch it.
            let answer = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                group.addTask { try await post(target, client: client, deadline: .now() + .seconds(Int64(seconds))) }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            if let answer { result = .success(answer) } else { result = .failure(Failure(outcome: "timeout", detail: timedOut)) }
        } catch {
            result = .failure(error)
        }
        // Closing waits for the server's TLS close_notify (up to the TLS shutdown timeout): a server
        // that stopped answering would hold the answer that long, so the client closes on its own.
        Task { try? await client.shutdown() }
        switch result {
        case .success(let session): return session
        case .failure(let failure as Failure): throw failure
        case .failure(let error as CancellationError): throw error
        case .failure(let error): throw describe(error)
        }
    }

    private var timedOut: String { "the merchant-validation server did not answer within \(timeout) s (--fetch-timeout)" }

    private func post(_ target: ApplePayValidationTarget, client: HTTPClient, deadline: NIODeadline) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: requestBody))
        let response = try await client.execute(request, deadline: deadline)
        let status = Int(response.status.code)
        guard status == 200 else {
            let hint = (300..<400).contains(status) ? " (redirects are not followed)" : ""
            throw Failure(outcome: "refused", detail: "the merchant-validation server answered HTTP \(status)\(hint)")
        }
        if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > Self.answerLimit {
            throw Failure(outcome: "too-large", detail: "the merchant-validation server's answer is larger than \(Self.answerLimit) bytes")
        }
        var body: [UInt8] = []
        for try await chunk in response.body {
            guard body.count + chunk.readableBytes <= Self.answerLimit else {
                throw Failure(outcome: "too-large", detail: "the merchant-validation server's answer is larger than \(Self.answerLimit) bytes")
            }
            body.append(contentsOf: chunk.readableBytesView)
        }
        guard (try? StrictJSON.parse(body))?.object != nil else {
            throw Failure(outcome: "unreadable", detail: "the merchant-validation server's answer is not a JSON object")
        }
        return body
    }

    /// A transport error as a failure: the deadline, TLS, or a connection that failed.
    private func describe(_ error: any Error) -> Failure {
        if let client = error as? HTTPClientError {
            if client == .deadlineExceeded || client == .readTimeout || client == .connectTimeout || client == .writeTimeout {
                return Failure(outcome: "timeout", detail: timedOut)
            }
            if client == .remoteConnectionClosed {
                return Failure(
                    outcome: "connection-failed",
                    detail:
                        "the merchant-validation server closed the connection without an answer (it may have refused the Merchant Identity certificate)"
                )
            }
        }
        if let ssl = error as? NIOSSLError {
            return Failure(outcome: "tls-failed", detail: "TLS handshake failed: \(ssl)")
        }
        if let ssl = error as? BoringSSLError {
            return Failure(outcome: "tls-failed", detail: "TLS handshake failed: \(ssl)")
        }
        if error is NIOSSLExtraError {
            return Failure(outcome: "tls-failed", detail: "TLS handshake failed: \(error)")
        }
        return Failure(
            outcome: "connection-failed", detail: "the merchant-validation server could not be reached: \(operatorDescription(error))")
    }
}

/// The merchant validations in progress, per client address (IPv6: its /64) and in all: each one
/// holds an outbound mTLS connection until Apple answers or `--fetch-timeout` passes, so one client
/// may hold ``perClient`` at once and the process ``total``. Kept across reloads.
final class MerchantValidationSlots: Sendable {
    /// Validations one client may have in progress.
    static let perClient = 4
    /// Validations the process may have in progress.
    static let total = 64
    private let state = Mutex<(all: Int, byClient: [String: Int])>((0, [:]))

    /// A slot for `client`, or nil when it (or the process) has none free.
    func take(client: String) -> String? {
        state.withLock { state in
            let held = state.byClient[client] ?? 0
            guard held < Self.perClient, state.all < Self.total else { return nil }
            state.byClient[client] = held + 1
            state.all += 1
            return client
        }
    }

    /// Gives back a slot taken by ``take(client:)``.
    func release(_ client: String) {
        state.withLock { state in
            let held = state.byClient[client] ?? 0
            state.byClient[client] = held > 1 ? held - 1 : nil
            state.all = max(0, state.all - 1)
        }
    }
}
