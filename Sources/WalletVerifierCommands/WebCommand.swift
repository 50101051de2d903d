import ArgumentParser
import Crypto
import Foundation
import MdocVerifier
import SwiftASN1
import VerificationCore
import VerificationReceipts
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WebIdentity
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Verify with Wallet on the Web: ISO/IEC 18013-7 Annex C (`org-iso-mdoc` over the W3C Digital
/// Credentials API).
struct WebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Verify with Wallet on the Web (W3C Digital Credentials API: org-iso-mdoc, ISO/IEC 18013-7 Annex C, and OpenID4VP 1.0).",
        subcommands: [Request.self, Verify.self, VerifyRequest.self]
    )

    enum PolicyName: String, ExpressibleByArgument, CaseIterable {
        case production, developer
    }

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a request: print the argument for navigator.credentials.get and write the session file.",
            discussion: """
                Builds the DeviceRequest (docType, elements with intent to retain) and the EncryptionInfo \
                ["dcapi", {nonce, recipientPublicKey}] with a fresh 32-byte nonce. Prints the JSON a page passes to \
                navigator.credentials.get; writes to --out what `web verify --session` needs (the encryption info, \
                origin, requested elements, the recipient key's path and fingerprint — not the key itself). A session \
                verifies one response.
                """
        )

        @Option(name: .customLong("doctype"), help: "The docType, e.g. org.iso.23220.photoid.1 or org.iso.18013.5.1.mDL.")
        var docType: String

        @Option(
            name: .customLong("element"),
            help: "NAMESPACE/IDENTIFIER[:retain], e.g. org.iso.23220.1/given_name_unicode or org.iso.23220.1/document_number:retain. Repeatable.")
        var elements: [String] = []

        @Option(name: .long, help: "The website's origin, e.g. https://shop.example (as the browser reports it).")
        var origin: String

        @Option(name: .long, help: "The HPKE recipient key: a P-256 private key as PEM or JWK.")
        var recipientKey: String

        @Option(name: .long, help: "Where to write the session file (created with mode 0600).")
        var out: String

        @Option(name: .long, help: "How long the session stays usable, in seconds (default 600).")
        var lifetime: Int = 600

        @Option(name: .long, help: "Sign the request (ISO/IEC 18013-5 reader authentication) with this P-256 or P-384 key (PEM or JWK).")
        var readerKey: String?

        @Option(name: .long, help: "The reader certificate of --reader-key, then its intermediates (PEM or DER). Repeatable; leaf first.")
        var readerCert: [String] = []

        @Flag(
            name: .long,
            help:
                "One readerAuthAll signature for the whole request (DeviceRequest 1.1, ISO/IEC 18013-5 second edition) instead of readerAuth per DocRequest (1.0)."
        )
        var readerAuthAll = false

        @Option(
            name: .customLong("protocol"),
            help:
                "A protocol to offer: org-iso-mdoc, openid4vp-v1-signed or openid4vp-v1-unsigned. Repeatable. Default: org-iso-mdoc and OpenID4VP (signed with a request-signing key, else unsigned)."
        )
        var protocols: [String] = []

        @Option(
            name: .long,
            help: "Sign the OpenID4VP request object (ES256) with this P-256 key (PEM or JWK). Default: --reader-key when it is P-256.")
        var requestSigningKey: String?

        @Option(name: .long, help: "The certificate of --request-signing-key, then its intermediates (the JWS x5c). Repeatable; leaf first.")
        var requestSigningCert: [String] = []

        @Option(
            name: .long,
            help: "How the signed OpenID4VP request names the verifier: x509_san_dns (default when the leaf has a DNS name) or x509_hash.")
        var openid4vpClientId: String?

        func validate() throws {
            if elements.isEmpty { throw ValidationError("at least one --element NAMESPACE/IDENTIFIER[:retain] is required") }
            if lifetime <= 0 { throw ValidationError("--lifetime must be positive") }
            do { _ = try WebOrigin.parse(origin) } catch {
                throw ValidationError("--origin: \(error)")
            }
            if (readerKey == nil) != readerCert.isEmpty {
                throw ValidationError("--reader-key and --reader-cert go together (the key and its certificate, leaf first)")
            }
            if readerAuthAll && readerKey == nil { throw ValidationError("--reader-auth-all needs --reader-key and --reader-cert") }
            if (requestSigningKey == nil) != requestSigningCert.isEmpty {
                throw ValidationError("--request-signing-key and --request-signing-cert go together (the key and its certificate, leaf first)")
            }
            if let openid4vpClientId, !["x509_san_dns", "x509_hash"].contains(openid4vpClientId) {
                throw ValidationError("--openid4vp-client-id must be x509_san_dns or x509_hash")
            }
            if !protocols.isEmpty {
                do { _ = try WebRequestProtocol.parseList(protocols) } catch { throw ValidationError("--protocol: \(error)") }
            }
        }

        func run() async throws {
            let parsed: [WebDocumentRequest.Element]
            do { parsed = try elements.map { try WebDocumentRequest.Element(argument: $0) } } catch {
                throw CLIInputError("--element: \(error)")
            }
            let request = WebDocumentRequest(docType: docType, elements: parsed)
            do { try request.validate() } catch { throw CLIInputError("\(error)") }
            let keyPath = WebSessionFile.absolute(recipientKey)
            let key = try CommandSupport.webRecipientKey(keyPath)
            var nonce = [UInt8](repeating: 0, count: 32)
            var generator = SystemRandomNumberGenerator()
            for index in nonce.indices { nonce[index] = UInt8.random(in: 0...255, using: &generator) }
            let signer = try readerKey.map { try ReaderKeyFiles.signer(key: $0, certificates: readerCert) }
            if let signer {
                // A certificate outside the reader profile is said, not silently used: wallets may refuse it.
                for problem in signer.profileViolations(at: Date()) {
                    CLIOutput.current.err(
                        "warning: the reader certificate \(signer.leaf.subject) breaks the ISO/IEC 18013-5 Annex B reader-authentication profile: \(problem)"
                    )
                }
            }
            let requestSigner = try self.requestSigner(reader: signer)
            let chosen = try protocols.isEmpty ? WebRequestProtocol.defaults(signing: requestSigner != nil) : WebRequestProtocol.parseList(protocols)
            if chosen.contains(.openID4VPSigned) && requestSigner == nil {
                throw CLIInputError(
                    "openid4vp-v1-signed needs a P-256 request-signing key: --request-signing-key and --request-signing-cert (or --reader-key)")
            }
            if chosen.contains(.openID4VPSigned) && chosen.contains(.openID4VPUnsigned) {
                throw CLIInputError("offer one of openid4vp-v1-signed and openid4vp-v1-unsigned, not both (a wallet could answer the unsigned one)")
            }
            let presentation: WebPresentationRequest
            var openID4VP: OpenID4VPRequest?
            do {
                let parsedOrigin = try WebOrigin.parse(origin)
                presentation = try WebPresentationRequest(
                    request: request, origin: parsedOrigin, nonce: nonce, recipientPublicKey: key.publicKey,
                    readerAuth: signer, readerAuthAll: readerAuthAll)
                if chosen.contains(where: \.isOpenID4VP) {
                    // A key of the request's own, derived from the web key and a fresh identifier kept in the session file.
                    openID4VP = try OpenID4VPRequest(
                        requests: [request], origin: parsedOrigin, webKey: key, requestKeyID: OpenID4VPRequest.freshNonce(),
                        signer: chosen.contains(.openID4VPSigned) ? requestSigner : nil)
                }
            } catch {
                throw CLIInputError("the request could not be built: \(error)")
            }
            let now = Date()
            var session = WebSessionFile(
                version: 1, origin: presentation.origin, encryptionInfo: presentation.encryptionInfo.base64URL,
                deviceRequest: Base64.encodeURL(presentation.deviceRequest), request: request,
                recipientKey: keyPath, recipientKeyThumbprint: WebRecipientKey.thumbprint(key.publicKey),
                createdAt: RFC3339.format(now), expiresAt: RFC3339.format(now.addingTimeInterval(Double(lifetime))))
            if chosen != [.annexC] {
                session.protocols = chosen
                session.openID4VP = openID4VP?.session
            }
            try session.write(to: out)
            CLIOutput.current.out(
                presentation.navigatorCredentialsGetArgument(offering: chosen, openID4VPRequest: openID4VP?.digitalCredentialsRequest))
        }

        /// The OpenID4VP request signer: --request-signing-key, else the reader key when it is P-256; nil: unsigned.
        func requestSigner(reader: ReaderAuthSigner?) throws -> OpenID4VPRequestSigner? {
            let loaded: ReaderAuthSigner
            if let requestSigningKey {
                loaded = try ReaderKeyFiles.signer(key: requestSigningKey, certificates: requestSigningCert, flag: "--request-signing-key")
            } else if let reader {
                loaded = reader
            } else {
                return nil
            }
            guard case .p256(let key) = loaded.key else {
                if requestSigningKey != nil {
                    throw CLIInputError("--request-signing-key: OpenID4VP requests are signed with ES256, which needs a P-256 key")
                }
                // Unsigned OpenID4VP is a configuration of its own, not a fault: said, not warned about.
                CLIOutput.current.err(
                    "note: the OpenID4VP request is unsigned: ES256 needs a P-256 key and the reader key is not one (give --request-signing-key to sign it)"
                )
                return nil
            }
            do {
                let certificates = try loaded.chain.map { try Certificate(derEncoded: $0) }
                let prefix: OpenID4VPRequestSigner.ClientIDPrefix
                switch openid4vpClientId {
                case "x509_hash": prefix = .x509Hash
                case "x509_san_dns": prefix = .x509SanDNS(nil)
                default: prefix = OpenID4VPRequestSigner.dnsNames(of: loaded.leaf).isEmpty ? .x509Hash : .x509SanDNS(nil)
                }
                return try OpenID4VPRequestSigner(key: key, certificates: certificates, clientIDPrefix: prefix)
            } catch let error as WebRequestError {
                throw CLIInputError("--request-signing-key: \(error)")
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt and verify the response a page received from navigator.credentials.get.",
            discussion: """
                Either --session SESSION_FILE (from `web request`; a session verifies one response, over whichever \
                protocol answered), or --encryption-info B64URL --origin URL --recipient-key FILE for an Annex C request \
                made elsewhere. The response file may be the credential JSON {"protocol": ..., "data": {"response": ...}} \
                of either protocol, the compact JWE of an OpenID4VP response, or for Annex C the base64url text or the \
                binary CBOR ["dcapi", {enc, cipherText}].
                Exit codes: 0 accepted, 1 rejected, 2 usage error or unreadable input, 3 indeterminate.
                """
        )

        @Option(name: .long, help: "The response: credential JSON, base64url text, or binary CBOR.")
        var response: String

        @Option(name: .long, help: "The session file written by `web request`.")
        var session: String?

        @Option(name: .long, help: "The EncryptionInfo as sent to the browser (base64url), or a file holding it.")
        var encryptionInfo: String?

        @Option(name: .long, help: "The origin the request was made from.")
        var origin: String?

        @Option(name: .long, help: "The HPKE recipient key (PEM or JWK). With --session it defaults to the key the session names.")
        var recipientKey: String?

        @OptionGroup var roots: IACARootOptions

        @Option(name: .long, help: "Verification time (RFC 3339). Default: now.")
        var at: String?

        @Option(name: .long, help: "Allowed clock skew for the MSO validity window, in seconds (default 60).")
        var clockSkew: Int = 60

        @Option(name: .long, help: "production (default: ISO 18013-5 strict) or developer (issuer checks advisory; the verdict is marked test-only).")
        var policy: PolicyName = .production

        @Option(name: .long, help: "Output format: text or json.")
        var format: OutputFormat = .text

        @OptionGroup var trustLists: TrustListOptions

        @OptionGroup var receipts: ReceiptOptions

        func validate() throws {
            try roots.requireSome(orVICAL: trustLists.vical)
            if clockSkew < 0 { throw ValidationError("--clock-skew must not be negative") }
            if session != nil {
                if encryptionInfo != nil || origin != nil {
                    throw ValidationError("--session already holds the encryption info and origin; do not pass --encryption-info or --origin")
                }
            } else if encryptionInfo == nil || origin == nil || recipientKey == nil {
                throw ValidationError("give --session SESSION_FILE, or --encryption-info B64URL --origin URL --recipient-key FILE")
            }
        }

        func run() async throws {
            let time = try CommandSupport.verificationTime(at)
            // Before the session is used: a receipt key that cannot be read leaves the session unused.
            let signer = try receipts.signer()
            var store = try await CommandSupport.trustStore(roots.trust, scoped: roots.trustDoctype, fetchTimeout: trustLists.fetchTimeout)
            let prepared = try await trustLists.prepare(store: &store, at: time)
            let submission = try InputFiles.readFile(response)
            let credential = try CommandSupport.webCredential(submission, name: response)

            var mdocPolicy = policy == .developer ? WebIdentityVerifier.developerPolicy : WebIdentityVerifier.productionPolicy
            mdocPolicy.clockSkew = .seconds(clockSkew)
            var verifier = WebIdentityVerifier(trustStore: store, policy: mdocPolicy, revocation: prepared.revocation)
            // A failed device signature names the transcript the wallet signed, when it is a likely mistake.
            verifier.explainDeviceFailures = true

            let result: WebVerificationResult
            // The protocol that answered, for the receipt: the one the session offered for OpenID4VP.
            var answered = WebRequestProtocol.annexC.rawValue
            if let session {
                let file = try WebSessionFile.read(session)
                let key = try CommandSupport.webRecipientKey(recipientKey ?? file.recipientKey)
                guard WebRecipientKey.thumbprint(key.publicKey) == file.recipientKeyThumbprint else {
                    throw CLIInputError("the recipient key is not the one the session was created with")
                }
                let offered = file.protocols ?? [.annexC]
                switch credential {
                case .annexC(let responseBytes):
                    guard offered.contains(.annexC) else {
                        throw CLIInputError(
                            "the response is an org-iso-mdoc response; the session offered \(offered.map(\.rawValue).joined(separator: ", "))")
                    }
                    let nonceOutcome = file.consume(sessionPath: session, at: time)
                    result = await verifier.verify(
                        response: responseBytes, encryptionInfo: file.encryptionInfo, origin: file.origin, recipientKey: key,
                        request: file.request, context: .at(time), nonceOutcome: nonceOutcome,
                        prefix: prepared.vicalChecks, prefixWarnings: prepared.vicalWarnings,
                        offeredAlongside: file.openID4VP.map { [WebTranscriptCandidates.openID4VPTranscript($0)] } ?? [])
                case .openID4VP(_, let jwe):
                    guard let record = file.openID4VP else {
                        throw CLIInputError(
                            "the response is an OpenID4VP response; the session offered \(offered.map(\.rawValue).joined(separator: ", "))")
                    }
                    let nonceOutcome = file.consume(sessionPath: session, at: time)
                    answered = record.protocol.rawValue
                    result = await OpenID4VPVerifier(sharing: verifier).verify(
                        response: Array(jwe.utf8), session: record, recipientKeys: [key], context: .at(time), nonceOutcome: nonceOutcome,
                        prefix: prepared.vicalChecks, prefixWarnings: prepared.vicalWarnings,
                        offeredAlongside: offered.contains(.annexC)
                            ? [WebTranscriptCandidates.annexCTranscript(encryptionInfo: file.encryptionInfo, origin: file.origin)] : [])
                }
            } else if case .openID4VP = credential {
                throw CLIInputError("an OpenID4VP response is verified with --session SESSION_FILE (its nonce, key and credential queries)")
            } else if case .annexC(let responseBytes) = credential, let encryptionInfo, let origin, let recipientKey {
                let key = try CommandSupport.webRecipientKey(recipientKey)
                result = await verifier.verify(
                    response: responseBytes, encryptionInfo: try CommandSupport.encryptionInfoText(encryptionInfo), origin: origin,
                    recipientKey: key, context: .at(time), prefix: prepared.vicalChecks, prefixWarnings: prepared.vicalWarnings)
            } else {
                throw CLIInputError("give --session SESSION_FILE, or --encryption-info B64URL --origin URL --recipient-key FILE")
            }
            // The response file as read; a session file names no request id.
            let receipt = try await receipts.issue(signer: signer) {
                ReceiptContent.web(result, submission: submission, requestID: nil, protocol: answered)
            }
            CommandSupport.print(
                result: MdocVerificationResult(report: result.report, documents: result.documentsRegardlessOfVerdict), format: format,
                receipt: receipt)
            throw CommandExit(code: result.report.verdict.exitCode)
        }
    }
}

