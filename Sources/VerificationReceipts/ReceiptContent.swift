import Foundation
import VerificationCore

/// What a receipt states, before it is signed: the report's verdict and checks (ids, statuses and
/// reasons, never messages), a digest of what was submitted, the request it answered, and per
/// document or payment only facts that identify neither the person nor the card. Build it with the
/// flows' constructors (``identity(_:submission:requestID:)``, ``web(_:submission:requestID:protocol:)``,
/// ``mdoc(_:submission:)``, ``applePay(_:submission:keyRing:)``, ``googlePay(_:submission:recipient:)``) so every
/// caller states the same.
public struct ReceiptContent: Sendable {
    /// `identity`, `web`, `mdoc`, `applepay` or `googlepay`.
    public var flow: String
    /// The protocol where one applies (`org-iso-mdoc`, `openid4vp-v1-signed`, `openid4vp-v1-unsigned`, `EC_v1`, `RSA_v1`, `ECv2`).
    public var `protocol`: String?
    /// The report whose verdict, time, policy and checks the receipt states.
    public var report: VerificationReport
    /// SHA-256 of the bytes submitted (the envelope, the credential, the DeviceResponse, the token).
    public var submissionSHA256: [UInt8]
    /// The request the answer was for: its id, and the origin on the web.
    public var request: RequestReference?
    /// One entry per mdoc document.
    public var documents: [Document]
    /// The payment, for Apple Pay and Google Pay.
    public var payment: Payment?
    /// Whether the verification trusted a test root (`--applepay-root`): the receipt then says
    /// `testOnly`, as it does for a report made under a developer policy.
    public var testRoot: Bool = false

    /// A content of these parts.
    public init(
        flow: String, protocol: String? = nil, report: VerificationReport, submissionSHA256: [UInt8], request: RequestReference? = nil,
        documents: [Document] = [], payment: Payment? = nil
    ) {
        self.flow = flow
        self.protocol = `protocol`
        self.report = report
        self.submissionSHA256 = submissionSHA256
        self.request = request
        self.documents = documents
        self.payment = payment
    }

    /// The request an answer was for.
    public struct RequestReference: Sendable, Equatable {
        /// The request id this service gave.
        public var id: String
        /// The web origin (web flow only).
        public var origin: String?

        /// A reference of an id and an optional origin.
        public init(id: String, origin: String? = nil) {
            self.id = id
            self.origin = origin
        }
    }

    /// An element asked for: its name and whether the relying party said it would retain it.
    public struct RequestedElement: Sendable, Equatable {
        /// `namespace/identifier` for mdoc requests, the element name of an in-app identity request.
        public var name: String
        /// The intent to retain (in-app: any intent to store).
        public var intentToRetain: Bool

        /// A requested element.
        public init(name: String, intentToRetain: Bool) {
            self.name = name
            self.intentToRetain = intentToRetain
        }
    }

    /// What a receipt says of one mdoc document: never an element value, except the boolean
    /// answers to age questions that were asked.
    public struct Document: Sendable, Equatable {
        /// The docType as received.
        public var docType: String
        /// The trusted issuing authority (IACA) the chain ended at, when it validated.
        public var issuer: Issuer?
        /// The trust-store root that anchored the chain and the kind of source it came from.
        public var trustAnchor: TrustAnchor?
        /// SHA-256 of the document signer certificate (DER), when it was read.
        public var documentSignerSHA256: [UInt8]?
        /// The MSO's `signed`, `validFrom` and `validUntil`, when it decoded.
        public var signed: Date?
        /// Start of the MSO validity.
        public var validFrom: Date?
        /// End of the MSO validity.
        public var validUntil: Date?
        /// The revocation outcome, when the revocation check ran.
        public var revocation: Revocation?
        /// The elements the request asked for.
        public var requested: [RequestedElement]
        /// The elements the document disclosed: names only (`namespace/identifier`).
        public var disclosed: [String]
        /// The answers to age questions that were asked: the age in years and the answer.
        public var ageOver: [AgeAnswer]

