import Crypto
import Foundation
import Mdoc
import MdocVerifier
import WalletCBOR
import WalletCOSE
import X509

/// Builds passport Digital ID responses (ISO/IEC 23220-2 photo ID, docType
/// `org.iso.23220.photoid.1`) signed by an ``MdocPKI``, with an MSO `status` entry pointing at a
/// revocation list. Every value is made up.
public struct PhotoIDFixture: Sendable {
    /// The ISO/IEC 23220 photo ID document type.
    public static let docType = "org.iso.23220.photoid.1"
    /// The ISO/IEC 23220-2 namespace of the photo ID elements.
    public static let nameSpace = "org.iso.23220.1"

    /// Made-up photo ID elements the fixture discloses unless told otherwise: names, birth date, portrait, document dates, age and nationality.
    public static var defaultElements: [MdocFixture.Element] {
        let ns = nameSpace
        return [
            .init(ns, "family_name_unicode", .text("Søndergård")),
            .init(ns, "given_name_unicode", .text("Åsa")),
            .init(ns, "family_name_latin1", .text("Søndergård")),
            .init(ns, "given_name_latin1", .text("Åsa")),
            .init(ns, "birth_date", try! .map(["birth_date": .tagged(1004, .text("1990-07-04"))])),
            .init(ns, "portrait", .bytes([0xff, 0xd8, 0xff, 0xe0, 9, 8, 7, 6])),
            .init(ns, "issue_date", .tagged(1004, .text("2021-03-01"))),
            .init(ns, "expiry_date", .tagged(1004, .text("2031-02-28"))),
            .init(ns, "issuing_authority_unicode", .text("Test Passport Authority")),
            .init(ns, "issuing_authority_latin1", .text("Test Passport Authority")),
            .init(ns, "issuing_country", .text("US")),
            .init(ns, "age_in_years", .int(33)),
            .init(ns, "age_over_18", .bool(true)),
            .init(ns, "age_over_21", .bool(true)),
            .init(ns, "age_birth_year", .int(1990)),
            .init(ns, "portrait_capture_date", .tagged(0, .text("2023-10-01T12:00:00Z"))),
            .init(ns, "sex", .int(2)),
            .init(ns, "nationality", .text("US")),
            .init(ns, "document_number", .text("X12345678")),
        ]
    }

    /// The docType of the Document and of the MSO.
    public var docType = PhotoIDFixture.docType
    /// The issuer-signed elements to disclose, in order.
    public var elements = PhotoIDFixture.defaultElements
    /// The MSO `status` entry (see ``RevocationListFixture/identifierListStatus(id:uri:certificate:)``).
    public var status: CBORNode?
    /// The MSO `validityInfo.signed` time.
    public var signed = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z
    /// The MSO `validityInfo.validFrom` time.
    public var validFrom = Date(timeIntervalSince1970: 1_700_000_000)
    /// The MSO `validityInfo.validUntil` time: 35 days after signing by default.
    public var validUntil = Date(timeIntervalSince1970: 1_700_000_000 + 35 * 86_400)

    /// A fixture with the default elements and the given MSO `status` entry (nil leaves it out).
    public init(status: CBORNode? = nil) {
        self.status = status
    }

    /// The DeviceResponse bytes, issuer-signed by the ``MdocPKI``'s document signer.
    public func deviceResponse(pki: MdocPKI, deviceKey: P256.Signing.PrivateKey, transcript: SessionTranscript) throws -> [UInt8] {
        Array(try deviceResponseNode(dsKey: pki.dsKey, dsDER: pki.dsDER, deviceKey: deviceKey, transcript: transcript).encodedBytes)
    }

    /// The DeviceResponse bytes, issuer-signed by the ``PassportPKI``'s document signer.
    public func deviceResponse(pki: PassportPKI, deviceKey: P256.Signing.PrivateKey, transcript: SessionTranscript) throws -> [UInt8] {
        Array(try deviceResponseNode(dsKey: pki.dsKey, dsDER: pki.dsDER, deviceKey: deviceKey, transcript: transcript).encodedBytes)
    }

