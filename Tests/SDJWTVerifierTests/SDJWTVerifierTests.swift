import Crypto
import Foundation
import MdocVerifier
import SDJWTVerifier
import Testing
import VerificationCore
import WalletEncoding
import WalletJSON
import WalletVerifierTestSupport
import X509

/// SD-JWT VC presentations built by the fixture: accepted as built, and each way to be wrong
/// rejected by its own check with the other checks still reported.
@Suite struct SDJWTVerifierTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    /// The fixture, its verifier (the fixture root trusted for the PID type) and the expectations of its request.
    static func setUp() throws -> (SDJWTFixture, SDJWTVCVerifier, SDJWTExpectations) {
        let fixture = try SDJWTFixture(now: now)
        let store = IACATrustStore(certificates: [fixture.root], docTypes: [SDJWTFixture.vct])
        let expectations = SDJWTExpectations(vcts: [SDJWTFixture.vct], audience: SDJWTFixture.audience, nonce: SDJWTFixture.nonce)
        return (fixture, SDJWTVCVerifier(trustStore: store), expectations)
    }

    static func statuses(_ result: SDJWTVerificationResult) -> [String: String] {
        var map: [String: String] = [:]
        for check in result.report.checks { map[check.id.rawValue] = "\(check.status.rawValue)/\(check.reason.rawValue)" }
        return map
    }

    static let allPassed: [String: String] = [
        "sdjwt.structure": "passed/ok", "sdjwt.issuer.header": "passed/ok", "sdjwt.issuer.signature": "passed/ok",
        "sdjwt.issuer.chain": "passed/ok", "sdjwt.disclosures": "passed/ok", "sdjwt.validity": "passed/ok", "sdjwt.vct": "passed/ok",
        "sdjwt.holder.binding": "passed/ok",
    ]

    /// `allPassed` with the given checks changed.
    static func expected(_ changes: [String: String]) -> [String: String] { allPassed.merging(changes) { $1 } }

    static func verify(_ parts: SDJWTFixture.Parts, _ verifier: SDJWTVCVerifier, _ expectations: SDJWTExpectations) async throws
        -> SDJWTVerificationResult
    {
        await verifier.verify(try SDJWTFixture.presentation(parts), expectations: expectations, context: .init(time: now, clockSkew: .seconds(60)))
    }

    @Test func aPresentationAsBuiltIsAcceptedWithItsClaims() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        let result = try await Self.verify(try fixture.parts(now: Self.now), verifier, expectations)
        #expect(result.report.verdict == .accepted, "\(result.report.checks.map { "\($0.id) \($0.status) \($0.message)" })")
        #expect(Self.statuses(result) == Self.allPassed)
        let claims = try #require(result.claims)
        #expect(claims["given_name"] == .string("Erika"))
        #expect(claims["family_name"] == .string("Mustermann"))
        #expect(claims["address"]?.object?["locality"] == .string("Berlin"))
        #expect(claims["address"]?.object?["country"] == .string("DE"))
        #expect(claims["age_equal_or_over"]?.object?["18"] == .bool(true))
        #expect(claims["nationalities"] == .array([.string("DE")]))
        #expect(claims["_sd"] == nil && claims["_sd_alg"] == nil && claims["address"]?.object?["_sd"] == nil)
        #expect(result.vct == SDJWTFixture.vct)
        // Messages carry no claim value.
        for check in result.report.checks { #expect(!check.message.contains("Erika") && !check.message.contains("Berlin"), "\(check.message)") }
    }

    /// With the request's claims: a disclosed claim off every path fails its own check, and an
    /// accepted presentation returns only the claims asked for.
    @Test func onlyRequestedClaimsAreDisclosedAndReturned() async throws {
        let (fixture, verifier, base) = try Self.setUp()
        var expectations = base
        let asked = [
            SDJWTClaimPath(names: ["given_name"]), SDJWTClaimPath(names: ["address", "locality"]),
            SDJWTClaimPath(names: ["age_equal_or_over", "18"]),
            SDJWTClaimPath([.name("nationalities"), .all]),
        ]
        expectations.requestedClaims = asked
        let extra = try await Self.verify(try fixture.parts(now: Self.now), verifier, expectations)
        #expect(Self.statuses(extra) == Self.expected(["sdjwt.request.claims": "failed/unrequestedClaim"]))
        #expect(extra.report.checks.first { $0.id == .sdjwtRequestClaims }?.message.contains("family_name") == true)

        var parts = try fixture.parts(now: Self.now)
        parts.disclosures.remove(at: 1)  // family_name withheld
        let result = try await Self.verify(parts, verifier, expectations)
        #expect(Self.statuses(result) == Self.expected(["sdjwt.request.claims": "passed/ok"]))
        let claims = try #require(result.claims)
        #expect(claims.members.map(\.name).sorted() == ["address", "age_equal_or_over", "given_name", "nationalities"])
        #expect(claims["address"]?.object?.members.map(\.name) == ["locality"])
        #expect(result.ageAtLeast == 18)
    }

    /// A chain validated once is reused by the same verifier for the same type only, and certificates
    /// expired by the verification time still fail.
    @Test func aCachedChainServesItsTypeAndNotExpiredCertificates() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        let presentation = try SDJWTFixture.presentation(try fixture.parts(now: Self.now))
        for _ in 0..<2 {
            let result = await verifier.verify(presentation, expectations: expectations, context: .init(time: Self.now, clockSkew: .seconds(60)))
            #expect(result.report.verdict == .accepted)
        }
        let other = try fixture.parts(now: Self.now, vct: "urn:other:type")
        var anyType = expectations
        anyType.vcts = nil
        let otherType = try await Self.verify(other, verifier, anyType)
        #expect(Self.statuses(otherType)["sdjwt.issuer.chain"] == "failed/noTrustAnchor")
        let later = Self.now.addingTimeInterval(301 * 86_400)
        let expired = await verifier.verify(presentation, expectations: expectations, context: .init(time: later, clockSkew: .seconds(60)))
        #expect(Self.statuses(expired)["sdjwt.issuer.chain"] == "failed/certificateExpired")
    }

    @Test func onlyTheDisclosuresGivenAreDisclosed() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        var parts = try fixture.parts(now: Self.now)
        parts.disclosures = [parts.disclosures[4]]  // age_equal_or_over.18 alone
        let result = try await Self.verify(parts, verifier, expectations)
        #expect(result.report.verdict == .accepted)
        let claims = try #require(result.claims)
        #expect(claims["given_name"] == nil && claims["address"] == nil)
        #expect(claims["age_equal_or_over"]?.object?["18"] == .bool(true))
        #expect(claims["nationalities"] == .array([]))
    }

    @Test func aTamperedOrUnreferencedDisclosureFailsTheDisclosuresCheckOnly() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        var tampered = try fixture.parts(now: Self.now)
        tampered.disclosures[0] = SDJWTFixture.disclosure(salt: "2GLC42sKQveCfGfryNRN9w", name: "given_name", valueJSON: #""Mallory""#)
        let changed = try await Self.verify(tampered, verifier, expectations)
        #expect(Self.statuses(changed) == Self.expected(["sdjwt.disclosures": "failed/unreferencedDisclosure"]))
        #expect(changed.report.verdict == .rejected && changed.claims == nil)

        var extra = try fixture.parts(now: Self.now)
        extra.disclosures.append(SDJWTFixture.disclosure(salt: "c2FsdA", name: "admin", valueJSON: "true"))
        #expect(
            Self.statuses(try await Self.verify(extra, verifier, expectations))
                == Self.expected(["sdjwt.disclosures": "failed/unreferencedDisclosure"]))

        var twice = try fixture.parts(now: Self.now)
        twice.disclosures.append(twice.disclosures[0])
        #expect(Self.statuses(try await Self.verify(twice, verifier, expectations)) == Self.expected(["sdjwt.disclosures": "failed/duplicateDigest"]))
    }

    @Test func aDuplicatedDigestAReservedNameAndAClaimTwiceAreRefused() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        let base = try fixture.parts(now: Self.now)
        let given = SDJWTFixture.digest(base.disclosures[0])
        var duplicated = base
        duplicated.payloadJSON = base.payloadJSON.replacingOccurrences(of: #"{"_sd": ["\#(given)""#, with: #"{"_sd": ["\#(given)", "\#(given)""#)
        #expect(duplicated.payloadJSON != base.payloadJSON)
        #expect(
            Self.statuses(try await Self.verify(duplicated, verifier, expectations)) == Self.expected(["sdjwt.disclosures": "failed/duplicateDigest"])
        )

        var reserved = base
        let sd = SDJWTFixture.disclosure(salt: "cmVzZXJ2ZWQ", name: "_sd", valueJSON: #"["x"]"#)
        reserved.disclosures.append(sd)
        reserved.payloadJSON = base.payloadJSON.replacingOccurrences(
            of: #"{"_sd": ["\#(given)""#, with: #"{"_sd": ["\#(SDJWTFixture.digest(sd))", "\#(given)""#)
        #expect(
            Self.statuses(try await Self.verify(reserved, verifier, expectations)) == Self.expected(["sdjwt.disclosures": "failed/reservedClaimName"])
        )

        var twice = base
        twice.payloadJSON = base.payloadJSON.replacingOccurrences(of: #""iss":"#, with: #""given_name": "Plain", "iss":"#)
        #expect(Self.statuses(try await Self.verify(twice, verifier, expectations)) == Self.expected(["sdjwt.disclosures": "failed/duplicateClaim"]))
    }

    @Test(arguments: [#"{"alg": "none", "typ": "dc+sd-jwt"}"#, #"{"alg": "HS256", "typ": "dc+sd-jwt"}"#])
    func noneAndMACAlgorithmsAreRefused(header: String) async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        var parts = try fixture.parts(now: Self.now)
        parts.headerJSON = header
        let result = try await Self.verify(parts, verifier, expectations)
        #expect(result.report.verdict == .rejected)
        let statuses = Self.statuses(result)
        #expect(statuses["sdjwt.structure"] == "passed/ok")
        #expect(statuses["sdjwt.issuer.header"] == "failed/algorithmNotAllowed")
        // What the signature vouches for is not looked at: reported, skipped.
        for id in ["sdjwt.issuer.signature", "sdjwt.issuer.chain", "sdjwt.disclosures", "sdjwt.validity", "sdjwt.vct", "sdjwt.holder.binding"] {
            #expect(statuses[id] == "skipped/prerequisiteFailed", "\(id)")
        }
    }

    @Test func aSignerOfAnotherRootAndAnIssuerItDoesNotNameFailTheChain() async throws {
        let (fixture, _, expectations) = try Self.setUp()
        let other = try SDJWTFixture(now: Self.now)
        let elsewhere = SDJWTVCVerifier(trustStore: IACATrustStore(certificates: [other.root], docTypes: [SDJWTFixture.vct]))
        #expect(
            Self.statuses(try await Self.verify(try fixture.parts(now: Self.now), elsewhere, expectations))
                == Self.expected(["sdjwt.issuer.chain": "failed/untrustedIssuer"]))
        // A root trusted for another type only.
        let scoped = SDJWTVCVerifier(trustStore: IACATrustStore(certificates: [fixture.root], docTypes: ["urn:other:type"]))
        #expect(
            Self.statuses(try await Self.verify(try fixture.parts(now: Self.now), scoped, expectations))
                == Self.expected(["sdjwt.issuer.chain": "failed/noTrustAnchor"]))
        var renamed = try fixture.parts(now: Self.now)
        renamed.payloadJSON = renamed.payloadJSON.replacingOccurrences(of: SDJWTFixture.issuer, with: "https://impostor.example")
        let (_, verifier, _) = try Self.setUp()
        let trusted = SDJWTVCVerifier(trustStore: IACATrustStore(certificates: [fixture.root], docTypes: [SDJWTFixture.vct]))
        _ = verifier
        #expect(
            Self.statuses(try await Self.verify(renamed, trusted, expectations)) == Self.expected(["sdjwt.issuer.chain": "failed/issuerNameMismatch"])
        )
    }

    @Test func aKeyBindingForAnotherAudienceNonceOrPresentationFails() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        var audience = try fixture.parts(now: Self.now)
        audience.audience = "origin:https://elsewhere.example"
        #expect(
            Self.statuses(try await Self.verify(audience, verifier, expectations))
                == Self.expected(["sdjwt.holder.binding": "failed/audienceMismatch"]))
        var nonce = try fixture.parts(now: Self.now)
        nonce.nonce = "another-request"
        #expect(
            Self.statuses(try await Self.verify(nonce, verifier, expectations)) == Self.expected(["sdjwt.holder.binding": "failed/nonceMismatch"]))
        var other = try fixture.parts(now: Self.now)
        other.sdHash = SDJWTFixture.digest("another presentation~")
        #expect(
            Self.statuses(try await Self.verify(other, verifier, expectations)) == Self.expected(["sdjwt.holder.binding": "failed/sdHashMismatch"]))
        var stranger = try fixture.parts(now: Self.now)
        stranger.holderKey = P256.Signing.PrivateKey()
        #expect(
            Self.statuses(try await Self.verify(stranger, verifier, expectations))
                == Self.expected(["sdjwt.holder.binding": "failed/signatureInvalid"]))
        var old = try fixture.parts(now: Self.now)
        old.kbIssuedAt = Self.now.addingTimeInterval(-3600)
        #expect(
            Self.statuses(try await Self.verify(old, verifier, expectations)) == Self.expected(["sdjwt.holder.binding": "failed/keyBindingStale"]))
        var missing = try fixture.parts(now: Self.now)
        missing.keyBinding = false
        #expect(
            Self.statuses(try await Self.verify(missing, verifier, expectations))
                == Self.expected(["sdjwt.holder.binding": "failed/keyBindingMissing"]))
        // A KB-JWT appended to a presentation other than the one it signed: the sd_hash gives it away.
        let presentation = try SDJWTFixture.presentation(try fixture.parts(now: Self.now))
        let kb = String(presentation[presentation.index(after: presentation.lastIndex(of: "~")!)...])
        var fewer = try fixture.parts(now: Self.now)
        fewer.disclosures.removeFirst()
        fewer.keyBinding = false
        let moved = try SDJWTFixture.presentation(fewer) + kb
        let result = await verifier.verify(moved, expectations: expectations, context: .init(time: Self.now, clockSkew: .seconds(60)))
        #expect(Self.statuses(result) == Self.expected(["sdjwt.holder.binding": "failed/sdHashMismatch"]))
    }

    @Test func anExpiredCredentialAndATypeNotAskedForFail() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        let later = Self.now.addingTimeInterval(366 * 86_400)
        let laterFixture = try fixture.parts(now: Self.now)
        var kbLater = laterFixture
        kbLater.kbIssuedAt = later
        let expired = await verifier.verify(
            try SDJWTFixture.presentation(kbLater), expectations: expectations, context: .init(time: later, clockSkew: .seconds(60)))
        // The certificates have expired too by then: the chain says so, and validity says the credential's exp.
        #expect(Self.statuses(expired)["sdjwt.validity"] == "failed/expired")
        var other = expectations
        other.vcts = ["urn:eudi:mdl:1"]
        #expect(
            Self.statuses(try await Self.verify(try fixture.parts(now: Self.now), verifier, other))
                == Self.expected(["sdjwt.vct": "failed/vctNotRequested"]))
    }

    @Test func theDraftTypeIsAcceptedWithAWarningAndAnotherTypeIsNot() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        let legacy = try await Self.verify(try fixture.parts(now: Self.now, typ: "vc+sd-jwt"), verifier, expectations)
        #expect(legacy.report.verdict == .accepted)
        #expect(legacy.report.warnings.map(\.code) == [.legacyType])
        let jwt = try await Self.verify(try fixture.parts(now: Self.now, typ: "JWT"), verifier, expectations)
        #expect(Self.statuses(jwt)["sdjwt.issuer.header"] == "failed/unexpectedType")
    }

    @Test func malformedPresentationsFailTheStructureCheck() async throws {
        let (fixture, verifier, expectations) = try Self.setUp()
        let good = try SDJWTFixture.presentation(try fixture.parts(now: Self.now))
        for text in [
            "", "no tilde", "a.b~", good.replacingOccurrences(of: "~", with: "~~"), "e30.e30.AA=~", good + "~extra",
            String(repeating: "A", count: SDJWTPresentation.maximumLength + 1) + "~",
        ] {
            let result = await verifier.verify(text, expectations: expectations, context: .init(time: Self.now))
            #expect(Self.statuses(result)["sdjwt.structure"]?.hasPrefix("failed/") == true, "\(text.prefix(60))")
            #expect(result.report.verdict == .rejected)
        }
    }
}
