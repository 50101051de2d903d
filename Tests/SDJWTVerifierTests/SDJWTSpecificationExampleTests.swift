import Foundation
import SDJWTVerifier
import Testing
import WalletJSON
import WalletVerifierTestSupport

/// The IETF SD-JWT specification's own example (TestVectors/sdjwt/ietf-sd-jwt-examples): its digests,
/// its issuer signature with the specification's key, and the claims it rebuilds to.
@Suite struct SDJWTSpecificationExampleTests {
    static let folder = "sdjwt/ietf-sd-jwt-examples/"
    static let issuerJWK: StrictJSON.Object = [
        "kty": .string("EC"), "crv": .string("P-256"), "x": .string("b28d4MwZMjw8-00CG4xfnn9SLMVMM19SlqZpVb_uNtQ"),
        "y": .string("Xv5zWwuoaTgdS6hV43yI6gBwTnjukmFQQnJ_kCxzqk8"),
    ]

    static func text(_ name: String) throws -> String {
        try TestVectors.text(folder + name).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func everyDigestMatches() throws {
        let lines = try Self.text("disclosure-digests.txt").split(separator: "\n")
        #expect(lines.count == 12)
        for line in lines {
            let parts = line.split(separator: " ")
            #expect(SDJWTHashAlgorithm.sha256.digest(Array(parts[0].utf8)) == String(parts[1]))
        }
    }

    @Test func theIssuanceVerifiesAndRebuilds() throws {
        let presentation = try SDJWTPresentation(try Self.text("example1-issuance.txt"))
        #expect(presentation.disclosures.count == 10)
        #expect(presentation.keyBindingJWT == nil)
        #expect(try SDJWTSignatureKey(jwk: Self.issuerJWK).verify(presentation.issuerJWT))
        let claims = try SDJWTDisclosureProcessor(payload: presentation.issuerJWT.payload, disclosures: presentation.disclosures).claims
        #expect(claims["given_name"] == .string("John"))
        #expect(claims["family_name"] == .string("Doe"))
        #expect(claims["email"] == .string("johndoe@example.com"))
        #expect(claims["phone_number"] == .string("+1-202-555-0101"))
        #expect(claims["phone_number_verified"] == .bool(true))
        #expect(claims["birthdate"] == .string("1940-01-01"))
        #expect(claims["updated_at"] == .number("1570000000"))
        #expect(claims["nationalities"] == .array([.string("US"), .string("DE")]))
        let address = try #require(claims["address"]?.object)
        #expect(address["street_address"] == .string("123 Main St") && address["locality"] == .string("Anytown"))
        #expect(address["region"] == .string("Anystate") && address["country"] == .string("US"))
        #expect(claims["sub"] == .string("user_42") && claims["iss"] == .string("https://example.com/issuer"))
        #expect(claims["_sd"] == nil && claims["_sd_alg"] == nil)
        #expect(claims.count == 14)  // 8 disclosed, 6 plain (iss, iat, exp, sub, nationalities, cnf)
    }

    @Test func thePresentationRebuildsAndItsKeyBindingVerifies() throws {
        let presentation = try SDJWTPresentation(try Self.text("example1-presentation.txt"))
        #expect(presentation.disclosures.count == 4)
        let claims = try SDJWTDisclosureProcessor(payload: presentation.issuerJWT.payload, disclosures: presentation.disclosures).claims
        #expect(claims["given_name"] == .string("John") && claims["family_name"] == .string("Doe"))
        #expect(claims["nationalities"] == .array([.string("US")]))
        #expect(claims["email"] == nil && claims["birthdate"] == nil)
        let kb = try #require(presentation.keyBindingJWT)
        let holder = try #require(presentation.issuerJWT.payload["cnf"]?.object?["jwk"]?.object)
        #expect(try SDJWTSignatureKey(jwk: holder).verify(kb))
        #expect(kb.payload["nonce"] == .string("1234567890"))
        #expect(kb.payload["aud"] == .string("https://example.com/verifier"))
        // A draft before sd_hash: the verifier of today's specification refuses it for that.
        #expect(kb.payload["sd_hash"] == nil)
        // One changed character of a disclosure: its digest is referenced no more.
        var text = try Self.text("example1-presentation.txt")
        text = text.replacingOccurrences(
            of: "WyJlbHVWNU9nM2dTTklJOEVZbnN4QV9BIiwgImZhbWlseV9uYW1lIiwgIkRvZSJd",
            with: "WyJlbHVWNU9nM2dTTklJOEVZbnN4QV9BIiwgImZhbWlseV9uYW1lIiwgIkRvZiJd")
        let tampered = try SDJWTPresentation(text)
        #expect(throws: SDJWTError.self) {
            _ = try SDJWTDisclosureProcessor(payload: tampered.issuerJWT.payload, disclosures: tampered.disclosures)
        }
    }
}
