import Crypto
import Foundation
import Mdoc
import MdocVerifier
import SwiftASN1
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
@_spi(FixedExpiryValidationTime) import X509

/// A DeviceRequest as received: each DocRequest's ItemsRequestBytes (the tag-24 item) and readerAuth,
/// and the request-wide readerAuthAll and deviceRequestInfo.
public struct ReceivedDeviceRequest: Sendable {
    /// One DocRequest: the items request bytes, what they decode to, and its own reader signature.
    public struct DocRequest: Sendable {
        /// `#6.24(bstr .cbor ItemsRequest)` exactly as received.
        public let itemsRequestBytes: ArraySlice<UInt8>
        /// The ItemsRequest's docType; nil when the embedded ItemsRequest does not decode (see
        /// `itemsRequestProblem`). The signature covers the bytes whatever they hold.
        public let docType: String?
        /// Why the embedded ItemsRequest does not decode, when it does not.
        public let itemsRequestProblem: String?
        /// The DocRequest's own reader signature; nil when absent (the request may use readerAuthAll instead).
        public let readerAuth: COSESign1?
    }

    /// The DeviceRequest `version` field, such as "1.0" or "1.1".
    public let version: String
    /// The DocRequests in request order; 1 to ``maxEntries`` of them.
    public let docRequests: [DocRequest]
    /// The request-wide reader signatures (DeviceRequest 1.1); empty when absent.
    public let readerAuthAll: [COSESign1]
    /// `#6.24(bstr .cbor DeviceRequestInfo)` as received, when present.
    public let deviceRequestInfoBytes: ArraySlice<UInt8>?

    /// At most this many DocRequests and readerAuthAll signatures are read (a request asks for a few
    /// documents; each signature costs a chain validation).
    public static let maxEntries = 16

    /// Reads a DeviceRequest from its CBOR encoding, keeping the signed parts as received.
    /// Throws ``ReaderAuthError`` when it does not decode or holds more than ``maxEntries`` entries; a bad ItemsRequest does not throw.
    public init(cborBytes bytes: [UInt8]) throws(ReaderAuthError) {
        do {
            let map = try CBORDecoder.decode(bytes).map("DeviceRequest")
            version = try map.required("version", in: "DeviceRequest").text("version")
            let requests = try map.required("docRequests", in: "DeviceRequest").array("docRequests")
            guard !requests.isEmpty, requests.count <= Self.maxEntries else {
                throw ReaderAuthError("docRequests holds \(requests.count) entries; 1 to \(Self.maxEntries) are read")
            }
            var parsed: [DocRequest] = []
            for request in requests {
                let entry = try request.map("DocRequest")
                let items = try entry.required("itemsRequest", in: "DocRequest")
                guard case .tagged(24, let inner) = items.value, inner.bytesValue != nil else {
                    throw ReaderAuthError("a DocRequest's itemsRequest is not a tag-24 byte string (#6.24(bstr .cbor ItemsRequest))")
                }
                // The signature is over the tag-24 item as received; what it embeds is read on its own
                // (reader.request.items), so a damaged ItemsRequest still fails the signature.
                var docType: String?
                var problem: String?
                do {
                    let itemsRequest = try EmbeddedCBOR<CBORNode>(cbor: items).value.map("ItemsRequest")
                    docType = try itemsRequest.required("docType", in: "ItemsRequest").text("docType")
                    _ = try itemsRequest.required("nameSpaces", in: "ItemsRequest").map("nameSpaces")
                } catch {
                    problem = error.message.isEmpty ? error.code.rawValue : error.message
                }
                let readerAuth = try entry["readerAuth"].map { node throws(COSEError) in try COSESign1(cbor: node) }
                parsed.append(
                    DocRequest(itemsRequestBytes: items.encodedBytes, docType: docType, itemsRequestProblem: problem, readerAuth: readerAuth))
            }
            docRequests = parsed
            if let all = map["readerAuthAll"] {
                let signatures = try all.array("readerAuthAll")
                guard signatures.count <= Self.maxEntries else {
                    throw ReaderAuthError("readerAuthAll holds \(signatures.count) signatures; at most \(Self.maxEntries) are read")
                }
                readerAuthAll = try signatures.map { node throws(COSEError) in try COSESign1(cbor: node) }
            } else {
                readerAuthAll = []
            }
            if let info = map["deviceRequestInfo"] {
                _ = try EmbeddedCBOR<CBORNode>(cbor: info)
                deviceRequestInfoBytes = info.encodedBytes
            } else {
                deviceRequestInfoBytes = nil
            }
        } catch let error as ReaderAuthError {
            throw error
        } catch let error as CBORError {
            throw ReaderAuthError("the DeviceRequest does not decode: \(error.message.isEmpty ? error.code.rawValue : error.message)")
        } catch let error as COSEError {
            throw ReaderAuthError("a reader signature is not a COSE_Sign1: \(error.message)")
        } catch {
            throw ReaderAuthError("the DeviceRequest does not decode")
        }
    }
}

