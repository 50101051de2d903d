import Foundation
import Testing
import WalletVerifierTestSupport

/// What one request creation may ask for and store, against a real `serve` process: elements per
/// docType (`--max-request-elements`), the stored size of a session (`--max-request-session-bytes`),
/// the ISO/IEC 18013-5 data identifier form of every docType, namespace and element identifier, and
/// the docTypes the service signs requests for (`--web-doctypes`, or the scoped trust roots).
@Suite(.serialized) struct RequestCapsProcessTests {
    static let mDL = "org.iso.18013.5.1.mDL"
    static let photoID = "org.iso.23220.photoid.1"

    /// `serve` on the fixture, with a reader key: web requests are signed (reader authentication and
    /// a signed OpenID4VP request), so what a caller gets refused is what would have been signed.
    static func signingService(_ fixture: ServiceFixture, arguments: [String]? = nil, environment: [String: String] = [:]) async throws
        -> ServiceInstance
    {
        var options = ReaderPKI.Options()
        options.intermediate = true
        let reader = try ReaderPKI(options)
        let key = fixture.directory.appendingPathComponent("reader-key.pem").path
        try Data(reader.readerKeyPEM.utf8).write(to: URL(fileURLWithPath: key))
        let chain = fixture.directory.appendingPathComponent("reader.pem").path
        try Data((ReaderPKI.pem(reader.reader) + ReaderPKI.pem(reader.intermediate!)).utf8).write(to: URL(fileURLWithPath: chain))
        let base = arguments ?? (["--store", "memory"] + fixture.serveArguments)
        return try await ServiceInstance(arguments: base + ["--reader-key", key, "--reader-cert", chain], environment: environment)
    }

    static func webRequest(_ instance: ServiceInstance, _ fixture: ServiceFixture, docType: String = mDL, elements: [String]) async throws -> (
        status: Int, body: [String: Any]
    ) {
        try await instance.post("/v1/web/requests", ["docType": docType, "origin": fixture.webOrigin, "elements": elements])
    }

    static func detail(_ body: [String: Any]) -> String { body["detail"] as? String ?? "" }

    static func descriptor(elements count: Int) -> [String: Any] {
        ["document": "driversLicense", "elements": Array(repeating: ["element": "givenName", "intentToStore": "willNotStore"], count: count)]
    }

    // MARK: One request may store megabytes

