import ApplePayVerifier
import Crypto
import Foundation
import Hummingbird
import Logging
import Mdoc
import VerificationCore
import VerifierServer
import WalletCBOR
import WalletIdentity
import WalletVerifierTestSupport

/// The HTTP service under load (`wallet-verifier-bench service`): the real application on loopback
/// with its embedded SQLite store, driven by wrk (Debian's package) with distinct submissions, next
/// to the library's own single-core throughput measured in the same run. It measures; it never fails
/// on time.
enum ServiceLoadBenchmark {
    static func run(seconds: Double) async throws {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("service: wrk is not installed (apt-get install wrk); skipped")
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var flags: ServerSettings.Source = [
            "store": [ProcessInfo.processInfo.environment["BENCH_STORE"] ?? "sqlite"], "dataDir": [fixture.directory.appendingPathComponent("data").path], "port": ["0"],
            "identityKeys": [fixture.identityKeyPath], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID], "trust": [fixture.iacaPath],
            "applepayCerts": [fixture.merchantCertificatePath], "applepayKeys": [fixture.merchantKeyPath], "applepayRoot": [fixture.applePayRootPath],
            "requestLifetime": ["3600"],
        ]
        flags["bodyLimit"] = ["1048576"]
        let settings = try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let services = try await VerifierServices.make(settings: settings, logger: logger)
        let portBox = PortBox()
        let app = VerifierApplication.build(services: services, logger: logger) { channel in
            portBox.set(channel.localAddress?.port ?? 0)
        }
        let server = Task { try await app.run() }
        defer { server.cancel() }
        while portBox.port == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let port = portBox.port

        let directory = fixture.directory
        let count = 3000
        print("service: preparing \(count) distinct identity responses and \(count) Apple Pay tokens …")
        // Identity: requests created through the service's own sessions (same store), envelopes built for them.
        var identityBodies: [String] = []
        var identityLibraryInputs: [(envelope: [UInt8], nonce: [UInt8])] = []
        let mdocFixture = currentMdocFixture()
        for _ in 0..<count {
            let created = try await services.identity.create(descriptor: try IdentityRequestDescriptor.decode(json: Data(ServiceFixture.descriptorJSON.utf8)), now: Date())
            let envelope = try fixture.identityResponse(nonce: created.nonce, fixture: mdocFixture)
            identityBodies.append(#"{"requestId":"\#(created.requestID)","encryptedData":"\#(Data(envelope).base64EncodedString())"}"#)
            if identityLibraryInputs.count < 200 { identityLibraryInputs.append((envelope, created.nonce)) }
        }
        var tokenBodies: [String] = []
        var libraryTokens: [[UInt8]] = []
        for _ in 0..<count {
            let token = try fixture.applePayToken(signedAt: Date())
            tokenBodies.append(#"{"token":"# + String(decoding: token, as: UTF8.self) + "}")
            if libraryTokens.count < 600 { libraryTokens.append(try fixture.applePayToken(signedAt: Date())) }
        }

        // The library on one core, same inputs, same process.
        let identityVerifier = services.identity.verifier
        var index = 0
        let identityLibrary = await measure("library: in-app identity verification (1 core)", seconds: seconds) {
            let input = identityLibraryInputs[index % identityLibraryInputs.count]
            index += 1
            _ = await identityVerifier.verify(encryptedData: input.envelope, nonce: input.nonce, request: try! IdentityRequestDescriptor.decode(json: Data(ServiceFixture.descriptorJSON.utf8)), at: Date())
        }
        var applePay = try ApplePayTokenVerifier(keyRing: services.applePay!.keyRing, replayStore: InMemoryReplayStore(), trustAnchor: services.applePay!.trustAnchor)
        index = 0
        let applePayLibrary = try await measure("library: Apple Pay EC_v1 decrypt (1 core)", seconds: seconds) {
            if index > 0, index % libraryTokens.count == 0 {
                applePay = try ApplePayTokenVerifier(keyRing: applePay.keyRing, replayStore: InMemoryReplayStore(), trustAnchor: applePay.trustAnchor)
            }
            _ = await applePay.verify(libraryTokens[index % libraryTokens.count], context: VerificationContext(time: Date()))
            index += 1
        }

        for (name, path, bodies, library) in [("identity verify", "/v1/identity/verify", identityBodies, identityLibrary),
                                              ("Apple Pay decrypt", "/v1/applepay/decrypt", tokenBodies, applePayLibrary)] {
            let bodyFile = directory.appendingPathComponent("\(path.replacingOccurrences(of: "/", with: "_")).bodies")
            try Data(bodies.joined(separator: "\n").utf8).write(to: bodyFile)
            let script = directory.appendingPathComponent("post.lua")
            try Data("""
            wrk.method = "POST"
            wrk.headers["Content-Type"] = "application/json"
            local bodies = {}
            for line in io.lines("\(bodyFile.path)") do bodies[#bodies + 1] = line end
            local i = 0
            request = function()
              i = i + 1
              if i > #bodies then i = 1 end
              return wrk.format(nil, "\(path)", nil, bodies[i])
            end
            """.utf8).write(to: script)
            let duration = max(2, Int(seconds))
            let output = try runWRK(wrk, ["-t2", "-c16", "-d\(duration)s", "--latency", "-s", script.path, "http://127.0.0.1:\(port)"])
            let rps = value(after: "Requests/sec:", in: output) ?? 0
            let p50 = line(starting: "50%", in: output) ?? "?"
            let p99 = line(starting: "99%", in: output) ?? "?"
            let non2xx = line(starting: "Non-2xx", in: output) ?? "none"
            print("  service: \(name.padding(toLength: 48, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", rps)) req/s  p50 \(p50)  p99 \(p99)  non-2xx: \(non2xx)")
            print("  ratio service (2 cores, wrk on the same cores) / library (1 core): \(String(format: "%.2f", rps / library)) (target ≥ 0.75)")
            if bodies.count < Int(rps) * duration {
                print("  note: \(bodies.count) distinct bodies for \(Int(rps) * duration) requests: later ones are replays (rejected, still fully verified up to the replay check)")
            }
        }
        await services.shutdown()
    }

    static func currentMdocFixture() -> MdocFixture {
        var fixture = MdocFixture()
        fixture.elements = MdocBenchmark.mdlElements()
        fixture.signed = Date().addingTimeInterval(-3600)
        fixture.validFrom = fixture.signed
        fixture.validUntil = Date().addingTimeInterval(30 * 86400)
        return fixture
    }

    static func runWRK(_ wrk: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func value(after label: String, in text: String) -> Double? {
        guard let range = text.range(of: label) else { return nil }
        return Double(text[range.upperBound...].trimmingCharacters(in: .whitespaces).prefix { $0.isNumber || $0 == "." })
    }

    static func line(starting prefix: String, in text: String) -> String? {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix(prefix) }
            .map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) }
    }
}

final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var port: Int { lock.withLock { value } }
    func set(_ port: Int) { lock.withLock { value = port } }
}
