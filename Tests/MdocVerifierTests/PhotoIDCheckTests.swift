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

@Suite struct PhotoIDTests {
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)
    let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: "https://verifier.example")

    /// Verifies a passport through the IACA trusted for the photo ID docType (a passport needs a
    /// scoped root), or through `trustStore` when given.
    func verify(_ fixture: PhotoIDFixture, pki: MdocPKI? = nil, trustStore: IACATrustStore? = nil) async throws -> PassportVerificationResult {
        let pki = try pki ?? MdocPKI()
        let bytes = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let store = trustStore ?? IACATrustStore(certificates: [pki.iaca], docTypes: [PhotoIDFixture.docType])
        return await PassportVerifier(trustStore: store, revocation: .off(because: "not under test")).verify(
            deviceResponse: bytes, transcript: transcript, context: .at(time))
    }

    /// Seed 002: "Ensure that there's a valid X.509 chain of trust to the Apple Issuing Authority
    /// Certificate Authority (IACA)". A root trusted for any docType (`--trust`, a state DMV's) does
    /// not vouch for a passport; a root scoped to the photo ID docType does.
    @Test func aPassportNeedsARootScopedToItsDocType() async throws {
        let pki = try MdocPKI()
        let unscoped = try await verify(PhotoIDFixture(), pki: pki, trustStore: IACATrustStore(certificates: [pki.iaca]))
        let chain = try #require(unscoped.report.check(.mdocIssuerChain))
        #expect(chain.status == .failed)
        #expect(chain.reason == .rootNotScopedForDocType)
        #expect(chain.message.contains("--trust-doctype org.iso.23220.photoid.1=PATH"))
        #expect(unscoped.report.verdict == .rejected)
        // Another root scoped to the photo ID beside it does not help: the signer's own root must be.
        let other = try MdocPKI()
        var mixed = IACATrustStore(certificates: [pki.iaca])
        mixed.add(other.iaca, docTypes: [PhotoIDFixture.docType])
        #expect(try await verify(PhotoIDFixture(), pki: pki, trustStore: mixed).report.check(.mdocIssuerChain)?.reason == .rootNotScopedForDocType)
        // A pinned document signer given with --trust is not scoped either.
        let pinned = try await verify(PhotoIDFixture(), pki: pki, trustStore: IACATrustStore(certificates: [pki.ds]))
        #expect(pinned.report.check(.mdocIssuerChain)?.reason == .rootNotScopedForDocType)
        // Scoped (as --trust-doctype loads it): accepted.
        #expect(try await verify(PhotoIDFixture(), pki: pki).report.verdict == .accepted)
        // A licence from the same unscoped root keeps today's behaviour.
        var licence = PhotoIDFixture()
        licence.docType = MdocFixture.mDL
        let bytes = try licence.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let report = await MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca])).verify(
            deviceResponse: bytes, transcript: transcript, context: .at(time)
        ).report
        #expect(report.check(.mdocIssuerChain)?.status == .passed)
        // No root at all for a passport: the message names --trust-doctype.
        let none = try await verify(PhotoIDFixture(), pki: pki, trustStore: IACATrustStore(certificates: [other.iaca], docTypes: [MdocFixture.mDL]))
        #expect(none.report.check(.mdocIssuerChain)?.reason == "noTrustAnchor")
        #expect(none.report.check(.mdocIssuerChain)?.message.contains("--trust-doctype") == true)
    }

    /// Table B.1's pathLenConstraint 0, for a passport root: one intermediate is allowed (seed 002: its
    /// revocation lists are signed by a leaf and an intermediate CA checked against the root); an
    /// unbounded or larger one fails.
    @Test func aPassportRootMayAllowOneIntermediateOnly() async throws {
        for (length, passes) in [(0, true), (1, true), (2, false), (nil, false)] as [(Int?, Bool)] {
            var options = MdocPKI.Options()
            options.iacaPathLength = length
            let report = try await verify(PhotoIDFixture(), pki: try MdocPKI(options)).report
            let profile = try #require(report.check(.mdocIssuerCertificateProfile))
            #expect((profile.status == .passed) == passes, "\(String(describing: length)): \(profile.message)")
            if !passes { #expect(profile.message.contains("pathLenConstraint")) }
        }
    }

    @Test func everyAppleElementIsTyped() async throws {
        let result = try await verify(PhotoIDFixture())
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")
        #expect(result.report.policy == "mdoc/passport-photoid@1")
        #expect(!result.shouldRetryOrFallBack)
        let passport = try #require(result.passport)
        #expect(passport.problems.isEmpty)
        #expect(passport.familyNameUnicode == "Søndergård")
        #expect(passport.givenNameLatin1 == "Åsa")
        #expect(
            passport.birthDate == PhotoIDDocument.BirthDate(date: CBORFullDate(year: 1990, month: 7, day: 4)!, approximateMask: nil, nested: true))
        #expect(passport.portrait?.starts(with: [0xff, 0xd8]) == true)
        #expect(passport.issueDate == .fullDate(CBORFullDate(year: 2021, month: 3, day: 1)!))
        #expect(passport.expiryDate == .fullDate(CBORFullDate(year: 2031, month: 2, day: 28)!))
        #expect(passport.issuingAuthorityUnicode == "Test Passport Authority")
        #expect(passport.issuingCountry == "US")
        #expect(passport.ageInYears == 33)
        #expect(passport.ageOver == [18: true, 21: true])
        #expect(passport.ageBirthYear == 1990)
        if case .dateTime(let captured)? = passport.portraitCaptureDate {
            #expect(captured.rfc3339 == "2023-10-01T12:00:00Z")
        } else {
            Issue.record("portrait_capture_date")
        }
        #expect(passport.sex == .female)
        #expect(passport.nationality == "US")
        #expect(passport.documentNumber == "X12345678")
        #expect(!passport.description.contains("Åsa"))
    }

    @Test func aPlainFullDateBirthDateIsAcceptedToo() async throws {
        var fixture = PhotoIDFixture()
        fixture.elements = fixture.elements.map {
            $0.identifier == "birth_date" ? .init(PhotoIDFixture.nameSpace, "birth_date", .tagged(1004, .text("1990-07-04"))) : $0
        }
        let passport = try #require(try await verify(fixture).passport)
        #expect(passport.birthDate?.nested == false)
        #expect(passport.birthDate?.date == CBORFullDate(year: 1990, month: 7, day: 4))
        let masked = PhotoIDDocument(elements: [
            ("birth_date", .map([(key: "birth_date", value: .text("1990-07-04")), (key: "approximate_mask", value: .text("00001111"))]))
        ])
        #expect(masked.birthDate?.approximateMask == "00001111")
        #expect(masked.problems.isEmpty)
    }

    @Test func wronglyTypedElementsFailPhotoIDElementsWithoutShowingValues() async throws {
        var fixture = PhotoIDFixture()
        let ns = PhotoIDFixture.nameSpace
        fixture.elements += [
            .init(ns, "resident_city", .text("ignored: not a photo ID element we type"))
        ]
        fixture.elements = fixture.elements.map { element in
            switch element.identifier {
            case "sex": return .init(ns, "sex", .int(3))
            case "issuing_country": return .init(ns, "issuing_country", .text("USA"))
            case "given_name_latin1": return .init(ns, "given_name_latin1", .text("Ōsa"))
            case "age_over_21": return .init(ns, "age_over_21", .text("yes"))
            case "birth_date": return .init(ns, "birth_date", .int(19_900_704))
            default: return element
            }
        }
        let result = try await verify(fixture)
        let check = try #require(result.report.check(.photoIDElements, scope: "document[0]"))
        #expect(check.status == .failed)
        #expect(check.reason == "invalidElement")
        #expect(
            Set(check.details["elements"]!.split(separator: ",").map(String.init)) == [
                "sex", "issuing_country", "given_name_latin1", "age_over_21", "birth_date",
            ])
        #expect(!check.message.contains("USA") && !check.message.contains("Ōsa") && !check.message.contains("19900704"))
        #expect(result.report.verdict == .rejected)
        #expect(!result.shouldRetryOrFallBack)
    }

    @Test func issuingCountryAndNationalityMustBeAssignedISO3166Codes() async throws {
        for code in ["XX", "ZZ", "QZ", "XK"] {
            let typed = PhotoIDDocument(elements: [("issuing_country", .text(code)), ("nationality", .text(code))])
            #expect(Set(typed.problems.map(\.identifier)) == ["issuing_country", "nationality"], "\(code)")
            #expect(typed.issuingCountry == nil && typed.nationality == nil)
        }
        let real = PhotoIDDocument(elements: [("issuing_country", .text("US")), ("nationality", .text("NZ"))])
        #expect(real.problems.isEmpty)
        var fixture = PhotoIDFixture()
        fixture.elements = fixture.elements.map {
            $0.identifier == "nationality" ? .init(PhotoIDFixture.nameSpace, "nationality", .text("ZZ")) : $0
        }
        let result = try await verify(fixture)
        #expect(result.report.check(.photoIDElements, scope: "document[0]")?.details["elements"] == "nationality")
        #expect(result.report.verdict == .rejected)
    }

    @Test func anotherDocTypeIsAClearRetryOrFallBackFailure() async throws {
        var fixture = PhotoIDFixture()
        fixture.docType = MdocFixture.mDL
        let result = try await verify(fixture)
        #expect(result.report.verdict == .rejected)
        // Refused whole, before any signature, with the same advice.
        let check = try #require(result.report.check(.mdocResponseStructure))
        #expect(check.reason == "docTypeNotAccepted")
        #expect(check.message.contains("retry with the one asked for, or fall back"))
        #expect(result.report.check(.mdocDocType)?.status == .skipped)
        #expect(result.shouldRetryOrFallBack)

        let garbage = await PassportVerifier(trustStore: IACATrustStore(), revocation: .off(because: "not under test")).verify(
            deviceResponse: [0xa0], transcript: transcript, context: .at(time))
        #expect(garbage.shouldRetryOrFallBack)
        let empty = try CBORNode.map(["version": .text("1.0"), "documents": .array([]), "status": .unsigned(0)])
        let none = await PassportVerifier(trustStore: IACATrustStore(), revocation: .off(because: "not under test")).verify(
            deviceResponse: Array(empty.encodedBytes), transcript: transcript, context: .at(time))
        #expect(none.report.check(.mdocResponseStructure)?.reason == "noDocuments")
        #expect(none.shouldRetryOrFallBack)
    }

    @Test func thePassportPolicyRequiresCountryName() async throws {
        var options = MdocPKI.Options()
        options.dsCountry = nil
        options.iacaCountry = nil
        let result = try await verify(PhotoIDFixture(), pki: try MdocPKI(options))
        #expect(result.report.check(.mdocIssuerCountry)?.reason == "countryNameMissing")
        #expect(result.report.verdict == .rejected)
    }
}