/// The wallet's side of ISO/IEC 18013-5 §9.1.4: verifies every readerAuth and readerAuthAll of a
/// DeviceRequest over the bytes as received, for a given session transcript, against trusted reader
/// roots, at a given time. For integrators who test their own requests, and for our tests.
public struct ReaderAuthVerifier: Sendable {
    /// Trusted reader roots; a leaf certificate listed here is trusted directly (pinned).
    public let roots: [Certificate]
    /// At most this many x5chain certificates are read (leaf included): path building stays bounded.
    public static let maxChainLength = 4

    /// Creates a verifier trusting the given reader roots (or pinned leaf certificates).
    public init(roots: [Certificate]) {
        self.roots = roots
    }

    /// Verifies every reader signature of the encoded DeviceRequest for `transcript` at `time` and reports the `reader.*` checks.
    /// When readerAuthAll is present only its signatures are checked, otherwise each DocRequest's readerAuth; problems are findings, never thrown.
    public func verify(deviceRequest bytes: [UInt8], transcript: SessionTranscript, context: VerificationContext) async -> VerificationReport {
        let time = context.time
        var runner = CheckRunner(policy: VerificationPolicy(name: "reader-auth/iso18013-5@1"), context: context)
        var request: ReceivedDeviceRequest?
        runner.run(.readerRequestStructure) {
            let decoded: ReceivedDeviceRequest
            do { decoded = try ReceivedDeviceRequest(cborBytes: bytes) } catch {
                return .failed(.malformedInput, "The DeviceRequest could not be read: \(error).")
            }
            let unsigned = decoded.docRequests.enumerated().filter { $0.element.readerAuth == nil }.map(\.offset)
            if decoded.readerAuthAll.isEmpty && !unsigned.isEmpty {
                return .failed(
                    .readerAuthMissing,
                    "DocRequest \(unsigned.map(String.init).joined(separator: ", ")) carries no readerAuth and the request has no readerAuthAll: the reader is not authenticated."
                )
            }
            // readerAuthAll and deviceRequestInfo are DeviceRequest 1.1 (second edition); a 1.0 reader
            // would ignore them, so a 1.0 request carrying them is refused rather than half-read.
            let parts = decoded.version.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "1", let minor = Int(parts[1]), parts[1].allSatisfy(\.isASCII) else {
                return .failed(
                    .unsupportedRequestVersion,
                    "The DeviceRequest version is \"\(decoded.version.prefix(16))\"; versions 1.x are read (1.0, or 1.1 for readerAuthAll).")
            }
            if minor < 1 && (!decoded.readerAuthAll.isEmpty || decoded.deviceRequestInfoBytes != nil) {
                return .failed(
                    .unsupportedRequestVersion,
                    "The DeviceRequest says version \(decoded.version) but carries \(decoded.readerAuthAll.isEmpty ? "deviceRequestInfo" : "readerAuthAll"), which needs version 1.1 (ISO/IEC 18013-5 second edition); a first-edition wallet ignores it. Send version 1.1."
                )
            }
            request = decoded
            let form =
                decoded.readerAuthAll.isEmpty
                ? "readerAuth on each of \(decoded.docRequests.count) DocRequest(s)" : "readerAuthAll (\(decoded.readerAuthAll.count) signature(s))"
            return .passed("DeviceRequest version \(decoded.version) with \(form).")
        }
        guard let request else {
            // The dependants are reported as skipped, not left out.
            runner.run(.readerRequestItems, requires: [.readerRequestStructure]) { .failed(.malformedInput, "The DeviceRequest could not be read.") }
            runner.run(.readerAuthSignature, requires: [.readerRequestStructure]) { .failed(.malformedInput, "The DeviceRequest could not be read.") }
            runner.run(.readerAuthChain, requires: [.readerAuthSignature]) { .failed(.malformedInput, "The DeviceRequest could not be read.") }
            runner.run(.readerAuthProfile, requires: [.readerAuthSignature]) { .failed(.malformedInput, "The DeviceRequest could not be read.") }
            return runner.report(flow: "readerAuth")
        }
        for (index, docRequest) in request.docRequests.enumerated() {
            runner.run(.readerRequestItems, requires: [.readerRequestStructure], scope: "docRequest[\(index)]") {
                if let problem = docRequest.itemsRequestProblem {
                    return .failed(
                        .malformedInput, "The ItemsRequest of DocRequest \(index) does not decode (\(problem)): a wallet cannot tell what is asked.")
                }
                return .passed("The ItemsRequest asks for \(docRequest.docType ?? "?").", details: ["docType": docRequest.docType ?? ""])
            }
        }

        if !request.readerAuthAll.isEmpty {
            let signed = ReaderAuthentication.allBytes(
                transcript: transcript, itemsRequestBytes: request.docRequests.map(\.itemsRequestBytes),
                deviceRequestInfoBytes: request.deviceRequestInfoBytes)
            for (index, signature) in request.readerAuthAll.enumerated() {
                await verify(
                    signature, over: signed, structure: "ReaderAuthenticationAll", scope: "readerAuthAll[\(index)]", at: time, runner: &runner)
            }
        } else {
            for (index, docRequest) in request.docRequests.enumerated() {
                guard let signature = docRequest.readerAuth else { continue }
                let signed = ReaderAuthentication.bytes(transcript: transcript, itemsRequestBytes: docRequest.itemsRequestBytes)
                await verify(signature, over: signed, structure: "ReaderAuthentication", scope: "docRequest[\(index)]", at: time, runner: &runner)
            }
        }
        return runner.report(flow: "readerAuth")
    }