    @Test func aWebRequestForThousandsOfElementsIsRefusedBeforeItIsSigned() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await Self.signingService(fixture)
        defer { service.stop() }
        // 3,500 elements of 250-character identifiers: just under the 1 MiB body limit.
        let many = (0..<3_500).map { "org.iso.18013.5.1/e\($0)_" + String(repeating: "x", count: 240) }
        let refused = try await Self.webRequest(service, fixture, elements: many)
        #expect(refused.status == 400, "\(refused.body)")
        let detail = Self.detail(refused.body)
        #expect(detail.hasPrefix("/elements: "), "\(detail)")
        #expect(detail.contains("64") && detail.contains("--max-request-elements"), "\(detail)")
        // One past the default cap is refused, the cap itself is not.
        let names = (0..<65).map { "org.iso.18013.5.1/element_\($0)" }
        #expect(try await Self.webRequest(service, fixture, elements: names).status == 400)
        let atCap = try await Self.webRequest(service, fixture, elements: Array(names.prefix(64)))
        #expect(atCap.status == 201, "\(atCap.body)")
    }

    @Test func aWebRequestSessionLargerThanTheStoredSizeCapIsRefused() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        // An operator allows many elements; the stored size still bounds one session.
        let service = try await Self.signingService(fixture, environment: ["WALLET_VERIFIER_MAX_REQUEST_ELEMENTS": "1000"])
        defer { service.stop() }
        let names = (0..<1_000).map { "org.iso.18013.5.1/element_\($0)_" + String(repeating: "x", count: 100) }
        let refused = try await Self.webRequest(service, fixture, elements: names)
        #expect(refused.status == 400, "\(refused.body)")
        let detail = Self.detail(refused.body)
        #expect(detail.hasPrefix("/elements: "), "\(detail)")
        #expect(detail.contains("--max-request-session-bytes") && detail.contains("131072"), "\(detail)")
    }

    @Test func anInAppRequestForMoreElementsThanTheCapIsRefused() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await ServiceInstance(arguments: ["--store", "memory"] + fixture.serveArguments)
        defer { service.stop() }
        let refused = try await service.post("/v1/identity/requests", ["descriptor": Self.descriptor(elements: 5_000)])
        #expect(refused.status == 400, "\(refused.body)")
        let detail = Self.detail(refused.body)
        #expect(detail.hasPrefix("/descriptor/elements: "), "\(detail)")
        #expect(detail.contains("64") && detail.contains("--max-request-elements"), "\(detail)")
        #expect(try await service.post("/v1/identity/requests", ["descriptor": Self.descriptor(elements: 65)]).status == 400)
        #expect(try await service.post("/v1/identity/requests", ["descriptor": Self.descriptor(elements: 64)]).status == 201)
    }

    @Test func anInAppRequestWhoseSessionBindingWouldStoreTooMuchIsRefused() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await ServiceInstance(arguments: ["--store", "memory"] + fixture.serveArguments)
        defer { service.stop() }
        let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
        let binding = String(repeating: "b", count: 900_000)
        let refused = try await service.post("/v1/identity/requests", ["descriptor": descriptor, "sessionBinding": binding])
        #expect(refused.status == 400, "\(refused.body)")
        let detail = Self.detail(refused.body)
        #expect(detail.hasPrefix("/sessionBinding: "), "\(detail)")
        #expect(detail.contains("--max-request-session-bytes") && detail.contains("131072"), "\(detail)")
        let bound = try await service.post("/v1/identity/requests", ["descriptor": descriptor, "sessionBinding": "session-1234"])
        #expect(bound.status == 201, "\(bound.body)")
    }

    // MARK: The signed request says whatever a caller asks

    @Test func aSignedWebRequestNamesOnlyISODataIdentifiers() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await Self.signingService(fixture)
        defer { service.stop() }
        let family = "org.iso.18013.5.1/family_name"
        // A right-to-left override, a zero-width space, a non-ASCII letter and an over-long name.
        let docTypes = [
            "org.iso.18013.5.1.mDL\u{202E}LDm", "org.iso.18013.5.1.\u{200B}mDL", "org.iso.18013.5.1.mDL\u{00E9}", String(repeating: "d", count: 129),
        ]
        for docType in docTypes {
            let refused = try await Self.webRequest(service, fixture, docType: docType, elements: [family])
            #expect(refused.status == 400, "\(docType.unicodeScalars.map(\.value)): \(refused.body)")
            #expect(Self.detail(refused.body).hasPrefix("/docType: "), "\(refused.body)")
            #expect(Self.detail(refused.body).contains("0x21") && Self.detail(refused.body).contains("128"), "\(refused.body)")
        }
        let elements = [
            "org.iso.18013.5.1/family\u{202E}eman", "org.iso.18013.5.1/given\u{200B}name", "org.iso\u{2060}.18013.5.1/age_over_21",
            "org.iso.18013.5.1/" + String(repeating: "i", count: 129),
        ]
        for element in elements {
            let refused = try await Self.webRequest(service, fixture, elements: [family, element])
            #expect(refused.status == 400, "\(element.unicodeScalars.map(\.value)): \(refused.body)")
            #expect(Self.detail(refused.body).hasPrefix("/elements/1: "), "\(refused.body)")
        }
        let signed = try await Self.webRequest(
            service, fixture, elements: [family, "org.iso.18013.5.1/" + String(repeating: "i", count: 128)])
        #expect(signed.status == 201, "\(signed.body)")
        #expect((signed.body["protocols"] as? [String])?.contains("openid4vp-v1-signed") == true, "\(signed.body)")
    }

    @Test func aWebRequestForADocTypeOutsideTheAllowListIsRefused() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await Self.signingService(fixture, environment: ["WALLET_VERIFIER_WEB_DOCTYPES": Self.mDL])
        defer { service.stop() }
        let refused = try await Self.webRequest(service, fixture, docType: Self.photoID, elements: ["org.iso.23220.1/family_name_unicode"])
        #expect(refused.status == 400, "\(refused.body)")
        let detail = Self.detail(refused.body)
        #expect(detail.hasPrefix("/docType: ") && detail.contains(Self.mDL) && detail.contains("--web-doctypes"), "\(detail)")
        #expect(try await Self.webRequest(service, fixture, elements: ["org.iso.18013.5.1/family_name"]).status == 201)
    }

    @Test func withOnlyScopedTrustRootsTheServiceSignsRequestsForTheirDocTypesOnly() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        // No --trust and no --vical: only mDLs can ever verify here.
        let arguments = [
            "--store", "memory", "--identity-key", fixture.identityKeyPath, "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID,
            "--trust-doctype", "\(Self.mDL)=\(fixture.iacaPath)", "--web-key", fixture.webKeyPath, "--web-origin", fixture.webOrigin,
        ]
        let service = try await Self.signingService(fixture, arguments: arguments)
        defer { service.stop() }
        let refused = try await Self.webRequest(service, fixture, docType: Self.photoID, elements: ["org.iso.23220.1/family_name_unicode"])
        #expect(refused.status == 400, "\(refused.body)")
        let detail = Self.detail(refused.body)
        #expect(detail.hasPrefix("/docType: ") && detail.contains(Self.mDL) && detail.contains("--trust-doctype"), "\(detail)")
        #expect(try await Self.webRequest(service, fixture, elements: ["org.iso.18013.5.1/family_name"]).status == 201)
    }
}
