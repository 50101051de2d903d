import Crypto
import Foundation
import Mdoc
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletVerifierTestSupport

@testable import MdocVerifier

/// A passport Digital ID fixture with an identifier list or a status list, through the passport
/// verifier: one test per outcome.
struct RevocationScenario {
    static let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)  // an hour after signing
    static let uri = "https://revocation.example/lists/7"
    static let id: [UInt8] = [0x0a, 0x0b, 0x0c, 0x0d]

    let pki: PassportPKI
    let signer: RevocationSignerPKI
    let deviceKey = P256.Signing.PrivateKey()
    let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: "https://verifier.example")

    init() throws {
        pki = try PassportPKI()
        signer = pki.revocation
    }

    var trustStore: IACATrustStore { .includingPassports([pki.iaca]) }

    func response(status: CBORNode?, fixture: PhotoIDFixture = PhotoIDFixture()) throws -> [UInt8] {
        var fixture = fixture
        fixture.status = status
        return try fixture.deviceResponse(pki: pki, deviceKey: deviceKey, transcript: transcript)
    }

    /// A list issued a minute before `time`, valid for a day.
    func identifierList(_ ids: [[UInt8]], issuedAt: Date = time.addingTimeInterval(-60), expiresAt: Date? = time.addingTimeInterval(86_400))
        -> RevocationListFixture
    {
        RevocationListFixture(content: .identifiers(ids), uri: Self.uri, issuedAt: issuedAt, expiresAt: expiresAt)
    }

    func verify(
        _ response: [UInt8], lists: [[UInt8]], policy: RevocationPolicy = .strict, at time: Date = time,
        trustStore: IACATrustStore? = nil
    ) async throws -> PassportVerificationResult {
        var offline = OfflineRevocationLists()
        for (index, list) in lists.enumerated() { try offline.add(bytes: list, name: "list\(index)") }
        let verifier = PassportVerifier(
            trustStore: trustStore ?? self.trustStore, policy: PassportPolicy(revocation: policy), revocationSource: offline)
        return await verifier.verify(deviceResponse: response, transcript: transcript, context: .at(time))
    }
}

/// A source that answers every uri with the same bytes (to test uri and kind mismatches) and
/// counts how often it was asked.
final class FixedSource: RevocationListSource, @unchecked Sendable {
    let bytes: [UInt8]
    private let lock = NSLock()
    private var calls = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var callCount: Int { lock.withLock { calls } }
    func list(for uri: String, at time: Date) async throws -> RevocationListDocument {
        lock.withLock { calls += 1 }
        return RevocationListDocument(bytes: bytes, origin: "test source")
    }
}