    private func verify(_ signature: COSESign1, over signed: [UInt8], structure: String, scope: String, at time: Date, runner: inout CheckRunner)
        async
    {
        var chain: [Certificate] = []
        runner.run(.readerAuthSignature, requires: [.readerRequestStructure], scope: scope) {
            let ders: [ArraySlice<UInt8>]
            do { ders = try signature.headers.x5chainBytes() } catch let error as COSEError {
                return .failed(.missingCertificateChain, "The reader signature carries no usable x5chain: \(error.message).")
            } catch { return .failed(.missingCertificateChain, "The reader signature carries no usable x5chain.") }
            guard ders.count <= Self.maxChainLength else {
                return .failed(
                    .chainTooLong,
                    "The x5chain holds \(ders.count) certificates; at most \(Self.maxChainLength) are read (a reader certificate and its intermediates)."
                )
            }
            for (position, der) in ders.enumerated() {
                guard let certificate = try? Certificate(derEncoded: Array(der)) else {
                    return .failed(.invalidCertificate, "Certificate \(position) of the x5chain does not parse as X.509.")
                }
                chain.append(certificate)
            }
            let key: COSEPublicKey
            if let k = P256.Signing.PublicKey(chain[0].publicKey) {
                key = .p256(k)
            } else if let k = P384.Signing.PublicKey(chain[0].publicKey) {
                key = .p384(k)
            } else {
                return .failed(.unsupportedReaderKey, "The reader certificate's key is neither P-256 nor P-384.")
            }
            do {
                let algorithm = try signature.algorithm
                guard signature.payload == nil || signature.payload!.elementsEqual(signed) else {
                    return .failed(
                        .readerSignatureInvalid,
                        "The reader signed an attached payload that is not the \(structure) of this request: the transcript (origin or encryption info) or the items request differ."
                    )
                }
                guard try signature.isValidSignature(key: key, detachedPayload: signature.payload == nil ? signed : nil) else {
                    let shape =
                        structure == "ReaderAuthenticationAll"
                        ? " (the four-element [\"ReaderAuthenticationAll\", SessionTranscript, [+ ItemsRequestBytes], DeviceRequestInfoBytes / null])"
                        : ""
                    return .failed(
                        .readerSignatureInvalid,
                        "The reader signature (\(algorithm)) does not verify over \(structure)Bytes\(shape): the items request, the origin or the encryption info differ from what the reader signed."
                    )
                }
                return .passed(
                    "The reader signature (\(algorithm)) by \(chain[0].subject) verifies over \(structure)Bytes as received.",
                    details: ["reader": "\(chain[0].subject)"])
            } catch let error as COSEError {
                return .failed(ReasonCode(error.code.rawValue), "The reader signature cannot be verified: \(error.message).")
            } catch {
                return .failed(.readerSignatureInvalid, "The reader signature cannot be verified.")
            }
        }
        await runner.runAsync(.readerAuthChain, requires: [.readerAuthSignature], scope: scope) {
            guard let leaf = chain.first else { return .failed(.malformedInput, "No certificate.") }
            guard !roots.isEmpty else {
                return .failed(.noTrustAnchor, "No trusted reader root is configured; give the reader's root certificate (--trust).")
            }
            for (position, certificate) in chain.enumerated() where time < certificate.notValidBefore || time > certificate.notValidAfter {
                return .failed(
                    time < certificate.notValidBefore ? "certificateNotYetValid" : "certificateExpired",
                    "Certificate \(position) of the x5chain (\(certificate.subject)) is not valid at \(RFC3339.format(time)) (valid from \(RFC3339.format(certificate.notValidBefore)) to \(RFC3339.format(certificate.notValidAfter)))."
                )
            }
            if roots.contains(leaf) {
                return .passed("The reader certificate \(leaf.subject) is itself trusted (pinned).", details: ["pinned": "true"])
            }
            var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
                RFC5280Policy(fixedExpiryValidationTime: time)
                CriticalExtendedKeyUsagePolicy()
            }
            switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(chain.dropFirst())) {
            case .validCertificate(let path):
                return .passed(
                    "The reader certificate chains to the trusted root \(path.last!.subject).",
                    details: ["root": "\(path.last!.subject)", "chainLength": String(path.count)])
            case .couldNotValidate(let failures):
                let reasons = failures.map { $0.policyFailureReason.description }
                return .failed(
                    .untrustedReader,
                    "The reader certificate \(leaf.subject) does not chain to a trusted reader root"
                        + (reasons.isEmpty ? "." : " (\(reasons.joined(separator: "; "))).")
                        + " Add the reader's root certificate (--trust) if you trust this reader.")
            }
        }
        runner.run(.readerAuthProfile, requires: [.readerAuthSignature], scope: scope) {
            guard let leaf = chain.first else { return .failed(.malformedInput, "No certificate.") }
            let problems = ReaderCertificateProfile.violations(leaf, at: time)
            guard problems.isEmpty else {
                return .failed(
                    .readerProfileViolation,
                    "The reader certificate \(leaf.subject) does not follow the reader-authentication profile of ISO/IEC 18013-5 Annex B: \(problems.joined(separator: "; "))."
                )
            }
            return .passed(
                "The reader certificate follows the ISO/IEC 18013-5 Annex B reader-authentication profile (EKU 1.0.18013.5.1.6, digitalSignature, not a CA)."
            )
        }
    }
}
