import Crypto
import Foundation
import SwiftASN1
import WalletEncoding
import X509

/// SD-JWT VC presentations built in code, for every path of the verifier: an issuer PKI (a root and
/// an issuer certificate naming `https://issuer.example`), a holder key, and a credential of the EU
/// PID's shape whose parts a test can change before they are put together.
public struct SDJWTFixture: Sendable {
    /// The root the issuer certificate chains to.
    public let root: Certificate
    /// The issuer's signing key.
    public let issuerKey: P256.Signing.PrivateKey
    /// The issuer's certificate (the `x5c` leaf): SAN DNS `issuer.example`.
    public let issuerCertificate: Certificate
    /// The holder's key (`cnf.jwk`), which signs the Key Binding JWT.
    public let holderKey: P256.Signing.PrivateKey
    /// The credential's `iss`.
    public static let issuer = "https://issuer.example"
    /// The credential's type.
    public static let vct = "urn:eudi:pid:1"
    /// The audience and nonce of the fixture's Key Binding JWTs.
    public static let audience = "origin:https://shop.example"
    /// See ``audience``.
    public static let nonce = "n-0S6_WzA2Mj"

    /// A fixture valid from a day before `now` for a year.
    public init(now: Date) throws {
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CountryName("EU")
            CommonName("Fixture PID Issuer Root")
        }
        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: now.addingTimeInterval(-86_400),
            notValidAfter: now.addingTimeInterval(365 * 86_400), issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(rootKey.publicKey))
            }, issuerPrivateKey: .init(rootKey))
        issuerKey = P256.Signing.PrivateKey()
        issuerCertificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(issuerKey.publicKey), notValidBefore: now.addingTimeInterval(-86_400),
            notValidAfter: now.addingTimeInterval(300 * 86_400), issuer: rootName,
            subject: try DistinguishedName {
                CountryName("EU")
                CommonName("Fixture PID Issuer")
            }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                SubjectAlternativeNames([.dnsName("issuer.example")])
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: .init(rootKey.publicKey)).keyIdentifier)
            }, issuerPrivateKey: .init(rootKey))
        holderKey = P256.Signing.PrivateKey()
    }

    /// The root as PEM.
    public func rootPEM() throws -> String { try root.serializeAsPEM().pemString + "\n" }

    /// base64url of `["salt", "name", value]` (`name` nil: `["salt", value]`); `valueJSON` is JSON text.
    public static func disclosure(salt: String, name: String?, valueJSON: String) -> String {
        let text = name.map { #"["\#(salt)", "\#($0)", \#(valueJSON)]"# } ?? #"["\#(salt)", \#(valueJSON)]"#
        return Base64.encodeURL(Array(text.utf8))
    }

    /// The sha-256 digest of a disclosure's text.
    public static func digest(_ disclosure: String) -> String { Base64.encodeURL(SHA256.hash(data: Array(disclosure.utf8))) }

    /// A compact JWS of `headerJSON` and `payloadJSON` signed by `key` (ES256), as a wallet or issuer sends it.
    public static func sign(headerJSON: String, payloadJSON: String, key: P256.Signing.PrivateKey) throws -> String {
        let input = Base64.encodeURL(Array(headerJSON.utf8)) + "." + Base64.encodeURL(Array(payloadJSON.utf8))
        let signature = try key.signature(for: Array(input.utf8))
        return input + "." + Base64.encodeURL(signature.rawRepresentation)
    }

    /// The holder key as a public JWK (JSON text).
    public var holderJWK: String {
        let point = holderKey.publicKey.x963Representation
        return
            #"{"kty": "EC", "crv": "P-256", "x": "\#(Base64.encodeURL(point.dropFirst().prefix(32)))", "y": "\#(Base64.encodeURL(point.suffix(32)))"}"#
    }

    /// The parts of a credential, to change before ``presentation(_:)``: the disclosures, the issuer
    /// header and payload as JSON text, and what the Key Binding JWT says.
    public struct Parts: Sendable {
        /// given_name, family_name, address.locality (inside a disclosed address), age_equal_or_over.18, nationalities[0].
        public var disclosures: [String]
        /// The issuer-signed JWT's header (JSON text).
        public var headerJSON: String
        /// The issuer-signed JWT's payload (JSON text).
        public var payloadJSON: String
        /// The key signing the issuer JWT.
        public var signingKey: P256.Signing.PrivateKey
        /// Whether a Key Binding JWT is appended.
        public var keyBinding = true
        /// The KB-JWT's `aud`, `nonce` and `iat`; `sdHash` nil: the right one.
        public var audience = SDJWTFixture.audience
        /// See ``audience``.
        public var nonce = SDJWTFixture.nonce
        /// See ``audience``.
        public var kbIssuedAt: Date
        /// See ``audience``.
        public var sdHash: String?
        /// The key signing the KB-JWT.
        public var holderKey: P256.Signing.PrivateKey
        /// The KB-JWT's header.
        public var kbHeaderJSON = #"{"alg": "ES256", "typ": "kb+jwt"}"#
    }

    /// A PID-like credential valid at `now` (iat an hour before, exp in a year), bound to the holder key.
    public func parts(now: Date, vct: String = SDJWTFixture.vct, typ: String = "dc+sd-jwt") throws -> Parts {
        let given = Self.disclosure(salt: "2GLC42sKQveCfGfryNRN9w", name: "given_name", valueJSON: #""Erika""#)
        let family = Self.disclosure(salt: "eluV5Og3gSNII8EYnsxA_A", name: "family_name", valueJSON: #""Mustermann""#)
        let locality = Self.disclosure(salt: "6Ij7tM-a5iVPGboS5tmvVA", name: "locality", valueJSON: #""Berlin""#)
        let address = Self.disclosure(
            salt: "eI8ZWm9QnKPpNPeNenHdhQ", name: "address",
            valueJSON: #"{"_sd": ["\#(Self.digest(locality))"], "country": "DE"}"#)
        let age = Self.disclosure(salt: "Qg_O64zqAxe412a108iroA", name: "18", valueJSON: "true")
        let nationality = Self.disclosure(salt: "lklxF5jMYlGTPUovMNIvCA", name: nil, valueJSON: #""DE""#)
        let decoy = Base64.encodeURL(SHA256.hash(data: Array("decoy".utf8)))
        let x5c = try [issuerCertificate].map { certificate -> String in
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return Base64.encode(serializer.serializedBytes)
        }
        let header = #"{"alg": "ES256", "typ": "\#(typ)", "x5c": ["\#(x5c.joined(separator: "\", \""))"]}"#
        let iat = Int(now.timeIntervalSince1970) - 3600
        let payload = """
            {"_sd": ["\(Self.digest(given))", "\(Self.digest(family))", "\(Self.digest(address))", "\(decoy)"], \
            "age_equal_or_over": {"_sd": ["\(Self.digest(age))"]}, "nationalities": [{"...": "\(Self.digest(nationality))"}], \
            "iss": "\(Self.issuer)", "vct": "\(vct)", "iat": \(iat), "exp": \(iat + 365 * 86_400), "_sd_alg": "sha-256", \
            "cnf": {"jwk": \(holderJWK)}}
            """
        return Parts(
            disclosures: [given, family, address, locality, age, nationality], headerJSON: header, payloadJSON: payload, signingKey: issuerKey,
            kbIssuedAt: now.addingTimeInterval(-10), holderKey: holderKey)
    }

    /// The presentation of `parts`: `<JWT>~<disclosures>~` and, with key binding, the KB-JWT over it.
    public static func presentation(_ parts: Parts) throws -> String {
        let jwt = try sign(headerJSON: parts.headerJSON, payloadJSON: parts.payloadJSON, key: parts.signingKey)
        let hashed = ([jwt] + parts.disclosures).joined(separator: "~") + "~"
        guard parts.keyBinding else { return hashed }
        let sdHash = parts.sdHash ?? Base64.encodeURL(SHA256.hash(data: Array(hashed.utf8)))
        let payload =
            #"{"aud": "\#(parts.audience)", "nonce": "\#(parts.nonce)", "iat": \#(Int(parts.kbIssuedAt.timeIntervalSince1970)), "sd_hash": "\#(sdHash)"}"#
        return hashed + (try sign(headerJSON: parts.kbHeaderJSON, payloadJSON: payload, key: parts.holderKey))
    }
}
