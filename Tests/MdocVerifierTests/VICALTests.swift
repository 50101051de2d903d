import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletVerifierTestSupport
import X509

private let aamva = "mdoc/aamva-vical-isomdl/"

@Suite struct AAMVAVICALTests {
    func anchors(_ file: String = "aamva_dts_root_ca.pem") throws -> [Certificate] {
        try IACATrustStore.certificates(in: try TestVectors.data(aamva + file), name: file)
    }

    @Test func theRealVICALIsTrustedOnItsIssueDay() async throws {
        let bytes = try TestVectors.data(aamva + "aamva-vical-2025-11-18.cbor")
        let time = try #require(RFC3339.parse("2025-11-18T19:00:00Z"))
        let result = await VICALLoader(anchors: try anchors()).load(bytes: bytes, at: time)
        #expect(result.trusted, "\(result.checks.filter { $0.status != .passed }.map(\.message))")
        #expect(result.checks.map(\.id) == [.vicalStructure, .vicalSignature, .vicalChain, .vicalValidity])
        #expect(result.checks.allSatisfy { $0.status == .passed && $0.scope == "vical" })
        let vical = try #require(result.vical)
        #expect(vical.provider == "AAMVA")
        #expect(vical.version == "1.0")
        #expect(vical.issueID == 227_602)
        #expect(vical.nextUpdate == RFC3339.parse("2025-11-19T18:38:12Z"))
        #expect(vical.entries.count == 14)
        #expect(result.roots.count == 14)
        #expect(result.roots.allSatisfy { $0.docTypes == ["org.iso.18013.5.1.mDL"] })
        #expect(result.checks.first { $0.id == .vicalSignature }?.details["signer"]?.contains("AAMVA Prod Vical-Signer-01") == true)

        var store = IACATrustStore()
        result.add(to: &store)
        #expect(store.roots(for: "org.iso.18013.5.1.mDL").count == 14)
        #expect(store.roots(for: "org.iso.23220.photoid.1").isEmpty)
        #expect(store.anchors.first?.source == "VICAL AAMVA #227602 of " + RFC3339.format(vical.date))

        // Provenance: who published and signed the list, its issue, and what each entry says of its authority.
        var located = IACATrustStore()
        let location = "https://vical.example/aamva"
        result.add(to: &located, location: location, fetchedAt: time)
        let entries = located.anchors.compactMap(\.provenance.vical)
        #expect(entries.count == 14 && located.anchors.allSatisfy { $0.provenance.kind == .vical && $0.provenance.location == location })
        let first = try #require(entries.first)
        #expect(first.issuer == "AAMVA" && first.issueID == 227_602 && first.date == vical.date && first.nextUpdate == vical.nextUpdate)
        #expect(first.signerSubject.contains("AAMVA Prod Vical-Signer-01") && first.signerSHA256.count == 64)
        #expect(entries.allSatisfy { $0.country == "US" && $0.docTypes == ["org.iso.18013.5.1.mDL"] })
        // AAMVA's entries name each authority's state: Maryland's, for example.
        let maryland = try #require(entries.first { $0.state?.contains("MD") == true }, "\(entries.map { $0.state ?? "-" })")
        let summary = try #require(located.anchors.first { $0.provenance.vical == maryland }?.provenance.summary)
        #expect(summary.hasPrefix("AAMVA's VICAL entry for ") && summary.contains("list issue 227602 of 2025-11-18"), "\(summary)")

        // The issuing CA works as an anchor too.
        #expect(await VICALLoader(anchors: try anchors("aamva_dts_issuing_ca.pem")).load(bytes: bytes, at: time).trusted)
        // Filtered by docType: nothing for passports.
        #expect(await VICALLoader(anchors: try anchors()).load(bytes: bytes, at: time, docTypes: ["org.iso.23220.photoid.1"]).roots.isEmpty)
    }

