import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletVerifierTestSupport

@testable import WalletIdentity

@Suite struct DescriptorTests {
    func decode(_ json: String) throws -> IdentityRequestDescriptor {
        try IdentityRequestDescriptor.decode(json: Data(json.utf8))
    }

    @Test func theDocumentedShapeDecodes() throws {
        let descriptor = try decode(
            #"""
            {"document": "driversLicense",
             "elements": [
               {"element": "givenName", "intentToStore": "willNotStore"},
               {"element": "age", "atLeast": 21, "intentToStore": "willNotStore"},
               {"element": "portrait", "intentToStore": {"mayStoreDays": 30}},
               {"element": "familyName", "intentToStore": "mayStore"}]}
            """#)
        #expect(descriptor.document == .driversLicense)
        #expect(descriptor.elements.count == 4)
        #expect(descriptor.elements[1].atLeast == 21)
        #expect(descriptor.elements[2].intentToStore == .mayStoreDays(30))
        let roundTrip = try JSONDecoder().decode(IdentityRequestDescriptor.self, from: try JSONEncoder().encode(descriptor))
        #expect(roundTrip == descriptor)
    }

    @Test(arguments: [
        (#"{"document": "driversLicense", "elements": [{"element": "age", "atLeast": 0, "intentToStore": "willNotStore"}]}"#, "outside 1...125"),
        (#"{"document": "driversLicense", "elements": [{"element": "age", "atLeast": 126, "intentToStore": "willNotStore"}]}"#, "outside 1...125"),
        (
            #"{"document": "driversLicense", "elements": [{"element": "age", "intentToStore": "willNotStore"}, {"element": "age", "atLeast": 18, "intentToStore": "willNotStore"}]}"#,
            "both age and age(atLeast:)"
        ),
        (
            #"{"document": "driversLicense", "elements": [{"element": "shoeSize", "intentToStore": "willNotStore"}]}"#,
            "elements[0].element: not a PassKit element name; the elements are givenName"
        ),
        (#"{"document": "passport", "elements": [{"element": "givenName", "intentToStore": "willNotStore"}]}"#, "passport"),
        (#"{"document": "driversLicense", "elements": [{"element": "givenName", "intentToStore": "forever"}]}"#, "intentToStore"),
        (#"{"document": "driversLicense", "elements": []}"#, "no element"),
        (
            #"{"document": "driversLicense", "elements": [{"element": "givenName", "atLeast": 3, "intentToStore": "willNotStore"}]}"#,
            "only allowed on the age"
        ),
        (
            #"{"document": "photoID", "elements": [{"element": "drivingPrivileges", "intentToStore": "willNotStore"}]}"#,
            "cannot be requested from a photoID"
        ),
        (#"{"elements": []}"#, "document"),
    ])
    func brokenRulesNameTheProblem(_ json: String, _ expected: String) throws {
        do {
            _ = try decode(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(String(describing: error).contains(expected), "\(error)")
        }
    }
}

@Suite struct RequestSessionTests {
    let merchant = "merchant.com.example"
    let team = "TEAM123456"
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)

    func setup() throws -> (sessions: IdentityRequestSessions, recipient: P256.KeyAgreement.PrivateKey, pki: MdocPKI) {
        let recipient = P256.KeyAgreement.PrivateKey()
        let pki = try MdocPKI()
        // The IACA vouches for every docType, and (scoped) for passports, which need a scoped root.
        var trust = IACATrustStore(certificates: [pki.iaca])
        trust.add(pki.iaca, docTypes: ["org.iso.23220.photoid.1"])
        let verifier = AppleIdentityVerifier(
            keyRing: IdentityKeyRing([recipient]), merchantID: merchant, teamID: team,
            trustStore: trust, revocation: .off(because: "not under test"))
        return (IdentityRequestSessions(store: InMemoryReplayStore(), verifier: verifier), recipient, pki)
    }

    func response(
        for created: IdentityRequestSessions.Created, recipient: P256.KeyAgreement.PrivateKey, pki: MdocPKI, fixture: MdocFixture = MdocFixture()
    ) throws -> [UInt8] {
        let transcript = IdentityEnvelopeFixture.transcript(nonce: created.nonce, merchantID: merchant, teamID: team, recipient: recipient.publicKey)
        let deviceResponse = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        return try IdentityEnvelopeFixture().envelope(
            deviceResponse: deviceResponse, recipient: recipient.publicKey, nonce: created.nonce, merchantID: merchant, teamID: team)
    }

    static let descriptor = IdentityRequestDescriptor(
        document: .driversLicense,
        elements: [
            .init(.givenName, intentToStore: .willNotStore), .init(.familyName, intentToStore: .willNotStore),
            .init(.dateOfBirth, intentToStore: .willNotStore), .init(.age, atLeast: 21, intentToStore: .willNotStore),
            .init(.portrait, intentToStore: .mayStoreDays(30)), .init(.documentNumber, intentToStore: .willNotStore),
        ])

    @Test func nonceIsRandomAndLongEnough() async throws {
        let (sessions, _, _) = try setup()
        let a = try await sessions.create(descriptor: Self.descriptor, now: time)
        let b = try await sessions.create(descriptor: Self.descriptor, now: time)
        #expect(a.nonce.count >= 32)
        #expect(a.nonce != b.nonce)
        #expect(a.requestID != b.requestID)
        #expect(a.expiresAt > time)
    }

    @Test func aResponseIsAcceptedOnceAndClaimsAreTyped() async throws {
        let (sessions, recipient, pki) = try setup()
        let created = try await sessions.create(descriptor: Self.descriptor, now: time)
        let envelope = try response(for: created, recipient: recipient, pki: pki)
        let first = await sessions.verify(requestID: created.requestID, encryptedData: envelope, context: .at(time))
        #expect(first.report.verdict == .accepted, "\(first.report.failures.map(\.message))")
        #expect(first.report.check(.replayNonce)?.status == .passed)
        #expect(first.claims?.givenName == "Erika")
        #expect(first.claims?.ageAtLeast?.value == true)
        #expect(first.claims?.ageAtLeast?.source == "age_over_21")
        let second = await sessions.verify(requestID: created.requestID, encryptedData: envelope, context: .at(time))
        #expect(second.report.verdict == .rejected)
        #expect(second.report.check(.replayNonce)?.reason == "nonceReused")
    }

    @Test func concurrentSubmissionsAreAcceptedExactlyOnce() async throws {
        let (sessions, recipient, pki) = try setup()
        let created = try await sessions.create(descriptor: Self.descriptor, now: time)
        let envelope = try response(for: created, recipient: recipient, pki: pki)
        let verdicts = await withTaskGroup(of: Verdict.self) { group in
            for _ in 0..<12 {
                group.addTask { await sessions.verify(requestID: created.requestID, encryptedData: envelope, context: .at(time)).report.verdict }
            }
            var all: [Verdict] = []
            for await verdict in group { all.append(verdict) }
            return all
        }
        #expect(verdicts.filter { $0 == .accepted }.count == 1)
        #expect(verdicts.filter { $0 == .rejected }.count == 11)
    }

    /// A request bound to a session is answered only in that session; the stored request is read
    /// back whatever the descriptor (several descriptors in turn, so the descriptor cache is used and
    /// never mixes them up).
    @Test func sessionBindingAndStoredRequests() async throws {
        let (sessions, recipient, pki) = try setup()
        let other = IdentityRequestDescriptor(document: .driversLicense, elements: [.init(.givenName, intentToStore: .mayStore)])
        for round in 0..<3 {
            for descriptor in [Self.descriptor, other] {
                let created = try await sessions.create(descriptor: descriptor, sessionBinding: "session/\(round)\"é", now: time)
                let envelope = try response(for: created, recipient: recipient, pki: pki)
                let result = await sessions.verify(
                    requestID: created.requestID, encryptedData: envelope, sessionBinding: "session/\(round)\"é", context: .at(time))
                #expect(result.report.check(.replayNonce)?.status == .passed)
                if descriptor == other {
                    // The fixture discloses more than `other` asks for: rejected for that reason only.
                    #expect(result.report.verdict == .rejected)
                    #expect(result.report.failures.count == 1, "\(result.report.failures.map(\.id))")
                } else {
                    #expect(result.report.verdict == .accepted)
                    #expect(result.claims?.claim(.portrait)?.intentToStore == .mayStoreDays(30))
                }
            }
        }
        let bound = try await sessions.create(descriptor: Self.descriptor, sessionBinding: "mine", now: time)
        let stolen = await sessions.verify(
            requestID: bound.requestID, encryptedData: try response(for: bound, recipient: recipient, pki: pki),
            sessionBinding: "someone else", context: .at(time))
        #expect(stolen.report.check(.replayNonce)?.reason == "sessionMismatch")
        #expect(stolen.report.verdict == .rejected)
        // What the store holds but was not written by `create` is an error, not an acceptance.
        #expect(IdentityRequestSessions.readPayload(Array(#"{"nonce":"00"}"#.utf8)) == nil)
        #expect(IdentityRequestSessions.readPayload(Array(#"{"nonce":"00","descriptor":{},"sessionBinding":5}"#.utf8)) == nil)
        #expect(IdentityRequestSessions.readPayload([0xFF]) == nil)
    }

    @Test func expiredAndUnknownRequests() async throws {
        let (sessions, recipient, pki) = try setup()
        let created = try await sessions.create(descriptor: Self.descriptor, now: time)
        let envelope = try response(for: created, recipient: recipient, pki: pki)
        let late = await sessions.verify(requestID: created.requestID, encryptedData: envelope, context: .at(created.expiresAt.addingTimeInterval(1)))
        #expect(late.report.check(.replayNonce)?.reason == "nonceExpired")
        let unknown = await sessions.verify(requestID: "nope", encryptedData: envelope, context: .at(time))
        #expect(unknown.report.check(.replayNonce)?.reason == "unknownRequest")
        #expect(unknown.report.check(.identityEnvelopeTranscript)?.reason == .prerequisiteFailed)
    }

    @Test func unrequestedElementsFail() async throws {
        let (sessions, recipient, pki) = try setup()
        let narrow = IdentityRequestDescriptor(document: .driversLicense, elements: [.init(.givenName, intentToStore: .willNotStore)])
        let created = try await sessions.create(descriptor: narrow, now: time)
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki), context: .at(time))
        #expect(result.report.check(.identityRequestElements)?.reason == "unrequestedElement")
        #expect(result.report.verdict == .rejected)
    }

    /// A device-signed element counts like an issuer-signed one: not requested, not accepted.
    @Test func unrequestedDeviceSignedElementsFail() async throws {
        let (sessions, recipient, pki) = try setup()
        let created = try await sessions.create(descriptor: Self.descriptor, now: time)
        var fixture = MdocFixture()
        fixture.deviceSignedElements = [.init("org.example.device", "nickname", .text("Erika"))]
        fixture.keyAuthorizations = (nameSpaces: ["org.example.device"], dataElements: [:])
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki, fixture: fixture),
            context: .at(time))
        #expect(result.report.check(.mdocDeviceKeyAuthorizations)?.status == .passed)
        let elements = try #require(result.report.check(.identityRequestElements))
        #expect(elements.reason == "unrequestedElement")
        #expect(elements.details["unrequested"] == "device-signed org.example.device/nickname")
        #expect(result.report.verdict == .rejected)
    }

    /// PassKit only uses ECDSA: a deviceMac is a failed check (rejected, HTTP 200), not an
    /// indeterminate "reader key required" that invites retries.
    @Test func aDeviceMacIsNotAllowed() async throws {
        let (sessions, recipient, pki) = try setup()
        let created = try await sessions.create(descriptor: Self.descriptor, now: time)
        var fixture = MdocFixture()
        fixture.macReaderKey = P256.KeyAgreement.PrivateKey().publicKey
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki, fixture: fixture),
            context: .at(time))
        let device = try #require(result.report.check(.mdocDeviceAuthentication))
        #expect(device.status == .failed)
        #expect(device.reason == .deviceMacNotAllowed)
        #expect(result.report.verdict == .rejected)
    }

    /// `requireUnexpired` in the JSON descriptor: a response without expiry_date cannot show the
    /// document is unexpired.
    @Test func requireUnexpiredNeedsADisclosedExpiryDate() async throws {
        let (sessions, recipient, pki) = try setup()
        var descriptor = try IdentityRequestDescriptor.decode(
            json: Data(
                #"{"document":"driversLicense","requireUnexpired":true,"elements":[{"element":"givenName","intentToStore":"willNotStore"},{"element":"familyName","intentToStore":"willNotStore"},{"element":"dateOfBirth","intentToStore":"willNotStore"},{"element":"age","atLeast":21,"intentToStore":"willNotStore"},{"element":"portrait","intentToStore":"willNotStore"},{"element":"documentNumber","intentToStore":"willNotStore"}]}"#
                    .utf8))
        #expect(descriptor.requireUnexpired)
        let created = try await sessions.create(descriptor: descriptor, now: time)
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki), context: .at(time))
        #expect(result.report.check(.identityDocumentExpiry)?.reason == .expiryNotDisclosed)
        #expect(result.report.verdict == .rejected)
        // Without it, no expiry_date is simply not applicable.
        descriptor.requireUnexpired = false
        let plain = try await sessions.create(descriptor: descriptor, now: time)
        let accepted = await sessions.verify(
            requestID: plain.requestID, encryptedData: try response(for: plain, recipient: recipient, pki: pki), context: .at(time))
        #expect(accepted.report.check(.identityDocumentExpiry)?.status == .skipped)
        #expect(accepted.report.verdict == .accepted)
        // The descriptor's JSON keeps the flag only when set.
        #expect(String(decoding: try JSONEncoder().encode(descriptor), as: UTF8.self).contains("requireUnexpired") == false)
    }

    /// A passport (photo ID) through the in-app flow gets the passport rules: countryName required
    /// (even under the in-app policy, which otherwise warns), photoid.docType and photoid.elements.
    @Test func passportsGetThePassportRulesInApp() async throws {
        let recipient = P256.KeyAgreement.PrivateKey()
        let request = IdentityRequestDescriptor(document: .photoID, elements: [.init(.givenName, intentToStore: .willNotStore)])
        var fixture = MdocFixture()
        fixture.docType = "org.iso.23220.photoid.1"
        fixture.elements = [MdocFixture.Element(IdentityElement.photoIDNameSpace, "given_name_unicode", .text("Erika"))]
        func verify(_ pki: MdocPKI, _ fixture: MdocFixture) async throws -> IdentityVerificationResult {
            let verifier = AppleIdentityVerifier(
                keyRing: IdentityKeyRing([recipient]), merchantID: merchant, teamID: team, trustStore: .includingPassports([pki.iaca]),
                revocation: .off(because: "not under test"))
            let sessions = IdentityRequestSessions(store: InMemoryReplayStore(), verifier: verifier)
            let created = try await sessions.create(descriptor: request, now: time)
            return await sessions.verify(
                requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki, fixture: fixture),
                context: .at(time))
        }
        let accepted = try await verify(try MdocPKI(), fixture)
        #expect(accepted.report.verdict == .accepted, "\(accepted.report.failures.map(\.message))")
        #expect(accepted.report.check(.photoIDDocType)?.status == .passed)
        #expect(accepted.report.check(.photoIDElements)?.status == .passed)
        var options = MdocPKI.Options()
        options.iacaCountry = nil
        options.dsCountry = nil
        let noCountry = try await verify(try MdocPKI(options), fixture)
        #expect(noCountry.report.check(.mdocIssuerCountry)?.reason == "countryNameMissing")
        #expect(noCountry.report.verdict == .rejected)
        // A photo ID element of the wrong type fails photoid.elements.
        var wrongType = fixture
        wrongType.elements = [MdocFixture.Element(IdentityElement.photoIDNameSpace, "given_name_unicode", .unsigned(7))]
        let invalid = try await verify(try MdocPKI(), wrongType)
        #expect(invalid.report.check(.photoIDElements)?.reason == "invalidElement")
    }

    @Test func wrongDocumentKindFails() async throws {
        let (sessions, recipient, pki) = try setup()
        let passport = IdentityRequestDescriptor(document: .photoID, elements: [.init(.givenName, intentToStore: .willNotStore)])
        let created = try await sessions.create(descriptor: passport, now: time)
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki), context: .at(time))
        // Refused whole before any signature: the docType was not asked for.
        #expect(result.report.check(.mdocResponseStructure)?.reason == "docTypeNotAccepted")
        #expect(result.report.check(.mdocIssuerSignature)?.status == .skipped)
        #expect(result.report.check(.identityRequestElements)?.status == .skipped)
        #expect(result.report.verdict == .rejected)
    }

    @Test func ageFallsBackToAgeInYearsAndBirthDate() async throws {
        let (sessions, recipient, pki) = try setup()
        for (elements, source, expected) in [
            ([MdocFixture.Element(MdocFixture.isoNameSpace, "age_in_years", .int(19))], "age_in_years", false),
            ([MdocFixture.Element(MdocFixture.isoNameSpace, "birth_date", .tagged(1004, .text("1990-01-01")))], "birth_date", true),
            ([MdocFixture.Element(MdocFixture.isoNameSpace, "age_over_18", .bool(false))], "age_over_18", false),
        ] {
            let request = IdentityRequestDescriptor(document: .driversLicense, elements: [.init(.age, atLeast: 21, intentToStore: .willNotStore)])
            let created = try await sessions.create(descriptor: request, now: time)
            var fixture = MdocFixture()
            fixture.elements = elements
            let result = await sessions.verify(
                requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki, fixture: fixture),
                context: .at(time))
            // A "no" is not an acceptance: the check fails (ageBelowMinimum); the claims (diagnostics
            // accessor: a rejected result's claims are not in `claims`) still show it.
            #expect(result.report.verdict == (expected ? .accepted : .rejected), "\(source): \(result.report.failures.map(\.message))")
            #expect(result.report.check(.identityRequestAge)?.status == (expected ? .passed : .failed))
            #expect(result.report.check(.identityRequestAge)?.reason == (expected ? "ok" : .ageBelowMinimum))
            #expect(result.claimsRegardlessOfVerdict?.ageAtLeast?.source == source)
            #expect(result.claimsRegardlessOfVerdict?.ageAtLeast?.value == expected)
            #expect((result.claims == nil) == !expected)
        }
    }

    /// age(atLeast:) answered from birth_date is computed at the verification time: the day before the
    /// 21st birthday is "no", the birthday and the day after are "yes".
    @Test func ageFromBirthDateAtTheVerificationTime() async throws {
        let (sessions, recipient, pki) = try setup()
        let today = RFC3339.format(time).prefix(10).split(separator: "-").map { Int($0)! }
        func birthDate(daysFromBirthday offset: Int) -> String {
            // The 21st birthday is `offset` days from the verification day (negative: still to come).
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let verificationDay = calendar.date(from: DateComponents(year: today[0], month: today[1], day: today[2]))!
            let birthday = calendar.date(byAdding: .day, value: -offset, to: verificationDay)!
            let birth = calendar.date(byAdding: .year, value: -21, to: birthday)!
            return String(RFC3339.format(birth).prefix(10))
        }
        for (offset, expected) in [(-1, false), (0, true), (1, true)] {
            let date = birthDate(daysFromBirthday: offset)
            // A driving licence sends a full-date; a photo ID (ISO 23220) a map holding one.
            for document in [IdentityRequestDescriptor.DocumentKind.driversLicense, .photoID] {
                let request = IdentityRequestDescriptor(
                    document: document,
                    elements: [.init(.age, atLeast: 21, intentToStore: .willNotStore), .init(.dateOfBirth, intentToStore: .willNotStore)])
                let created = try await sessions.create(descriptor: request, now: time)
                var fixture = MdocFixture()
                // The MSO was signed and became valid 30 days before the verification day, so an
                // age computed at validFrom (not at the verification time) would differ at the boundary.
                fixture.signed = time.addingTimeInterval(-30 * 86_400)
                fixture.validFrom = fixture.signed
                if document == .photoID {
                    fixture.docType = "org.iso.23220.photoid.1"
                    fixture.elements = [
                        MdocFixture.Element(IdentityElement.photoIDNameSpace, "birth_date", try .map(["birth_date": .tagged(1004, .text(date))]))
                    ]
                } else {
                    fixture.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "birth_date", .tagged(1004, .text(date)))]
                }
                let result = await sessions.verify(
                    requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki, fixture: fixture),
                    context: .at(time))
                let claims = result.claimsRegardlessOfVerdict
                #expect(claims?.ageAtLeast?.value == expected, "\(document) birthday offset \(offset)")
                #expect(claims?.ageAtLeast?.source == "birth_date")
                #expect(claims?.dateOfBirth?.description == date, "\(document)")
                #expect(claims?.json.contains(#""dateOfBirth":{"value":"\#(date)""#) == true, "\(document)")
                #expect(
                    result.report.verdict == (expected ? .accepted : .rejected),
                    "\(document) birthday offset \(offset): \(result.report.failures.map(\.message))")
            }
        }
    }

    /// Personal data only for an accepted verdict, in the library too: a rejected response's
    /// documents and claims are not in `documents`/`claims`, only in the diagnostics accessors.
    @Test func aRejectedResultHoldsNoElements() async throws {
        let (sessions, recipient, pki) = try setup()
        let created = try await sessions.create(descriptor: Self.descriptor, now: time)
        var tampered = MdocFixture()
        tampered.tamperedElement = "family_name"
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki, fixture: tampered),
            context: .at(time))
        #expect(result.report.verdict == .rejected)
        #expect(result.documents.isEmpty && result.claims == nil)
        #expect(result.documentsRegardlessOfVerdict.first?.docType == MdocFixture.mDL)
        #expect(result.claimsRegardlessOfVerdict != nil)
        let good = try await sessions.create(descriptor: Self.descriptor, now: time)
        let accepted = await sessions.verify(
            requestID: good.requestID, encryptedData: try response(for: good, recipient: recipient, pki: pki, fixture: MdocFixture()),
            context: .at(time))
        #expect(accepted.report.verdict == .accepted)
        #expect(accepted.documents.count == 1 && accepted.claims != nil)
    }

    @Test func simulatorStyleResponseIsNeverAcceptedInProduction() async throws {
        let (sessions, recipient, pki) = try setup()
        let created = try await sessions.create(descriptor: Self.descriptor, now: time)
        var simulator = MdocFixture()
        simulator.simulatorStyle = true
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try response(for: created, recipient: recipient, pki: pki, fixture: simulator),
            context: .at(time))
        #expect(result.report.verdict == .rejected)
        #expect(result.report.check(.mdocIssuerSignature)?.reason == "missingCertificateChain")
        #expect(result.report.check(.mdocDeviceAuthentication)?.reason == "deviceSignatureInvalid")
    }

    @Test func envelopeFailures() async throws {
        let recipient = P256.KeyAgreement.PrivateKey()
        let nonce = Array(repeating: UInt8(3), count: 32)
        let verifier = AppleIdentityVerifier(
            keyRing: IdentityKeyRing([recipient]), merchantID: merchant, teamID: team, trustStore: IACATrustStore(),
            revocation: .off(because: "not under test"))
        func check(_ fixture: IdentityEnvelopeFixture, plaintext: [UInt8]? = nil) async throws -> VerificationReport {
            let bytes =
                try plaintext.map {
                    try fixture.envelope(plaintext: $0, recipient: recipient.publicKey, nonce: nonce, merchantID: merchant, teamID: team)
                }
                ?? fixture.envelope(
                    deviceResponse: Array(try CBORNode.map(["version": .text("1.0"), "status": .unsigned(0)]).encodedBytes),
                    recipient: recipient.publicKey, nonce: nonce, merchantID: merchant, teamID: team)
            return await verifier.verify(encryptedData: bytes, nonce: nonce, context: .at(time)).report
        }
        var algorithm = IdentityEnvelopeFixture()
        algorithm.algorithm = "APPLE-HPKE-v2"
        #expect(try await check(algorithm).check(.identityEnvelopeStructure)?.reason == "unsupportedAlgorithm")
        var mode = IdentityEnvelopeFixture()
        mode.mode = 1
        #expect(try await check(mode).check(.identityEnvelopeStructure)?.reason == "unsupportedMode")
        var info = IdentityEnvelopeFixture()
        info.infoHashOverride = Array(repeating: 0, count: 32)
        #expect(try await check(info).check(.identityEnvelopeTranscript)?.reason == "infoHashMismatch")
        var topic = IdentityEnvelopeFixture()
        topic.topicKey = "other"
        #expect(try await check(topic).check(.identityPlaintextStructure)?.reason == "missingField")
        #expect(try await check(IdentityEnvelopeFixture(), plaintext: [0x01]).check(.identityPlaintextStructure)?.reason == "typeMismatch")
        #expect(try await check(IdentityEnvelopeFixture()).check(.identityPlaintextStructure)?.reason == "documentCount")
        // Garbage and truncation never crash.
        for input: [UInt8] in [[], [0xa0], [0xff], Array(repeating: 0x9f, count: 5000)] {
            let report = await verifier.verify(encryptedData: input, nonce: nonce, context: .at(time)).report
            #expect(report.verdict == .rejected)
            #expect(report.check(.identityEnvelopeStructure)?.status == .failed)
        }
        // A flipped ciphertext byte fails decryption.
        var bytes = try IdentityEnvelopeFixture().envelope(
            plaintext: [0xa0], recipient: recipient.publicKey, nonce: nonce, merchantID: merchant, teamID: team)
        let data = try CBORDecoder.decode(bytes).map()["data"]!.bytesValue!
        bytes[data.endIndex - 1] ^= 1
        #expect(
            await verifier.verify(encryptedData: bytes, nonce: nonce, context: .at(time)).report.check(.identityEnvelopeDecryption)?.reason
                == "decryptionFailed")
    }
}

@Suite struct RedactionTests {
    @Test func keysAndNoncesStayOutOfDescriptions() async throws {
        let key = P256.KeyAgreement.PrivateKey()
        let ring = IdentityKeyRing([key])
        let text = String(describing: ring) + String(reflecting: ring.keys[0])
        #expect(!text.contains(Hex.encode(key.rawRepresentation)))
        let sessions = IdentityRequestSessions(
            store: InMemoryReplayStore(),
            verifier: AppleIdentityVerifier(
                keyRing: ring, merchantID: "m", teamID: "t", trustStore: IACATrustStore(), revocation: .off(because: "not under test")))
        let created = try await sessions.create(
            descriptor: IdentityRequestDescriptor(document: .driversLicense, elements: [.init(.givenName, intentToStore: .willNotStore)]),
            now: Date(timeIntervalSince1970: 0))
        #expect(!String(describing: created).contains(Hex.encode(created.nonce)))
    }
}