        /// A document entry.
        public init(
            docType: String, issuer: Issuer? = nil, documentSignerSHA256: [UInt8]? = nil, signed: Date? = nil, validFrom: Date? = nil,
            validUntil: Date? = nil, revocation: Revocation? = nil, requested: [RequestedElement] = [], disclosed: [String] = [],
            ageOver: [AgeAnswer] = []
        ) {
            self.docType = docType
            self.issuer = issuer
            self.documentSignerSHA256 = documentSignerSHA256
            self.signed = signed
            self.validFrom = validFrom
            self.validUntil = validUntil
            self.revocation = revocation
            self.requested = requested
            self.disclosed = disclosed
            self.ageOver = ageOver
        }
    }

    /// The issuing authority of a document.
    public struct Issuer: Sendable, Equatable {
        /// The IACA certificate's subject.
        public var subject: String
        /// Its country (the subject's C), when it has one.
        public var country: String?
        /// SHA-256 of the IACA certificate (DER).
        public var certificateSHA256: [UInt8]

        /// An issuer entry.
        public init(subject: String, country: String?, certificateSHA256: [UInt8]) {
            self.subject = subject
            self.country = country
            self.certificateSHA256 = certificateSHA256
        }
    }

    /// The root a document's chain was anchored by: its SHA-256 and the kind of source it came from
    /// (`file`, `url`, `vical`, `memory`) — never the location, which could identify the caller's files.
    public struct TrustAnchor: Sendable, Equatable {
        /// SHA-256 of the root certificate (DER).
        public var sha256: [UInt8]
        /// The kind of source (``RootProvenance/Kind`` raw value).
        public var source: String

        /// A trust anchor entry.
        public init(sha256: [UInt8], source: String) {
            self.sha256 = sha256
            self.source = source
        }
    }

    /// The revocation outcome of a document: the status check's status and reason, the list's uri
    /// and when the list was issued; it was checked at the receipt's `time`.
    public struct Revocation: Sendable, Equatable {
        /// `passed`, `failed`, `skipped`, `error`.
        public var status: String
        /// The reason code.
        public var reason: String
        /// The status list or identifier list uri.
        public var uri: String?
        /// When the list was issued (as it says).
        public var listIssuedAt: String?

        /// A revocation entry.
        public init(status: String, reason: String, uri: String?, listIssuedAt: String?) {
            self.status = status
            self.reason = reason
            self.uri = uri
            self.listIssuedAt = listIssuedAt
        }
    }

    /// The answer to "is the holder at least `years` old?".
    public struct AgeAnswer: Sendable, Equatable {
        /// The age asked about.
        public var years: Int
        /// The answer; nil when the document did not settle it.
        public var value: Bool?

        /// An age answer.
        public init(years: Int, value: Bool?) {
            self.years = years
            self.value = value
        }
    }

    /// What a receipt says of an Apple Pay payment: no card number, cryptogram, expiry or
    /// transaction identifier in clear.
    public struct Payment: Sendable, Equatable {
        /// The merchant identifier of the key the token was encrypted for, when known (Google Pay:
        /// the recipient id, `merchant:<id>`).
        public var merchantID: String?
        /// The token's `publicKeyHash`: which merchant key it was encrypted for.
        public var publicKeyHash: String?
        /// ISO 4217 numeric currency code (decrypted tokens only).
        public var currency: String?
        /// The amount in minor units, as the token states it (decrypted tokens only).
        public var amount: String?
        /// `3DSecure` or `EMV` (decrypted tokens only); Google Pay: the `authMethod`, `PAN_ONLY` or `CRYPTOGRAM_3DS`.
        public var paymentDataType: String?
        /// SHA-256 of the token's `transactionId` (the hex text as received); Google Pay: of the `messageId`.
        public var transactionIDSHA256: [UInt8]?

        /// A payment entry.
        public init(
            merchantID: String? = nil, publicKeyHash: String? = nil, currency: String? = nil, amount: String? = nil, paymentDataType: String? = nil,
            transactionIDSHA256: [UInt8]? = nil
        ) {
            self.merchantID = merchantID
            self.publicKeyHash = publicKeyHash
            self.currency = currency
            self.amount = amount
            self.paymentDataType = paymentDataType
            self.transactionIDSHA256 = transactionIDSHA256
        }
    }
}