    /// The DeviceResponse as a CBOR node: one Document, issuer-signed with `dsKey` (`dsDER` in x5chain), device-signed for `transcript`.
    /// Uses SHA-256 digests and an empty DeviceNameSpaces; element `random` values are fresh on each call.
    public func deviceResponseNode(dsKey: P256.Signing.PrivateKey, dsDER: [UInt8], deviceKey: P256.Signing.PrivateKey, transcript: SessionTranscript)
        throws -> CBORNode
    {
        var byNameSpace: [(String, [CBORNode])] = []
        var digests: [String: [(UInt64, [UInt8])]] = [:]
        for (position, element) in elements.enumerated() {
            let digestID = UInt64(position * 2 + 1)
            let item = try CBORNode.map([
                "digestID": .unsigned(digestID),
                "random": .bytes((0..<16).map { _ in UInt8.random(in: 0...255) }),
                "elementIdentifier": .text(element.identifier),
                "elementValue": element.value,
            ])
            let tagged = CBORNode.embedded(item)
            digests[element.nameSpace, default: []].append((digestID, Array(SHA256.hash(data: Array(tagged.encodedBytes)))))
            if let index = byNameSpace.firstIndex(where: { $0.0 == element.nameSpace }) {
                byNameSpace[index].1.append(tagged)
            } else {
                byNameSpace.append((element.nameSpace, [tagged]))
            }
        }
        var msoEntries: [(CBORNode, CBORNode)] = [
            (.text("version"), .text("1.0")),
            (.text("digestAlgorithm"), .text("SHA-256")),
            (
                .text("valueDigests"),
                try .map(digests.map { space in (.text(space.key), try .map(space.value.map { (.unsigned($0.0), .bytes($0.1)) })) })
            ),
            (.text("deviceKeyInfo"), try .map(["deviceKey": COSESigningKey.p256(deviceKey).publicKey.coseKey()])),
            (.text("docType"), .text(docType)),
            (
                .text("validityInfo"),
                try .map([
                    "signed": CBORDateTime(date: signed).cborNode(),
                    "validFrom": CBORDateTime(date: validFrom).cborNode(),
                    "validUntil": CBORDateTime(date: validUntil).cborNode(),
                ])
            ),
        ]
        if let status { msoEntries.append((.text("status"), status)) }
        let mso = try CBORNode.map(msoEntries)
        let issuerAuth = try COSESign1.sign(
            payload: Array(CBORNode.embedded(mso).encodedBytes), key: .p256(dsKey),
            unprotected: [(.int(33), .bytes(dsDER))]
        ).node
        let issuerSigned = try CBORNode.map([
            "nameSpaces": try .map(byNameSpace.map { (.text($0.0), .array($0.1)) }),
            "issuerAuth": issuerAuth,
        ])
        let deviceNameSpacesBytes = CBORNode.embedded(try .map([(CBORNode, CBORNode)]()))
        let authentication = DeviceAuthentication.bytes(transcript: transcript, docType: docType, deviceNameSpacesBytes: deviceNameSpacesBytes)
        let signature = try COSESign1.sign(payload: authentication, key: .p256(deviceKey), detached: true).node
        let deviceSigned = try CBORNode.map(["nameSpaces": deviceNameSpacesBytes, "deviceAuth": try .map(["deviceSignature": signature])])
        let document = try CBORNode.map(["docType": .text(docType), "issuerSigned": issuerSigned, "deviceSigned": deviceSigned])
        return try .map(["version": .text("1.0"), "documents": .array([document]), "status": .unsigned(0)])
    }
}

/// Encrypts a DeviceResponse as a wallet does for ISO/IEC 18013-7 Annex C: HPKE base mode
/// (P-256, HKDF-SHA256, AES-128-GCM) to the request's recipient key, info = the dcapi session
/// transcript, and wraps it as `["dcapi", {"enc", "cipherText"}]`.
public enum DCAPIResponseFixture {
    /// The EncryptedResponse CBOR for `plaintext` (normally DeviceResponse bytes), sealed to `recipientPublicKey`.
    /// Throws when HPKE setup or sealing fails.
    public static func encrypt(
        _ plaintext: [UInt8], encryptionInfoBase64URL: String, origin: String,
        recipientPublicKey: P256.KeyAgreement.PublicKey
    ) throws -> [UInt8] {
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfoBase64URL, origin: origin)
        let suite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)
        var sender = try HPKE.Sender(recipientKey: recipientPublicKey, ciphersuite: suite, info: Data(transcript.bytes))
        let cipherText = try sender.seal(plaintext, authenticating: Data())
        let data = try CBORNode.map(["enc": .bytes([UInt8](sender.encapsulatedKey)), "cipherText": .bytes([UInt8](cipherText))])
        return Array(CBORNode.array([.text("dcapi"), data]).encodedBytes)
    }
}

extension IACATrustStore {
    /// A store whose roots vouch for every docType and, scoped to `org.iso.23220.photoid.1`, for
    /// passports too (a passport verifies only through a root scoped to its docType): what `--trust
    /// PATH --trust-doctype org.iso.23220.photoid.1=PATH` loads.
    public static func includingPassports(_ certificates: [Certificate]) -> IACATrustStore {
        var store = IACATrustStore(certificates: certificates)
        for certificate in certificates { store.add(certificate, docTypes: [PhotoIDFixture.docType]) }
        return store
    }
}
