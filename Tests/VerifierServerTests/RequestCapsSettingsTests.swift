import Foundation
import Testing
import VerificationCore

@testable import VerifierServer

/// The request-creation limits as `serve` reads them: flags, environment and config file names,
/// ranges, and the docTypes web requests are created for when `--web-doctypes` is not given.
@Suite struct RequestCapsSettingsTests {
    static func resolve(_ flags: ServerSettings.Source, environment: [String: String] = [:]) throws -> ServerSettings {
        try ServerSettings.resolve(flags: flags, environment: environment, configFile: nil)
    }

    @Test func theLimitsHaveDocumentedDefaultsAndRanges() throws {
        let defaults = try Self.resolve([:])
        #expect(defaults.requestLimits == RequestLimits(maxElements: 64, maxSessionBytes: 131_072))
        #expect(defaults.effectiveWebDocTypes == nil)
        #expect(try Self.resolve(["maxRequestElements": ["4096"]]).maxRequestElements == 4096)
        #expect(
            try Self.resolve([:], environment: ["WALLET_VERIFIER_MAX_REQUEST_SESSION_BYTES": "4096"]).requestLimits.maxSessionBytes == 4096)
        for (key, bad) in [
            ("maxRequestElements", "0"), ("maxRequestElements", "4097"), ("maxRequestSessionBytes", "4095"), ("maxRequestSessionBytes", "x"),
        ] {
            #expect(throws: SettingsError.self) { try Self.resolve([key: [bad]]) }
        }
    }

    @Test func webDocTypesAreDataIdentifiers() throws {
        let listed = try Self.resolve(["webDocTypes": ["org.iso.18013.5.1.mDL, org.iso.23220.photoid.1", "eu.europa.ec.eudi.pid.1"]])
        #expect(listed.effectiveWebDocTypes?.docTypes == ["org.iso.18013.5.1.mDL", "org.iso.23220.photoid.1", "eu.europa.ec.eudi.pid.1"])
        #expect(listed.effectiveWebDocTypes?.source == "--web-doctypes")
        let fromEnvironment = try Self.resolve([:], environment: ["WALLET_VERIFIER_WEB_DOCTYPES": "org.iso.18013.5.1.mDL"])
        #expect(fromEnvironment.webDocTypes == ["org.iso.18013.5.1.mDL"])
        for bad in ["org.iso.18013.5.1.mDL\u{202E}", "two words", " , ", String(repeating: "d", count: 129)] {
            #expect(throws: SettingsError.self) { try Self.resolve(["webDocTypes": [bad]]) }
        }
    }

    @Test func withoutWebDocTypesOnlyFullyScopedTrustNarrowsTheDocTypes() throws {
        let scoped = ["org.iso.18013.5.1.mDL|org.iso.23220.photoid.1=/roots/a", "eu.europa.ec.eudi.pid.1=/roots/b"]
        let narrowed = try Self.resolve(["trustDocTypes": scoped])
        #expect(narrowed.effectiveWebDocTypes?.docTypes == ["org.iso.18013.5.1.mDL", "org.iso.23220.photoid.1", "eu.europa.ec.eudi.pid.1"])
        #expect(narrowed.effectiveWebDocTypes?.source.contains("--trust-doctype") == true)
        // An unscoped root or a VICAL may vouch for any docType.
        #expect(try Self.resolve(["trustDocTypes": scoped, "trust": ["/roots/c"]]).effectiveWebDocTypes == nil)
        #expect(try Self.resolve(["trustDocTypes": scoped, "vicals": ["/v.cbor"], "vicalTrust": ["/v.pem"]]).effectiveWebDocTypes == nil)
        // The list given wins.
        #expect(try Self.resolve(["trustDocTypes": scoped, "webDocTypes": ["x.y"]]).effectiveWebDocTypes?.docTypes == ["x.y"])
    }
}
