import Foundation
import MdocVerifier
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport

@testable import WalletIdentity

/// PassKit's elements, their mdoc identifiers per document profile, and whole verifications of
/// driver's licence, photo ID and Japanese national ID responses that use them.
@Suite struct ElementMappingTests {
    let base = RequestSessionTests()
    static let aamva = IdentityElement.aamvaNameSpace
    static let iso = IdentityElement.isoNameSpace
    static let iso23220 = IdentityElement.photoIDNameSpace
    static let jp = IdentityElement.japanNameSpace

    func pairs(_ element: IdentityElement, _ document: IdentityRequestDescriptor.DocumentKind, _ docType: String) -> [String] {
        element.identifiers(for: document, docType: docType).map { "\($0.nameSpace)/\($0.identifier)" }
    }

    @Test func everyPassKitElementIsKnown() throws {
        let names = Set(IdentityElement.allCases.map(\.rawValue))
        for name in [
            "givenName", "familyName", "portrait", "address", "dateOfBirth", "age", "documentNumber", "issuingAuthority",
            "documentIssueDate", "documentExpirationDate", "drivingPrivileges", "documentDHSComplianceStatus", "sex",
            "height", "weight", "eyeColor", "hairColor", "organDonorStatus", "veteranStatus", "dhsTemporaryLawfulStatus", "nationality",
        ] {
            #expect(names.contains(name), "\(name)")
        }
        // Every element can be requested from a driver's licence.
        for element in IdentityElement.allCases {
            #expect(!element.identifiers(for: .driversLicense).isEmpty, "\(element)")
        }
    }

    @Test func mappingsFollowTheStandardsAndApplesTables() {
        let mDL = "org.iso.18013.5.1.mDL", photo = "org.iso.23220.photoid.1", mnc = "org.iso.23220.1.jp.mnc"
        #expect(pairs(.height, .driversLicense, mDL) == ["\(Self.iso)/height"])
        #expect(pairs(.eyeColor, .driversLicense, mDL) == ["\(Self.iso)/eye_colour"])
        #expect(pairs(.hairColor, .driversLicense, mDL) == ["\(Self.iso)/hair_colour"])
        #expect(pairs(.organDonorStatus, .driversLicense, mDL) == ["\(Self.aamva)/organ_donor"])
        #expect(pairs(.veteranStatus, .driversLicense, mDL) == ["\(Self.aamva)/veteran"])
        #expect(pairs(.dhsTemporaryLawfulStatus, .driversLicense, mDL) == ["\(Self.aamva)/DHS_temporary_lawful_status"])
        #expect(pairs(.givenName, .driversLicense, mDL).contains("\(Self.aamva)/given_name_truncation"))
        #expect(pairs(.issuingAuthority, .driversLicense, mDL).contains("\(Self.iso)/issuing_jurisdiction"))
        #expect(pairs(.drivingPrivileges, .driversLicense, mDL).contains("\(Self.aamva)/domestic_driving_privileges"))
        #expect(pairs(.drivingPrivileges, .nationalIDCard, mDL).isEmpty)
        // Photo ID: ISO 23220-1 names, address included.
        #expect(pairs(.address, .photoID, photo).contains("\(Self.iso23220)/resident_address_unicode"))
        #expect(pairs(.issuingAuthority, .photoID, photo).contains("\(Self.iso23220)/issuing_subdivision"))
        #expect(pairs(.sex, .photoID, photo).contains("\(Self.iso23220)/sex_unicode"))
        #expect(pairs(.nationality, .photoID, photo) == ["\(Self.iso23220)/nationality"])
        #expect(pairs(.height, .photoID, photo).isEmpty)
        // Japan's My Number Card: names, portrait and address in the JP namespace.
        #expect(pairs(.givenName, .nationalIDCard, mnc).contains("\(Self.jp)/full_name_unicode"))
        #expect(pairs(.familyName, .nationalIDCard, mnc).contains("\(Self.jp)/full_name_unicode"))
        #expect(pairs(.address, .nationalIDCard, mnc).contains("\(Self.jp)/resident_address_unicode"))
        #expect(IdentityElement.ageNameSpace(docType: mnc) == Self.iso23220)
        // A docType the descriptor does not allow maps to nothing.
        #expect(pairs(.givenName, .photoID, mDL).isEmpty)
        #expect(pairs(.givenName, .driversLicense, mnc).isEmpty)
    }

