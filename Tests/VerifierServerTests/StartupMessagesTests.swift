import Foundation
import Testing
import WalletIdentity
import WalletVerifierTestSupport

/// What `serve` says when it cannot start, and what the API says of a name it does not know: each
/// names the cause and what to do.
@Suite(.serialized) struct StartupMessagesTests {
    /// Runs `wallet-verifier serve ARGUMENTS` until it exits or `seconds` pass.
    static func serve(_ arguments: [String], seconds: Double) async throws -> (status: Int32?, output: String) {
        try await CommandProcess.run(["serve"] + arguments, seconds: seconds)
    }

    /// A loopback port that was free a moment ago and has no listener now.
    static func closedLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        try #require(bound == 0)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        try #require(named == 0)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aPortInUseIsNamedWithTheFlagThatChangesIt() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let first = try await ServiceInstance(arguments: HostileNetworkSessionTests.sqliteArguments(fixture))
        defer { first.stop() }
        let second = try await Self.serve(
            ["--host", "127.0.0.1", "--port", String(first.port), "--store", "memory"] + fixture.serveArguments, seconds: 30)
        #expect(second.status == 2, "\(second.output)")
        #expect(second.output.contains("cannot listen on 127.0.0.1:\(first.port): the port is already in use"), "\(second.output)")
        #expect(second.output.contains("--port"))
    }

    @Test func anUnreachablePostgreSQLIsNamedWithItsCause() async throws {
        // A port nothing listens on: take a free one and close it.
        let socket = try Self.closedLoopbackPort()
        let started = try await Self.serve(
            [
                "--host", "127.0.0.1", "--port", "0", "--store", "postgres", "--postgres-url",
                "postgres://user:secret-password@127.0.0.1:\(socket)/db",
            ],
            seconds: 9)
        #expect(started.output.contains("127.0.0.1:\(socket) cannot be reached (connection refused)"), "\(started.output)")
        #expect(started.output.contains("is PostgreSQL running"), "\(started.output)")
        #expect(!started.output.contains("secret-password"))
    }

    @Test func anUnknownElementNameSaysWhichWasMeant() throws {
        let json = #"{"document": "driversLicense", "elements": [{"element": "given_name", "intentToStore": "willNotStore"}]}"#
        do {
            _ = try IdentityRequestDescriptor.decode(json: Data(json.utf8))
            Issue.record("an unknown element name was read")
        } catch {
            let message = "\(error)"
            #expect(message.contains("elements[0].element: not a PassKit element name (did you mean givenName?)"), "\(message)")
            #expect(message.contains("documentNumber") && !message.contains("given_name"), "\(message)")
        }
    }
}