    @Test func todayTheSignerHasExpiredAndTheVICALIsOutdated() async throws {
        let bytes = try TestVectors.data(aamva + "aamva-vical-2025-11-18.cbor")
        let result = await VICALLoader(anchors: try anchors()).load(bytes: bytes, at: try #require(RFC3339.parse("2026-11-21T00:00:00Z")))
        #expect(!result.trusted)
        #expect(result.roots.isEmpty)
        let chain = try #require(result.checks.first { $0.id == .vicalChain })
        #expect(chain.reason == "certificateExpired")
        #expect(chain.message.contains("Vical-Signer"))
        #expect(result.checks.first { $0.id == .vicalValidity }?.reason == "vicalOutdated")
        // The signature itself still verifies: it is the time that is wrong.
        #expect(result.checks.first { $0.id == .vicalSignature }?.status == .passed)

        // A day after nextUpdate, while the signer is valid: outdated, or a warning when allowed.
        let late = try #require(RFC3339.parse("2025-11-20T19:00:00Z"))
        let strict = await VICALLoader(anchors: try anchors()).load(bytes: bytes, at: late)
        #expect(!strict.trusted)
        let lenient = await VICALLoader(anchors: try anchors(), allowOutdated: true).load(bytes: bytes, at: late)
        #expect(lenient.trusted)
        #expect(lenient.warnings.contains { $0.code == "vicalOutdated" })
    }

    @Test func aTamperedVICALOrAnotherAnchorIsRejected() async throws {
        var bytes = try TestVectors.data(aamva + "aamva-vical-2025-11-18.cbor")
        let time = try #require(RFC3339.parse("2025-11-18T19:00:00Z"))
        // Change one byte inside the first certificateInfo's certificate (the DER after "certificate" and its bstr head).
        let marker = try #require(findSubsequence(bytes, Array("certificate".utf8) + [0x59]))
        bytes[marker + 40] ^= 0x01
        let tampered = await VICALLoader(anchors: try anchors()).load(bytes: bytes, at: time)
        #expect(!tampered.trusted)
        #expect(tampered.checks.first { $0.id == .vicalSignature }?.reason == "signatureInvalid")

        let other = try MdocPKI()
        let wrongAnchor = await VICALLoader(anchors: [other.iaca]).load(bytes: try TestVectors.data(aamva + "aamva-vical-2025-11-18.cbor"), at: time)
        #expect(wrongAnchor.checks.first { $0.id == .vicalChain }?.reason == "untrustedSigner")
        #expect(wrongAnchor.roots.isEmpty)

        for garbage: [UInt8] in [[], [0xa0], [0x84, 0x40, 0xa0, 0xf6, 0x40]] {
            let result = await VICALLoader(anchors: try anchors()).load(bytes: garbage, at: time)
            #expect(result.checks.first?.status == .failed)
            #expect(result.checks.dropFirst().allSatisfy { $0.reason == .prerequisiteFailed })
        }
    }

    func findSubsequence(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        return nil
    }
}

@Suite struct FixtureVICALTests {
    /// A VICAL built in code vouches for a passport issuer: the passport verifies with a trust store
    /// filled from it, and only for the docType the VICAL names.
    @Test func rootsFromAVICALVerifyDocumentsOfTheirDocType() async throws {
        let pki = try MdocPKI()
        var vical = try VICALFixture()
        vical.entries = [.init(pki.iaca, docTypes: [PhotoIDFixture.docType])]
        let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)
        let loaded = await VICALLoader(anchors: [vical.anchor]).load(bytes: try vical.signed(), at: time)
        #expect(loaded.trusted)
        var store = IACATrustStore()
        loaded.add(to: &store)

        let deviceKey = P256.Signing.PrivateKey()
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: "https://verifier.example")
        let passport = try PhotoIDFixture().deviceResponse(pki: pki, deviceKey: deviceKey, transcript: transcript)
        let accepted = await PassportVerifier(trustStore: store, revocation: .off(because: "not under test")).verify(
            deviceResponse: passport, transcript: transcript, context: .at(time))
        #expect(accepted.report.verdict == .accepted, "\(accepted.report.failures.map(\.message))")

        var mdl = PhotoIDFixture()
        mdl.docType = MdocFixture.mDL
        let licence = try mdl.deviceResponse(pki: pki, deviceKey: deviceKey, transcript: transcript)
        let report = await MdocVerifier(trustStore: store).verify(deviceResponse: licence, transcript: transcript, context: .at(time)).report
        #expect(report.check(.mdocIssuerChain)?.reason == "noTrustAnchor")
    }

    @Test func anExpiredVICALSignerOrAVICALFromTheFutureIsNotTrusted() async throws {
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        let expired = try VICALFixture(signerNotAfter: time.addingTimeInterval(-1))
        let result = await VICALLoader(anchors: [expired.anchor]).load(bytes: try expired.signed(), at: time)
        #expect(result.checks.first { $0.id == .vicalChain }?.reason == "certificateExpired")
        var future = try VICALFixture()
        future.date = time.addingTimeInterval(86_400)
        let early = await VICALLoader(anchors: [future.anchor]).load(bytes: try future.signed(), at: time)
        #expect(early.checks.first { $0.id == .vicalValidity }?.reason == "vicalNotYetValid")
        #expect(!early.trusted)
    }
}