/// What `web request` writes for `web verify --session`: the request, never the key itself.
struct WebSessionFile: Codable {
    var version: Int
    var origin: String
    var encryptionInfo: String
    var deviceRequest: String
    var request: WebDocumentRequest
    /// Absolute path of the recipient key file.
    var recipientKey: String
    /// SHA-256 of the recipient public key (hex), to notice a swapped key file.
    var recipientKeyThumbprint: String
    var createdAt: String
    var expiresAt: String
    /// The offered protocols; absent in files of Annex C-only requests (and those written before OpenID4VP).
    var protocols: [WebRequestProtocol]? = nil
    /// What the OpenID4VP response is checked against, when OpenID4VP was offered.
    var openID4VP: OpenID4VPSession? = nil

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CLIInputError("cannot write the session file \(path)")
        }
        // A new session: forget that an earlier one at this path was used.
        try? FileManager.default.removeItem(atPath: Self.usedMarker(path))
    }

    static func read(_ path: String) throws -> WebSessionFile {
        let bytes = try InputFiles.readFile(path)
        do {
            let file = try JSONDecoder().decode(WebSessionFile.self, from: Data(bytes))
            guard file.version == 1 else { throw CLIInputError("\(path): session file version \(file.version) is not supported") }
            return file
        } catch let error as CLIInputError {
            throw error
        } catch {
            throw CLIInputError("\(path) is not a session file written by `web request`")
        }
    }

    static func usedMarker(_ path: String) -> String { path + ".used" }

    /// Uses the session once: the first caller creates `SESSION_FILE.used` (exclusively, so two
    /// concurrent verifications cannot both succeed); later callers find it. This is the CLI's
    /// counterpart of the request sessions' one-time nonce.
    func consume(sessionPath: String, at time: Date) -> CheckOutcome {
        let marker = Self.usedMarker(sessionPath)
        let fd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd < 0 {
            if errno == EEXIST {
                return .failed(.nonceReused, "This session was used already: a response is verified once per request (replay).")
            }
            return .error(.storeUnavailable, "The session could not be marked as used (\(marker)).", retryable: true)
        }
        close(fd)
        if let expires = RFC3339.parse(expiresAt), time > expires {
            return .failed(.nonceExpired, "The session expired at \(expiresAt); create a new request.")
        }
        return .passed("The session was created here, had not expired, and is now used.")
    }
}

extension CommandSupport {
    static func webRecipientKey(_ path: String) throws -> P256.KeyAgreement.PrivateKey {
        let bytes = try InputFiles.readFile(path)
        do { return try WebRecipientKey.load(contents: bytes, name: path) } catch {
            throw CLIInputError("--recipient-key \(path): \(error)")
        }
    }

    /// The credential of a response file's contents (`raw`, read from `path`): the credential JSON of
    /// either protocol, a compact JWE, or for Annex C the base64url text or binary CBOR.
    static func webCredential(_ raw: [UInt8], name path: String) throws -> WebCredential {
        let trimmed = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") || WebCredential.looksLikeCompactJWE(trimmed) {
            do { return try WebCredential.fromSubmission(raw) } catch {
                throw CLIInputError("--response \(path): \(error)")
            }
        }
        return .annexC(InputFiles.cborBytes(fromFileContents: raw).bytes)
    }

    /// The encryption info as given, or read from a file of that name.
    static func encryptionInfoText(_ value: String) throws -> String {
        if FileManager.default.fileExists(atPath: value) {
            return String(decoding: try InputFiles.readFile(value), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return value
    }
}