    /// docs/identity-elements.md lists exactly the identifiers the code maps, per docType.
    @Test func theDocumentedTableMatchesTheCode() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/identity-elements.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let abbreviations = [Self.iso: "iso", Self.aamva: "aamva", Self.iso23220: "23220", Self.jp: "jp"]
        let columns: [(IdentityRequestDescriptor.DocumentKind, String)] = [
            (.driversLicense, "org.iso.18013.5.1.mDL"), (.photoID, "org.iso.23220.photoid.1"), (.nationalIDCard, "org.iso.23220.1.jp.mnc"),
        ]
        for element in IdentityElement.allCases {
            let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `\(element.rawValue)` |") }, "\(element)")
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(cells.count == 4, "\(row)")
            for (index, (document, docType)) in columns.enumerated() {
                let cell = cells[index + 1]
                // "iso `a`, `b`; aamva `c`" → ["iso/a", "iso/b", "aamva/c"]
                var documented: [String] = []
                for group in cell.split(separator: ";") {
                    let words = group.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
                    guard words.count == 2 else { continue }
                    for name in words[1].split(separator: "`")
                    where !name.contains(",") && !name.trimmingCharacters(in: .whitespaces).isEmpty && !name.contains("(") {
                        documented.append("\(words[0])/\(name)")
                    }
                }
                let mapped = element.identifiers(for: document, docType: docType).map { "\(abbreviations[$0.nameSpace]!)/\($0.identifier)" }
                #expect(documented == mapped, "\(element) in \(docType): documented \(documented), mapped \(mapped)")
            }
        }
    }

    @Test(arguments: [
        (
            #"{"document": "photoID", "elements": [{"element": "eyeColor", "intentToStore": "willNotStore"}]}"#,
            "eyeColor cannot be requested from a photoID"
        ),
        (
            #"{"document": "nationalIDCard", "elements": [{"element": "drivingPrivileges", "intentToStore": "willNotStore"}]}"#,
            "drivingPrivileges cannot be requested from a nationalIDCard"
        ),
    ])
    func unsupportedCombinationsAreUsageErrors(_ json: String, _ expected: String) {
        #expect(throws: DescriptorError.self) { try IdentityRequestDescriptor.decode(json: Data(json.utf8)) }
        do { _ = try IdentityRequestDescriptor.decode(json: Data(json.utf8)) } catch { #expect("\(error)".contains(expected), "\(error)") }
    }

    @Test func photoIDAddressAndNationalityDecode() throws {
        let descriptor = try IdentityRequestDescriptor.decode(
            json: Data(
                #"{"document": "photoID", "elements": [{"element": "address", "intentToStore": "willNotStore"}, {"element": "nationality", "intentToStore": "mayStore"}]}"#
                    .utf8))
        #expect(descriptor.elements.map(\.element) == [.address, .nationality])
    }

    @Test func aDriversLicenceAnswersTheNewerElementsTyped() async throws {
        let (sessions, recipient, pki) = try base.setup()
        let request = IdentityRequestDescriptor(
            document: .driversLicense,
            elements: [
                .init(.height, intentToStore: .willNotStore), .init(.weight, intentToStore: .willNotStore),
                .init(.eyeColor, intentToStore: .willNotStore), .init(.hairColor, intentToStore: .willNotStore),
                .init(.organDonorStatus, intentToStore: .willNotStore), .init(.veteranStatus, intentToStore: .mayStore),
                .init(.dhsTemporaryLawfulStatus, intentToStore: .willNotStore), .init(.nationality, intentToStore: .mayStoreDays(7)),
                .init(.documentDHSComplianceStatus, intentToStore: .willNotStore), .init(.givenName, intentToStore: .willNotStore),
            ])
        var fixture = MdocFixture()
        fixture.elements = [
            .init(Self.iso, "height", .int(178)), .init(Self.iso, "weight", .int(70)), .init(Self.aamva, "weight_range", .int(4)),
            .init(Self.iso, "eye_colour", .text("blue")), .init(Self.iso, "hair_colour", .text("brown")),
            .init(Self.aamva, "organ_donor", .int(1)), .init(Self.aamva, "veteran", .int(1)),
            .init(Self.aamva, "DHS_temporary_lawful_status", .int(1)), .init(Self.iso, "nationality", .text("US")),
            .init(Self.aamva, "DHS_compliance", .text("F")),
            .init(Self.iso, "given_name", .text("Erika")), .init(Self.aamva, "given_name_truncation", .text("N")),
        ]
        let created = try await sessions.create(descriptor: request, now: base.time)
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try base.response(for: created, recipient: recipient, pki: pki, fixture: fixture),
            context: .at(base.time))
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")
        let claims = try #require(result.claims)
        #expect(claims.heightCentimetres == 178)
        #expect(claims.weightKilograms == 70)
        #expect(claims.claim(.weight)?.values.count == 2)
        #expect(claims.eyeColor == "blue")
        #expect(claims.hairColor == "brown")
        #expect(claims.organDonor == true)
        #expect(claims.veteran == true)
        #expect(claims.claim(.veteranStatus)?.intentToStore == .mayStore)
        #expect(claims.dhsTemporaryLawfulStatus == true)
        #expect(claims.dhsCompliance == "F")
        #expect(claims.nationality == "US")
        #expect(claims.claim(.nationality)?.intentToStore == .mayStoreDays(7))
        #expect(claims.givenName == "Erika")
        #expect(claims.json.contains(#""eyeColor":{"value":"blue","intentToStore":"willNotStore"}"#))

        // Without eyeColor in the request, the same response carries an unrequested element.
        let narrower = IdentityRequestDescriptor(document: .driversLicense, elements: request.elements.filter { $0.element != .eyeColor })
        let again = try await sessions.create(descriptor: narrower, now: base.time)
        let rejected = await sessions.verify(
            requestID: again.requestID, encryptedData: try base.response(for: again, recipient: recipient, pki: pki, fixture: fixture),
            context: .at(base.time))
        #expect(rejected.report.check(.identityRequestElements)?.reason == "unrequestedElement")
        #expect(rejected.report.check(.identityRequestElements)?.details["unrequested"] == "\(Self.iso)/eye_colour")
    }

    @Test func aPhotoIDAnswersAddressAndAgeFromISO23220() async throws {
        let (sessions, recipient, pki) = try base.setup()
        let request = IdentityRequestDescriptor(
            document: .photoID,
            elements: [
                .init(.address, intentToStore: .willNotStore), .init(.familyName, intentToStore: .willNotStore),
                .init(.age, atLeast: 18, intentToStore: .willNotStore), .init(.sex, intentToStore: .willNotStore),
            ])
        var fixture = MdocFixture()
        fixture.docType = "org.iso.23220.photoid.1"
        fixture.elements = [
            .init(Self.iso23220, "resident_address_unicode", .text("1 Infinite Loop")),
            .init(Self.iso23220, "resident_city_unicode", .text("Cupertino")),
            .init(Self.iso23220, "resident_postal_code", .text("95014")), .init(Self.iso23220, "resident_country", .text("US")),
            .init(Self.iso23220, "family_name_unicode", .text("Müller")), .init(Self.iso23220, "family_name_latin1", .text("Muller")),
            .init(Self.iso23220, "age_over_18", .bool(true)), .init(Self.iso23220, "sex", .int(2)),
        ]
        let created = try await sessions.create(descriptor: request, now: base.time)
        let result = await sessions.verify(
            requestID: created.requestID, encryptedData: try base.response(for: created, recipient: recipient, pki: pki, fixture: fixture),
            context: .at(base.time))
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")
        let claims = try #require(result.claims)
        #expect(claims.familyName == "Müller")
        #expect(claims.claim(.address)?.values.count == 4)
        #expect(claims.sex == 2)
        #expect(claims.ageAtLeast?.source == "age_over_18")
        #expect(claims.ageAtLeast?.value == true)
    }

    /// ISO/IEC 23220-2's approximate_mask: an age request is decided from a birth date only when
    /// every date the mask allows gives the same answer; age_birth_year settles an approximate year;
    /// the claim keeps the mask.
    @Test func anApproximateBirthDateDecidesAnAgeOnlyWhenCertain() async throws {
        let (sessions, recipient, pki) = try base.setup()
        // base.time is 2023-11-14.
        func verify(_ elements: [MdocFixture.Element], dateOfBirth: Bool = false) async throws -> IdentityVerificationResult {
            var requested: [IdentityRequestDescriptor.Element] = [.init(.age, atLeast: 21, intentToStore: .willNotStore)]
            if dateOfBirth { requested.append(.init(.dateOfBirth, intentToStore: .willNotStore)) }
            let request = IdentityRequestDescriptor(document: .photoID, elements: requested)
            var fixture = MdocFixture()
            fixture.docType = "org.iso.23220.photoid.1"
            fixture.elements = elements
            let created = try await sessions.create(descriptor: request, now: base.time)
            return await sessions.verify(
                requestID: created.requestID, encryptedData: try base.response(for: created, recipient: recipient, pki: pki, fixture: fixture),
                context: .at(base.time))
        }
        func birth(_ date: String, mask: String?) throws -> MdocFixture.Element {
            var entries: [(CBORNode, CBORNode)] = [(.text("birth_date"), .tagged(1004, .text(date)))]
            if let mask { entries.append((.text("approximate_mask"), .text(mask))) }
            return .init(Self.iso23220, "birth_date", try .map(entries))
        }
        // 2002-11-10 with an approximate day: 21 if born on the 1st–14th, 20 after. Read as exact it
        // would answer "yes".
        let open = try await verify([try birth("2002-11-10", mask: "00000011")])
        #expect(open.report.check(.identityRequestAge)?.reason == "ageNotAnswered", "\(open.report.checks.map(\.message))")
        #expect(open.report.check(.identityRequestAge)?.message.contains("approximate") == true)
        #expect(open.report.verdict == .rejected)
        // The same date, exact: "yes".
        #expect(try await verify([try birth("2002-11-10", mask: "00000000")]).report.check(.identityRequestAge)?.status == .passed)
        // Any day of October 2002: 21 whatever the day.
        let october = try await verify([try birth("2002-10-10", mask: "00000011")])
        #expect(october.report.check(.identityRequestAge)?.status == .passed)
        #expect(october.claims?.ageAtLeast?.source == "birth_date")
        // Any day of any month of 2003: under 21 whatever the date.
        #expect(try await verify([try birth("2003-06-15", mask: "00001111")]).report.check(.identityRequestAge)?.reason == "ageBelowMinimum")
        // Any year 2000–2009: open, unless age_birth_year settles it (2001: 21 or 22 now).
        #expect(try await verify([try birth("2001-06-15", mask: "00011111")]).report.check(.identityRequestAge)?.reason == "ageNotAnswered")
        let settled = try await verify([try birth("2001-06-15", mask: "00011111"), .init(Self.iso23220, "age_birth_year", .int(2001))])
        #expect(settled.report.check(.identityRequestAge)?.status == .passed, "\(settled.report.failures.map(\.message))")
        #expect(settled.claims?.ageAtLeast?.source == "birth_date+age_birth_year")
        // age_birth_year alone: 2002 leaves 20 or 21 open; 2001 decides.
        #expect(try await verify([.init(Self.iso23220, "age_birth_year", .int(2002))]).report.check(.identityRequestAge)?.reason == "ageNotAnswered")
        let byYear = try await verify([.init(Self.iso23220, "age_birth_year", .int(2001))])
        #expect(byYear.report.check(.identityRequestAge)?.status == .passed)
        #expect(byYear.claims?.ageAtLeast?.source == "age_birth_year")
        // A mask that is not 8 '0'/'1' decides nothing (and photoid.elements names it).
        let malformed = try await verify([try birth("1990-01-01", mask: "0000")])
        #expect(malformed.report.check(.identityRequestAge)?.reason == "ageNotAnswered")
        #expect(malformed.report.check(.photoIDElements, scope: "document[0]")?.details["elements"] == "birth_date")
        // The date-of-birth claim keeps the mask.
        let claimed = try await verify([try birth("2002-10-10", mask: "00000011")], dateOfBirth: true)
        let claims = try #require(claimed.claims)
        #expect(claims.dateOfBirthApproximateMask == "00000011")
        #expect(claims.json.contains(#""dateOfBirth":{"value":"2002-10-10","approximateMask":"00000011","intentToStore":"willNotStore"}"#))
        let exact = try #require(try await verify([.init(Self.iso23220, "birth_date", .tagged(1004, .text("2002-10-10")))], dateOfBirth: true).claims)
        #expect(exact.dateOfBirthApproximateMask == nil)
        #expect(exact.json.contains(#""dateOfBirth":{"value":"2002-10-10","intentToStore":"willNotStore"}"#))
    }

    @Test func aJapaneseNationalIDAnswersFromTheJPNamespace() async throws {
        let (sessions, recipient, pki) = try base.setup()
        let request = IdentityRequestDescriptor(
            document: .nationalIDCard,
            elements: [
                .init(.givenName, intentToStore: .willNotStore), .init(.familyName, intentToStore: .willNotStore),
                .init(.address, intentToStore: .willNotStore), .init(.portrait, intentToStore: .willNotStore),
                .init(.age, atLeast: 20, intentToStore: .willNotStore),
            ])
        var fixture = MdocFixture()
        fixture.docType = "org.iso.23220.1.jp.mnc"
        fixture.elements = [
            .init(Self.jp, "full_name_unicode", .text("山田 太郎")), .init(Self.jp, "resident_address_unicode", .text("東京都千代田区")),
            .init(Self.jp, "portrait", .bytes([0xff, 0xd8, 0xff, 0xe0, 9])), .init(Self.iso23220, "age_over_20", .bool(true)),
        ]
        let created = try await sessions.create(descriptor: request, now: base.time)
        let envelope = try base.response(for: created, recipient: recipient, pki: pki, fixture: fixture)
        let result = await sessions.verify(requestID: created.requestID, encryptedData: envelope, context: .at(base.time))
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")
        let claims = try #require(result.claims)
        #expect(claims.givenName == "山田 太郎")
        #expect(claims.claim(.givenName)?.values.first?.source == "\(Self.jp)/full_name_unicode")
        #expect(claims.portrait == [0xff, 0xd8, 0xff, 0xe0, 9])
        #expect(claims.ageAtLeast?.source == "age_over_20")

        // The same card asked only for the name: the address is unrequested.
        let nameOnly = IdentityRequestDescriptor(document: .nationalIDCard, elements: [.init(.givenName, intentToStore: .willNotStore)])
        let again = try await sessions.create(descriptor: nameOnly, now: base.time)
        let rejected = await sessions.verify(
            requestID: again.requestID, encryptedData: try base.response(for: again, recipient: recipient, pki: pki, fixture: fixture),
            context: .at(base.time))
        #expect(rejected.report.verdict == .rejected)
        let unrequested = rejected.report.check(.identityRequestElements)?.details["unrequested"] ?? ""
        #expect(unrequested.contains("\(Self.jp)/resident_address_unicode"))
        #expect(!unrequested.contains("full_name_unicode"))
    }
}