@Suite struct IdentifierListTests {
    @Test func aDocumentNotOnTheListIsAccepted() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        let list = try s.identifierList([[1, 2, 3], [9, 9]]).signed(by: s.signer)
        let result = try await s.verify(response, lists: [list])
        let report = result.report
        #expect(report.verdict == .accepted, "\(report.checks.filter { $0.status != .passed }.map { "\($0.id) \($0.reason) \($0.message)" })")
        let listCheck = try #require(report.check(.mdocRevocationList, scope: "document[0]"))
        #expect(listCheck.status == .passed)
        #expect(listCheck.details["mechanism"] == "identifier_list")
        #expect(listCheck.details["signer"]?.contains("Test Revocation List Signer") == true)
        #expect(listCheck.details["root"]?.contains("Test Passport IACA") == true)
        #expect(listCheck.details["source"] == "file list0")
        #expect(report.check(.mdocRevocationStatus)?.status == .passed)
        #expect(report.check(.photoIDDocType)?.status == .passed)
        #expect(report.check(.photoIDElements)?.status == .passed)
        // Identifiers are credential identifiers: they do not appear in the report.
        #expect(
            !report.checks.contains {
                $0.message.contains(Hex.encode(RevocationScenario.id))
                    || $0.details.values.contains { $0.contains(Hex.encode(RevocationScenario.id)) }
            })
        #expect(result.passport?.givenNameUnicode == "Åsa")
    }

    @Test func aListedDocumentIsRejectedAsRevoked() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        let list = try s.identifierList([[1, 2, 3], RevocationScenario.id]).signed(by: s.signer)
        let report = try await s.verify(response, lists: [list]).report
        #expect(report.verdict == .rejected)
        #expect(report.check(.mdocRevocationList)?.status == .passed)
        let status = try #require(report.check(.mdocRevocationStatus))
        #expect(status.status == .failed)
        #expect(status.reason == "revoked")
        // Under the warning policy a revoked document is still rejected.
        #expect(try await s.verify(response, lists: [list], policy: .warnWhenUndetermined).report.verdict == .rejected)
    }

    @Test func anExpiredListIsUndeterminedNeverPassed() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        let expired = try s.identifierList(
            [], issuedAt: RevocationScenario.time.addingTimeInterval(-7200), expiresAt: RevocationScenario.time.addingTimeInterval(-3600)
        ).signed(by: s.signer)
        let report = try await s.verify(response, lists: [expired]).report
        #expect(report.verdict == .indeterminate)
        let list = try #require(report.check(.mdocRevocationList))
        #expect(list.status == .error)
        #expect(list.reason == "listExpired")
        #expect(list.retryable == true)
        let status = try #require(report.check(.mdocRevocationStatus))
        #expect(status.status == .skipped)
        #expect(status.reason == .prerequisiteFailed)
        #expect(status.details["prerequisite"] == "mdoc.revocation.list")

        // The warning policy: both checks skipped with the reason, a warning, and the rest decides.
        let lenient = try await s.verify(response, lists: [expired], policy: .warnWhenUndetermined).report
        #expect(lenient.verdict == .accepted)
        #expect(lenient.check(.mdocRevocationList)?.status == .skipped)
        #expect(lenient.check(.mdocRevocationList)?.reason == "listExpired")
        #expect(lenient.check(.mdocRevocationStatus)?.reason == "revocationUndetermined")
        #expect(lenient.warnings.contains { $0.code == "listExpired" && $0.scope == "document[0]" })
        #expect(!lenient.checks.contains { $0.id == .mdocRevocationStatus && $0.status == .passed })
    }

    @Test func aStaleListAndAListFromTheFutureAreUndetermined() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        let stale = try s.identifierList(
            [], issuedAt: RevocationScenario.time.addingTimeInterval(-2 * 86_400), expiresAt: RevocationScenario.time.addingTimeInterval(86_400)
        ).signed(by: s.signer)
        #expect(try await s.verify(response, lists: [stale]).report.check(.mdocRevocationList)?.reason == "listStale")
        var noAgeLimit = RevocationPolicy.strict
        noAgeLimit.maximumListAge = nil
        #expect(try await s.verify(response, lists: [stale], policy: noAgeLimit).report.verdict == .accepted)
        let future = try s.identifierList([], issuedAt: RevocationScenario.time.addingTimeInterval(3600)).signed(by: s.signer)
        #expect(try await s.verify(response, lists: [future]).report.check(.mdocRevocationList)?.reason == "listNotYetValid")
    }

    @Test func aListSignedByAnUntrustedKeyIsUndetermined() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        // A signer with a perfectly good chain, to a root nobody trusts.
        let otherRoot = try PassportPKI()
        let stranger = otherRoot.revocation
        let list = try s.identifierList([RevocationScenario.id]).signed(by: stranger)
        let report = try await s.verify(response, lists: [list]).report
        #expect(report.verdict == .indeterminate)
        #expect(report.check(.mdocRevocationList)?.reason == "untrustedSigner")
        #expect(report.check(.mdocRevocationList)?.retryable == false)
        // Never silently revoked: the identifier is on that list, but the list is not trusted.
        #expect(report.check(.mdocRevocationStatus)?.status == .skipped)

        // A root trusted for another docType only is not the document's root either.
        var store = s.trustStore
        store.add(otherRoot.iaca, docTypes: ["org.iso.18013.5.1.mDL"])
        #expect(try await s.verify(response, lists: [list], trustStore: store).report.check(.mdocRevocationList)?.reason == "untrustedSigner")

        // Both roots trusted for passports: the list must still chain to the document's own root.
        var both = s.trustStore
        both.add(otherRoot.iaca, docTypes: [PhotoIDFixture.docType])
        let sameRootRule = try await s.verify(response, lists: [list], trustStore: both).report
        #expect(sameRootRule.check(.mdocIssuerChain)?.status == .passed)
        #expect(sameRootRule.check(.mdocRevocationList)?.reason == "untrustedSigner")
        #expect(sameRootRule.check(.mdocRevocationList)?.message.contains("the document's root is") == true)

        // Only a leaf without its intermediate: no chain to the root.
        let leafOnly = try s.identifierList([]).signed(key: s.signer.signerKey, x5chain: [s.signer.x5chain[0]])
        #expect(try await s.verify(response, lists: [leafOnly]).report.check(.mdocRevocationList)?.reason == "untrustedSigner")
        // An IACA whose path length allows no intermediate cannot vouch for a signer under one.
        let pathLengthZero = try MdocPKI()
        let underIt = try RevocationSignerPKI(pki: pathLengthZero)
        let store0 = IACATrustStore.includingPassports([pathLengthZero.iaca])
        var fixture0 = PhotoIDFixture()
        fixture0.status = try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri)
        let response0 = try fixture0.deviceResponse(pki: pathLengthZero, deviceKey: s.deviceKey, transcript: s.transcript)
        let report0 = try await s.verify(response0, lists: [try s.identifierList([]).signed(by: underIt)], trustStore: store0).report
        #expect(report0.check(.mdocIssuerChain)?.status == .passed)
        #expect(report0.check(.mdocRevocationList)?.reason == "untrustedSigner")
        #expect(report0.check(.mdocRevocationList)?.message.contains("path length") == true)
        // No x5chain at all.
        let bare = try s.identifierList([]).signed(key: s.signer.signerKey, x5chain: nil)
        #expect(try await s.verify(response, lists: [bare]).report.check(.mdocRevocationList)?.reason == "untrustedSigner")
    }

    @Test func aBadlySignedOrExpiredSignerIsUndetermined() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        var corrupt = s.identifierList([RevocationScenario.id])
        corrupt.corruptSignature = true
        let report = try await s.verify(response, lists: [try corrupt.signed(by: s.signer)]).report
        #expect(report.check(.mdocRevocationList)?.reason == "signatureInvalid")
        #expect(report.verdict == .indeterminate)
        // Signed with another key than the x5chain leaf's.
        let wrongKey = try s.identifierList([]).signed(key: P256.Signing.PrivateKey(), x5chain: s.signer.x5chain)
        #expect(try await s.verify(response, lists: [wrongKey]).report.check(.mdocRevocationList)?.reason == "signatureInvalid")
        // The signer's certificate expired before the verification time.
        var options = RevocationSignerPKI.Options()
        options.signerNotAfter = RevocationScenario.time.addingTimeInterval(-1)
        let expiredSigner = try RevocationSignerPKI(rootKey: s.pki.iacaKey, root: s.pki.iaca, options: options)
        let expired = try s.identifierList([]).signed(by: expiredSigner)
        #expect(try await s.verify(response, lists: [expired]).report.check(.mdocRevocationList)?.reason == "signerCertificateExpired")
    }

    @Test func aMissingListAndAMismatchedListAreUndetermined() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        var other = s.identifierList([])
        other.uri = "https://revocation.example/lists/8"
        other.subject = other.uri
        let report = try await s.verify(response, lists: [try other.signed(by: s.signer)]).report
        #expect(report.check(.mdocRevocationList)?.reason == "listUnavailable")
        #expect(report.verdict == .indeterminate)

        let verifier = { (source: any RevocationListSource) in
            PassportVerifier(trustStore: s.trustStore, revocationSource: source)
        }
        let mismatched = FixedSource(try other.signed(by: s.signer))
        let viaFixed = await verifier(mismatched).verify(deviceResponse: response, transcript: s.transcript, context: .at(RevocationScenario.time))
            .report
        #expect(viaFixed.check(.mdocRevocationList)?.reason == "uriMismatch")
        // A status list where the MSO names an identifier list.
        let statusList = try RevocationListFixture(content: .statuses([0], bits: 1), uri: RevocationScenario.uri, issuedAt: RevocationScenario.time)
            .signed(by: s.signer)
        let wrongKind = await verifier(FixedSource(statusList)).verify(
            deviceResponse: response, transcript: s.transcript, context: .at(RevocationScenario.time)
        ).report
        #expect(wrongKind.check(.mdocRevocationList)?.reason == "malformedList")
        // Garbage from the source.
        let garbage = await verifier(FixedSource([0xff, 0x00])).verify(
            deviceResponse: response, transcript: s.transcript, context: .at(RevocationScenario.time)
        ).report
        #expect(garbage.check(.mdocRevocationList)?.reason == "malformedList")
        #expect(garbage.verdict == .indeterminate)
    }

    @Test func theCertificateNamedInTheMSOMustSignTheList() async throws {
        let s = try RevocationScenario()
        let named = try RevocationListFixture.identifierListStatus(
            id: RevocationScenario.id, uri: RevocationScenario.uri, certificate: s.signer.x5chain[0])
        let list = try s.identifierList([]).signed(by: s.signer)
        #expect(try await s.verify(try s.response(status: named), lists: [list]).report.verdict == .accepted)
        let otherSigner = try RevocationSignerPKI(rootKey: s.pki.iacaKey, root: s.pki.iaca)
        let byOther = try s.identifierList([]).signed(by: otherSigner)
        #expect(try await s.verify(try s.response(status: named), lists: [byOther]).report.check(.mdocRevocationList)?.reason == "untrustedSigner")
    }

    @Test func noStatusEntryAndMalformedStatusEntries() async throws {
        let s = try RevocationScenario()
        let none = try await s.verify(try s.response(status: nil), lists: []).report
        #expect(none.verdict == .accepted)
        #expect(none.check(.mdocRevocationList)?.reason == .notApplicable)
        #expect(none.check(.mdocRevocationStatus)?.reason == .notApplicable)
        var requireStatus = RevocationPolicy.strict
        requireStatus.requireStatusEntry = true
        let required = try await s.verify(try s.response(status: nil), lists: [], policy: requireStatus).report
        #expect(required.check(.mdocRevocationStatus)?.reason == "statusMissing")
        #expect(required.verdict == .rejected)

        for status in [
            CBORNode.text("revoked?"), try CBORNode.map(["identifier_list": .map(["uri": .text(RevocationScenario.uri)])]),
            try CBORNode.map(["status_list": .map(["idx": .int(-1), "uri": .text(RevocationScenario.uri)])]), try CBORNode.map(["other": .null]),
        ] {
            let report = try await s.verify(try s.response(status: status), lists: []).report
            #expect(report.check(.mdocRevocationList)?.reason == "malformedStatus")
            #expect(report.verdict == .indeterminate)
        }
    }

    @Test func nothingIsFetchedForAnUntrustedIssuer() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        let source = FixedSource(try s.identifierList([]).signed(by: s.signer))
        let stranger = try MdocPKI()
        let verifier = PassportVerifier(trustStore: .includingPassports([stranger.iaca]), revocationSource: source)
        let report = await verifier.verify(deviceResponse: response, transcript: s.transcript, context: .at(RevocationScenario.time)).report
        #expect(report.verdict == .rejected)
        #expect(report.check(.mdocRevocationList)?.reason == .prerequisiteFailed)
        #expect(report.check(.mdocRevocationStatus)?.reason == .prerequisiteFailed)
        #expect(source.callCount == 0)
    }

    /// Revocation is an explicit choice: turned off, both checks are in the report, skipped with
    /// reason `disabled` and the caller's reason, never silently absent.
    @Test func revocationTurnedOffSaysSoAndWhy() async throws {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: RevocationScenario.uri))
        let report = await PassportVerifier(trustStore: s.trustStore, revocation: .off(because: "an offline kiosk without list access")).verify(
            deviceResponse: response, transcript: s.transcript, context: .at(RevocationScenario.time)
        ).report
        #expect(report.verdict == .accepted)
        for id in [CheckID.mdocRevocationList, .mdocRevocationStatus] {
            #expect(report.check(id, scope: "document[0]")?.status == .skipped)
            #expect(report.check(id, scope: "document[0]")?.reason == "disabled")
        }
        #expect(report.check(.mdocRevocationList, scope: "document[0]")?.message.contains("an offline kiosk without list access") == true)
    }
}

