import ApplePayVerifier
import Crypto
import Foundation
import GooglePayVerifier
import Mdoc
import MdocVerifier
import SwiftASN1
import VerificationCore
import WalletEncoding
import WalletIdentity
import WebIdentity
import X509

extension ReceiptContent {
    /// An in-app identity verification (`/v1/identity/verify`, `identity verify`): `submission` is
    /// the encrypted envelope as received; the request is named by its id and its descriptor's element names.
    public static func identity(_ result: IdentityVerificationResult, submission: [UInt8], requestID: String?) -> ReceiptContent {
        let requested = (result.request?.elements ?? []).map { element in
            RequestedElement(
                name: element.atLeast.map { "\(element.element.rawValue)(atLeast: \($0))" } ?? element.element.rawValue,
                intentToRetain: element.intentToStore != .willNotStore)
        }
        let age = result.claimsRegardlessOfVerdict?.ageAtLeast.map { [AgeAnswer(years: $0.atLeast, value: $0.value)] } ?? []
        let documents = result.documentsRegardlessOfVerdict.map { document in
            Self.document(document, report: result.report, requested: requested, ageOver: age)
        }
        return ReceiptContent(
            flow: "identity", report: result.report, submissionSHA256: Self.sha256(submission),
            request: requestID.map { RequestReference(id: $0) }, documents: documents)
    }

    /// A web verification (`/v1/web/verify`, `web verify`): `submission` is the credential or
    /// response as received, `protocol` the one that answered.
    public static func web(_ result: WebVerificationResult, submission: [UInt8], requestID: String?, protocol: String) -> ReceiptContent {
        let documents = result.documentsRegardlessOfVerdict.map { document in
            let request = result.requests.first { $0.docType == document.docType }
            let requested = (request?.elements ?? []).map {
                RequestedElement(name: "\($0.nameSpace)/\($0.identifier)", intentToRetain: $0.intentToRetain)
            }
            let ages = (request?.elements ?? []).compactMap { element -> AgeAnswer? in
                guard let years = Self.ageOverYears(element.identifier) else { return nil }
                return AgeAnswer(years: years, value: document.element(element.nameSpace, element.identifier)?.boolValue)
            }
            return Self.document(document, report: result.report, requested: requested, ageOver: ages)
        }
        return ReceiptContent(
            flow: "web", protocol: `protocol`, report: result.report, submissionSHA256: Self.sha256(submission),
            request: requestID.map { RequestReference(id: $0, origin: result.origin) }, documents: documents)
    }

    /// A DeviceResponse verified with a transcript the caller gave (`/v1/mdoc/verify`, `mdoc verify`):
    /// `submission` is the DeviceResponse. The request is the reader's, unseen here: the age answers
    /// are the `age_over_NN` elements the document disclosed.
    public static func mdoc(_ result: MdocVerificationResult, submission: [UInt8]) -> ReceiptContent {
        let documents = result.documentsRegardlessOfVerdict.map { document in
            let ages = document.issuerSigned.flatMap { nameSpace in
                nameSpace.elements.compactMap { element -> AgeAnswer? in
                    guard let years = Self.ageOverYears(element.identifier) else { return nil }
                    return AgeAnswer(years: years, value: element.value.boolValue)
                }
            }
            return Self.document(document, report: result.report, requested: [], ageOver: ages)
        }
        return ReceiptContent(flow: "mdoc", report: result.report, submissionSHA256: Self.sha256(submission), documents: documents)
    }

    /// An Apple Pay token (`/v1/applepay/decrypt`, `applepay decrypt`): `submission` is the token
    /// as received; `keyRing` names the merchant of the key the token was encrypted for.
    /// `testRoot` says the token was verified against a test root (`--applepay-root`) rather than
    /// Apple's: the receipt then says `testOnly`.
    public static func applePay(_ result: ApplePayResult, submission: [UInt8], keyRing: MerchantKeyRing?, testRoot: Bool = false) -> ReceiptContent {
        var payment = Payment()
        if let summary = result.summary {
            payment.publicKeyHash = summary.publicKeyHash
            payment.merchantID = keyRing?.key(forPublicKeyHash: summary.publicKeyHash)?.merchantIdentifier
            payment.transactionIDSHA256 = Self.sha256(Array(summary.transactionId.utf8))
        }
        if let data = result.payment {
            payment.currency = data.currencyCode
            payment.amount = "\(data.transactionAmount)"
            payment.paymentDataType = data.paymentDataType
        }
        var content = ReceiptContent(
            flow: "applepay", protocol: result.summary?.version.rawValue, report: result.report, submissionSHA256: Self.sha256(submission),
            payment: payment)
        content.testRoot = testRoot
        return content
    }

