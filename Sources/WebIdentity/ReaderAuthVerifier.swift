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
        var runner = CheckRunner(policy: VerificationPolicy(name: "reader-auth/iso18013-5@1"), context: context)
        // The checks, one type each in Checks/ (named after their ids).
        var state = ReaderRequestStructureCheck.State(bytes: bytes)
        await runner.run(ReaderRequestStructureCheck(), state: &state)
        guard let request = state.request else {
            // The dependants are reported as skipped, not left out.
            runner.skip(.readerRequestItems, requires: .readerRequestStructure)
            runner.skip(.readerAuthSignature, requires: .readerRequestStructure)
            runner.skip(.readerAuthChain, requires: .readerAuthSignature)
            runner.skip(.readerAuthProfile, requires: .readerAuthSignature)
            return runner.report(flow: "readerAuth")
        }
        for (index, docRequest) in request.docRequests.enumerated() {
            var docRequest = docRequest
            await runner.run(ReaderRequestItemsCheck(index: index), state: &docRequest, scope: "docRequest[\(index)]")
        }

        if !request.readerAuthAll.isEmpty {
            let signed = ReaderAuthentication.allBytes(
                transcript: transcript, itemsRequestBytes: request.docRequests.map(\.itemsRequestBytes),
                deviceRequestInfoBytes: request.deviceRequestInfoBytes)
            for (index, signature) in request.readerAuthAll.enumerated() {
                var state = ReaderSignatureState(signature: signature, signed: signed, structure: "ReaderAuthenticationAll")
                await verify(&state, scope: "readerAuthAll[\(index)]", runner: &runner)
            }
        } else {
            for (index, docRequest) in request.docRequests.enumerated() {
                guard let signature = docRequest.readerAuth else { continue }
                let signed = ReaderAuthentication.bytes(transcript: transcript, itemsRequestBytes: docRequest.itemsRequestBytes)
                var state = ReaderSignatureState(signature: signature, signed: signed, structure: "ReaderAuthentication")
                await verify(&state, scope: "docRequest[\(index)]", runner: &runner)
            }
        }
        return runner.report(flow: "readerAuth")
    }

    /// The three checks of one reader signature, in its scope.
    private func verify(_ state: inout ReaderSignatureState, scope: String, runner: inout CheckRunner) async {
        await runner.run(ReaderAuthSignatureCheck(), state: &state, scope: scope)
        await runner.run(ReaderAuthChainCheck(roots: roots), state: &state, scope: scope)
        await runner.run(ReaderAuthProfileCheck(), state: &state, scope: scope)
    }
}