@Suite struct StatusListTests {
    func scenario(
        statuses: [UInt8], bits: Int, index: UInt64, policy: RevocationPolicy = .strict,
        configure: (inout RevocationListFixture) -> Void = { _ in }
    ) async throws -> VerificationReport {
        let s = try RevocationScenario()
        let response = try s.response(status: try RevocationListFixture.statusListStatus(index: index, uri: RevocationScenario.uri))
        var fixture = RevocationListFixture(
            content: .statuses(statuses, bits: bits), uri: RevocationScenario.uri,
            issuedAt: RevocationScenario.time.addingTimeInterval(-60), expiresAt: RevocationScenario.time.addingTimeInterval(3600))
        configure(&fixture)
        return try await s.verify(response, lists: [try fixture.signed(by: s.signer)], policy: policy).report
    }

    @Test(arguments: [1, 2, 4, 8])
    func everyEntryWidthIsRead(_ bits: Int) async throws {
        let statuses: [UInt8] = (0..<40).map { $0 == 17 ? 1 : ($0 == 23 && bits > 1 ? 2 : 0) }
        let valid = try await scenario(statuses: statuses, bits: bits, index: 16)
        #expect(valid.verdict == .accepted, "\(valid.checks.filter { $0.status != .passed }.map(\.message))")
        #expect(valid.check(.mdocRevocationList)?.details["mechanism"] == "status_list")
        let revoked = try await scenario(statuses: statuses, bits: bits, index: 17)
        #expect(revoked.check(.mdocRevocationStatus)?.reason == "revoked")
        #expect(revoked.verdict == .rejected)
        if bits > 1 {
            let suspended = try await scenario(statuses: statuses, bits: bits, index: 23)
            #expect(suspended.check(.mdocRevocationStatus)?.reason == "suspended")
            #expect(suspended.verdict == .rejected)
        }
        let outside = try await scenario(statuses: statuses, bits: bits, index: UInt64(statuses.count + 8 * 8))
        #expect(outside.check(.mdocRevocationList)?.reason == "indexOutOfRange")
        #expect(outside.verdict == .indeterminate)
    }

    @Test func unknownStatusValuesAreUndetermined() async throws {
        let report = try await scenario(statuses: [0, 3], bits: 2, index: 1)
        #expect(report.check(.mdocRevocationList)?.reason == "statusValueUnknown")
        #expect(report.verdict == .indeterminate)
    }

    @Test func zlibBombsAndBrokenStreamsAreUndetermined() async throws {
        let bomb = try await scenario(statuses: [], bits: 1, index: 0) { $0.compressedOverride = ZlibFixture.zeros(count: 20 << 20) }
        #expect(bomb.check(.mdocRevocationList)?.reason == "listTooLarge")
        #expect(bomb.verdict == .indeterminate)
        var small = RevocationPolicy.strict
        small.maximumStatusListSize = 1024
        let capped = try await scenario(statuses: [UInt8](repeating: 0, count: 20_000), bits: 1, index: 0, policy: small)
        #expect(capped.check(.mdocRevocationList)?.reason == "listTooLarge")
        let broken = try await scenario(statuses: [], bits: 1, index: 0) { $0.compressedOverride = [0x78, 0x9c, 0xff, 0xff] }
        #expect(broken.check(.mdocRevocationList)?.reason == "malformedList")
    }
}