    /// A Google Pay token (`/v1/googlepay/decrypt`): `submission` is the token as received;
    /// `recipient` the merchant (or gateway) it had to be signed for. As for Apple Pay, nothing of
    /// the card: no account number, expiry or cryptogram; the `messageId` only as a hash.
    public static func googlePay(_ result: GooglePayResult, submission: [UInt8], recipient: GooglePayRecipient) -> ReceiptContent {
        var payment = Payment(merchantID: recipient.recipientId)
        if let summary = result.summary {
            // Which merchant key decrypted it: SHA-256 of its SubjectPublicKeyInfo, as Apple's publicKeyHash.
            if let text = summary.merchantPublicKey, let point = Data(base64Encoded: text),
                let key = try? P256.KeyAgreement.PublicKey(x963Representation: point)
            {
                payment.publicKeyHash = Data(Self.sha256(Array(key.derRepresentation))).base64EncodedString()
            }
            payment.transactionIDSHA256 = summary.messageId.map { Self.sha256(Array($0.utf8)) }
            payment.paymentDataType = summary.authMethod?.rawValue
        }
        return ReceiptContent(
            flow: "googlepay", protocol: result.summary?.protocolVersion, report: result.report, submissionSHA256: Self.sha256(submission),
            payment: payment)
    }

    /// A document's entry: issuer and signer certificates (hashes), MSO times, revocation, names.
    static func document(_ document: VerifiedDocument, report: VerificationReport, requested: [RequestedElement], ageOver: [AgeAnswer])
        -> Document
    {
        var entry = Document(
            docType: document.docType, signed: document.signed, validFrom: document.validFrom, validUntil: document.validUntil,
            requested: requested, ageOver: ageOver)
        let chain = document.validatedChain
        if let root = chain.last, let rootDER = Self.der(root) {
            let country = root.subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.countryName }?.value.description
            entry.issuer = Issuer(subject: root.subject.description, country: country, certificateSHA256: Self.sha256(rootDER))
        }
        if let signer = chain.first, let signerDER = Self.der(signer) { entry.documentSignerSHA256 = Self.sha256(signerDER) }
        let scope = "document[\(document.index)]"
        if let chainCheck = report.checks.first(where: {
            $0.id == .mdocIssuerChain && $0.status == .passed && ($0.scope == scope || $0.scope?.hasSuffix("." + scope) == true)
        }), let hex = chainCheck.details["rootSHA256"], let sha256 = Hex.decode(hex), let source = chainCheck.details["trustSource"] {
            entry.trustAnchor = TrustAnchor(sha256: sha256, source: source)
        }
        if let status = report.checks.first(where: {
            $0.id == .mdocRevocationStatus && ($0.scope == scope || $0.scope?.hasSuffix("." + scope) == true)
        }) {
            entry.revocation = Revocation(
                status: status.status.rawValue, reason: status.reason.rawValue, uri: status.details["uri"], listIssuedAt: status.details["issuedAt"])
        }
        entry.disclosed =
            document.issuerSigned.flatMap { nameSpace in nameSpace.elements.map { "\(nameSpace.name)/\($0.identifier)" } }
            + document.deviceSigned.flatMap { nameSpace in nameSpace.elements.map { "\(nameSpace.name)/\($0.identifier)" } }
        return entry
    }

    /// `NN` of an `age_over_NN` identifier.
    static func ageOverYears(_ identifier: String) -> Int? {
        guard identifier.hasPrefix("age_over_"), identifier.count == 11, let years = Int(identifier.dropFirst(9)) else { return nil }
        return years
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    static func der(_ certificate: Certificate) -> [UInt8]? {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate)) != nil else { return nil }
        return serializer.serializedBytes
    }
}
