import Foundation
import Testing
import VerifierServer
import WalletVerifierTestSupport

/// Issue 29 ("holds on a hostile network"), through real `serve` processes and a real loopback
/// server: a revocation list that trickles in ends at `--fetch-timeout`, and a status uri whose host
/// only starts like a loopback address is never fetched.
@Suite(.serialized) struct HostileNetworkProcessTests {
    /// CPU seconds (user and system) process `pid` has used, from /proc (Linux); nil elsewhere.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15, in clock ticks.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func theFetchTimeoutComesFromFlagEnvironmentOrFile() throws {
        #expect(try ServerSettings.resolve(flags: [:], environment: [:], configFile: nil).fetchTimeout == 10)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-timeout-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"fetchTimeout": 7}"#.utf8).write(to: file)
        #expect(try ServerSettings.resolve(flags: [:], environment: [:], configFile: file.path).fetchTimeout == 7)
        let environment = ["WALLET_VERIFIER_FETCH_TIMEOUT": "5"]
        #expect(try ServerSettings.resolve(flags: [:], environment: environment, configFile: file.path).fetchTimeout == 5)
        #expect(try ServerSettings.resolve(flags: ["fetchTimeout": ["3"]], environment: environment, configFile: file.path).fetchTimeout == 3)
        for bad in ["0", "301", "2.5", "ten"] {
            #expect(throws: SettingsError.self, "\(bad)") {
                try ServerSettings.resolve(flags: ["fetchTimeout": [bad]], environment: [:], configFile: nil)
            }
        }
    }

    @Test func aTricklingRevocationListEndsAtTheFetchTimeout() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let signer = try ServiceRevocationProcessTests.ListSigner(fixture.mdocPKI)
        let uri = server.url("/trickle")
        // A valid list, one byte every 0.5 s: it would take minutes to arrive.
        let list = try signer.sign(ServiceRevocationProcessTests.identifierList(revoking: [[9]], uri: uri))
        server.set("/trickle", .init(body: list, trickle: 0.5))
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--revocation", "required", "--fetch-timeout", "2"] + fixture.serveArguments)
        defer { instance.stop() }
        let document = ServiceRevocationProcessTests.document(status: try RevocationListFixture.identifierListStatus(id: [1, 2, 3], uri: uri))
        let started = Date(), cpuBefore = Self.cpuSeconds(instance.process.processIdentifier)
        let answer = try await ServiceRevocationProcessTests.verify(document, pki: fixture.mdocPKI, fixture: fixture, on: instance)
        let seconds = Date().timeIntervalSince(started)
        // The wait sleeps: the service uses far less CPU than the wall time (a spinning wait burns a core).
        if let before = cpuBefore, let after = Self.cpuSeconds(instance.process.processIdentifier) {
            #expect(after - before < seconds / 2, "serve used \(after - before) s of CPU in \(seconds) s")
        }
        #expect(answer.status == 503 && answer.body["verdict"] as? String == "indeterminate", "\(answer.body)")
        #expect(ServiceRevocationProcessTests.check(answer.body, "mdoc.revocation.list") == ("error", "listUnavailable"), "\(answer.body)")
        #expect(seconds < 6, "the verification took \(seconds) s with --fetch-timeout 2")
        #expect(server.requestedPaths == ["/trickle"])
    }

    /// A verification waiting on a trickling list server gives its slot back: with one slot, another
    /// client's verification is answered at once while the first still waits.
    @Test func aVerificationWaitingOnAListServerHoldsNoSlot() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let signer = try ServiceRevocationProcessTests.ListSigner(fixture.mdocPKI)
        let uri = server.url("/trickle")
        server.set("/trickle", .init(body: try signer.sign(ServiceRevocationProcessTests.identifierList(revoking: [[9]], uri: uri)), trickle: 0.5))
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--revocation", "required", "--fetch-timeout", "6", "--max-concurrent-verifications", "1"]
                + fixture.serveArguments)
        defer { instance.stop() }
        let document = ServiceRevocationProcessTests.document(status: try RevocationListFixture.identifierListStatus(id: [1, 2, 3], uri: uri))
        let waiting = Task { () -> String in
            let answer = try await ServiceRevocationProcessTests.verify(document, pki: fixture.mdocPKI, fixture: fixture, on: instance)
            let list = ServiceRevocationProcessTests.check(answer.body, "mdoc.revocation.list")
            return "\(answer.status) \(list.status ?? "-") \(list.reason ?? "-")"
        }
        // Once the list is being fetched, the one slot is free for another client.
        #expect(try await ServiceInstance.waitFor { server.requestedPaths.contains("/trickle") })
        let started = Date()
        let other = try await RawConnection.request(
            port: instance.port, from: "127.0.0.2", method: "POST", path: "/v1/mdoc/verify",
            body: #"{"deviceResponse":"AAAA","sessionTranscript":"AAAA"}"#, timeout: 15)
        #expect(other.status == 400, "the other client got \(other.status): \(other.body)")
        #expect(Date().timeIntervalSince(started) < 2, "the other client waited \(Date().timeIntervalSince(started)) s")
        #expect(try await waiting.value == "503 error listUnavailable")
    }

    @Test func aHostThatOnlyLooksLikeLoopbackIsNotFetched() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(arguments: ["--store", "memory", "--revocation", "required"] + fixture.serveArguments)
        defer { instance.stop() }
        for uri in ["http://127.attacker.example/list", "http://127.0.0.1.nip.io/list", "http://localhost.attacker.example/list"] {
            let document = ServiceRevocationProcessTests.document(status: try RevocationListFixture.identifierListStatus(id: [1], uri: uri))
            let answer = try await ServiceRevocationProcessTests.verify(document, pki: fixture.mdocPKI, fixture: fixture, on: instance)
            #expect(answer.body["verdict"] as? String != "accepted", "\(uri): \(answer.body)")
            // Refused before any connection (before the fix: fetched, and failing only because the name did not resolve here).
            #expect(ServiceRevocationProcessTests.check(answer.body, "mdoc.revocation.list") == ("error", "unsupportedURI"), "\(uri): \(answer.body)")
        }
    }
}
