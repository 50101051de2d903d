import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MdocVerifier
import Testing
import VerificationCore
import VerifierServer
import WalletEncoding
import WalletIdentity
import WalletVerifierTestSupport
import X509

/// `serve --vical FILE|URL --vical-trust FILE`: roots from a verified VICAL are trusted for their
/// docTypes; a URL is refreshed; an update that fails to verify keeps the previous roots.
@Suite struct ServiceVICALTests {
    static func settings(_ fixture: ServiceFixture, vicals: [String], anchors: [String]) throws -> ServerSettings {
        try ServerSettings.resolve(
            flags: [
                "store": ["memory"], "dataDir": [fixture.directory.appendingPathComponent("data").path],
                "identityKeys": [fixture.identityKeyPath], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID],
                "webKeys": [fixture.webKeyPath], "webOrigins": [fixture.webOrigin], "vicals": vicals, "vicalTrust": anchors,
            ], environment: [:], configFile: nil)
    }

    static func anchors(_ services: VerifierServices) -> [String] {
        services.identity.verifier.mdocVerifier.trustStore.anchors.map {
            "\($0.certificate.subject)|\($0.source)|\($0.docTypes?.sorted().joined(separator: ",") ?? "*")"
        }
    }

    @Test func aVICALFileGivesTheIdentityFlowItsRoots() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var vical = try VICALFixture()
        vical.date = ServiceFixture.time.addingTimeInterval(-86_400)
        vical.nextUpdate = ServiceFixture.time.addingTimeInterval(30 * 86_400)
        vical.entries = [.init(fixture.mdocPKI.iaca, docTypes: [MdocFixture.mDL])]
        let vicalPath = fixture.directory.appendingPathComponent("vical.cbor").path
        try Data(try vical.signed()).write(to: URL(fileURLWithPath: vicalPath))
        let anchorPath = fixture.directory.appendingPathComponent("vical-anchor.pem").path
        try Data(vical.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        let services = try await VerifierServices.make(
            settings: try Self.settings(fixture, vicals: [vicalPath], anchors: [anchorPath]),
            logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
        let roots = Self.anchors(services)
        #expect(roots.count == 1 && roots[0].contains("|VICAL Test Trust Service") && roots[0].hasSuffix("|" + MdocFixture.mDL), "\(roots)")
        // An identity response from that IACA verifies with no --trust at all.
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
            let created = try RouterTests.json(
                try await client.execute(
                    uri: "/v1/identity/requests", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body(["descriptor": descriptor])
                ).body)
            let nonce = [UInt8](try #require((created["nonce"] as? String).flatMap { Data(base64Encoded: $0) }))
            let envelope = try fixture.identityResponse(nonce: nonce)
            let answer = try RouterTests.json(
                try await client.execute(
                    uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body([
                        "requestId": try #require(created["requestId"] as? String),
                        "encryptedData": Data(envelope).base64EncodedString(),
                    ])
                ).body)
            #expect(answer["verdict"] as? String == "accepted", "\(answer)")
            let trust = try RouterTests.json(try await client.execute(uri: "/v1/trust", method: .get).body)
            let source = try #require((trust["anchors"] as? [[String: Any]])?.first?["source"] as? String)
            #expect(
                source.hasPrefix("VICAL Test Trust Service")
                    && source.hasSuffix(" of " + RFC3339.format(ServiceFixture.time.addingTimeInterval(-86_400))), "\(source)")
        }
        // A VICAL that does not verify against the given anchor: the configuration does not load.
        let otherAnchor = fixture.directory.appendingPathComponent("other-anchor.pem").path
        try Data(try VICALFixture().anchorPEM.utf8).write(to: URL(fileURLWithPath: otherAnchor))
        await #expect {
            _ = try await VerifierServices.make(
                settings: try Self.settings(fixture, vicals: [vicalPath], anchors: [otherAnchor]),
                logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
        } throws: {
            "\($0)".contains("does not verify") && "\($0)".contains(vicalPath)
        }
        #expect(throws: SettingsError.self) { try Self.settings(fixture, vicals: [vicalPath], anchors: []) }
    }

    @Test func aVICALURLIsRefreshedAndABadUpdateKeepsThePreviousRoots() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        var vical = try VICALFixture()
        vical.date = ServiceFixture.time.addingTimeInterval(-86_400)
        vical.nextUpdate = ServiceFixture.time.addingTimeInterval(30 * 86_400)
        vical.entries = [.init(fixture.mdocPKI.iaca, docTypes: [MdocFixture.mDL])]
        server.set("/vical", .init(body: try vical.signed()))
        let anchorPath = fixture.directory.appendingPathComponent("vical-anchor.pem").path
        try Data(vical.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        let clock = IdempotencyRouteTests.MovableClock(ServiceFixture.time)
        let live = LiveServices(
            try await VerifierServices.make(
                settings: try Self.settings(fixture, vicals: [server.url("/vical")], anchors: [anchorPath]),
                logger: Logger(label: "test"), clock: clock))
        #expect(Self.anchors(live.current).count == 1)
        let refresher = VICALRefreshService(live: live, logger: Logger(label: "test"))
        // Not due yet: nothing fetched.
        #expect(await refresher.refreshOnce() == 0)
        #expect(server.requestedPaths.count == 1)
        // A day later the new issue lists a second IACA: fetched, verified, applied.
        let second = try MdocPKI()
        vical.entries.append(.init(second.iaca, docTypes: [PhotoIDFixture.docType]))
        vical.date = clock.now()
        server.set("/vical", .init(body: try vical.signed()))
        clock.advance(86_400 + 1)
        #expect(await refresher.refreshOnce() == 1)
        #expect(Self.anchors(live.current).count == 2)
        #expect(Self.anchors(live.current).contains { $0.hasSuffix("|" + PhotoIDFixture.docType) })
        // The next update is corrupted (signature): refused, the two roots stay.
        var broken = try vical.signed()
        broken[broken.count - 5] ^= 0xff
        server.set("/vical", .init(body: broken))
        clock.advance(86_400 + 1)
        #expect(await refresher.refreshOnce() == 0)
        #expect(Self.anchors(live.current).count == 2)
        // A newer issue that verifies but lists nothing: refused, it never narrows trust to nothing.
        vical.entries = []
        vical.date = clock.now()
        vical.issueID = 43
        server.set("/vical", .init(body: try vical.signed()))
        #expect(await refresher.refreshOnce() == 0)
        #expect(Self.anchors(live.current).count == 2)
    }
}
