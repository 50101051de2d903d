import Foundation
import VerificationCore
import WalletCBOR
import WalletCOSE
import X509

/// A Verified Issuer Certificate Authority List (ISO/IEC 18013-5 Annex C; AAMVA's Digital Trust
/// Service publishes one): a COSE_Sign1 whose payload is
///
/// ```
/// VICAL = { "version": tstr, "vicalProvider": tstr, "date": tdate, ? "vicalIssueID": uint,
///           ? "nextUpdate": tdate, "certificateInfos": [* CertificateInfo], * tstr => any }
/// CertificateInfo = { "certificate": bstr, "serialNumber": biguint, "ski": bstr,
///                     "docType": [+ tstr], ? "certificateProfile": [+ tstr],
///                     ? "issuingAuthority": tstr, ? "issuingCountry": tstr,
///                     ? "stateOrProvinceName": tstr, ... }
/// ```
///
/// Decoding verifies nothing; ``VICALLoader`` checks the signature and the signer's chain.
public struct VICAL: Sendable {
    /// One `CertificateInfo`: an IACA certificate and what it may vouch for.
    public struct Entry: Sendable {
        /// The IACA certificate as received (DER).
        public let certificateDER: [UInt8]
        /// The docTypes this IACA may vouch for.
        public let docTypes: [String]
        /// The `issuingAuthority` text, when present.
        public let issuingAuthority: String?
        /// The `issuingCountry` text, when present.
        public let issuingCountry: String?
        /// The `stateOrProvinceName` text, when present (AAMVA's entries carry it).
        public let stateOrProvinceName: String?
    }

    /// The COSE_Sign1 as received, for verifying its signature over the payload as received.
    public let sign1: COSESign1
    /// The VICAL format `version`.
    public let version: String
    /// The `vicalProvider`: who publishes the list.
    public let provider: String
    /// The `date` the VICAL was issued; a VICAL dated after the verification time is not yet valid.
    public let date: Date
    /// The `vicalIssueID`, when present: the provider's number for this issue.
    public let issueID: UInt64?
    /// The `nextUpdate` date, after which a newer VICAL should be used; nil when absent.
    public let nextUpdate: Date?
    /// The `certificateInfos`, in the order of the list.
    public let entries: [Entry]

    /// Decodes a VICAL from its encoded COSE_Sign1, without verifying it.
    /// Throws ``VICALError`` `malformedVICAL` when the bytes are not a COSE_Sign1 or the payload does not have the Annex C shape.
    public init(bytes: [UInt8]) throws(VICALError) {
        let sign1: COSESign1
        do { sign1 = try COSESign1(cborBytes: bytes) } catch {
            throw VICALError(.malformedVICAL, "The VICAL is not a COSE_Sign1: \(error.message).")
        }
        try self.init(sign1: sign1)
    }

    /// Decodes a VICAL from a COSE_Sign1, without verifying it.
    /// Throws ``VICALError`` `malformedVICAL` when the payload is detached or does not have the Annex C shape.
    public init(sign1: COSESign1) throws(VICALError) {
        self.sign1 = sign1
        guard let payload = sign1.payload else {
            throw VICALError(.malformedVICAL, "The VICAL's COSE_Sign1 has a detached payload.")
        }
        do {
            let map = try CBORDecoder.decode(payload).map("VICAL")
            version = try map.required("version", in: "VICAL").text("version")
            provider = try map.required("vicalProvider", in: "VICAL").text("vicalProvider")
            date = try CBORDateTime(cbor: try map.required("date", in: "VICAL")).date
            if let node = map["vicalIssueID"] { issueID = try node.uint("vicalIssueID") } else { issueID = nil }
            nextUpdate = try map["nextUpdate"].map { (node) throws(CBORError) in try CBORDateTime(cbor: node).date }
            var entries: [Entry] = []
            for item in try map.required("certificateInfos", in: "VICAL").array("certificateInfos") {
                let info = try item.map("CertificateInfo")
                let certificate = Array(try info.required("certificate", in: "CertificateInfo").bytes("certificate"))
                let docTypeNode = try info.required("docType", in: "CertificateInfo")
                let docTypes: [String]
                if let single = docTypeNode.textValue {
                    docTypes = [single]
                } else {
                    docTypes = try docTypeNode.array("docType").map { (node) throws(CBORError) in try node.text("docType") }
                }
                entries.append(
                    Entry(
                        certificateDER: certificate, docTypes: docTypes,
                        issuingAuthority: info["issuingAuthority"]?.textValue, issuingCountry: info["issuingCountry"]?.textValue,
                        stateOrProvinceName: info["stateOrProvinceName"]?.textValue))
            }
            self.entries = entries
        } catch {
            throw VICALError(
                .malformedVICAL,
                "The VICAL payload does not have the ISO/IEC 18013-5 Annex C shape: \(error.message.isEmpty ? error.code.rawValue : error.message).")
        }
    }
}

/// Why a VICAL could not be decoded: a code (``ErrorCode/malformedVICAL``, the reason of the failed
/// `vical.structure` check) and a message for people.
public typealias VICALError = CodedError<VICALErrorDomain>

/// The domain of ``VICALError``: VICALs (the code is also the reason of the failed `vical.structure` check).
public enum VICALErrorDomain: ErrorDomain {
    /// `VICALError`.
    public static let name = "VICALError"
    /// ``ErrorCode/malformedVICAL``.
    public static let defaultCode = ErrorCode.malformedVICAL
}
