import ApplePayVerifier
import Crypto
import Foundation
import Hummingbird
import Logging
import Mdoc
import ReplayStoreSQLite
import VerificationCore
import VerifierServer
import WalletCBOR
import WalletIdentity
import WalletJSON
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
        // As `wallet-verifier serve` does (WALLET_VERIFIER_EVENT_LOOP_EXECUTOR=off keeps Swift's thread pool).
        if EventLoopExecutor.enabled(environment: ProcessInfo.processInfo.environment) {
            print("service: tasks run on the event loops: \(EventLoopExecutor.runTasksOnEventLoops())")
        } else {
            print("service: tasks run on Swift's thread pool (WALLET_VERIFIER_EVENT_LOOP_EXECUTOR=off)")
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var flags: ServerSettings.Source = [
            "store": [ProcessInfo.processInfo.environment["BENCH_STORE"] ?? "sqlite"],
            "dataDir": [fixture.directory.appendingPathComponent("data").path], "port": ["0"],
            "identityKeys": [fixture.identityKeyPath], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID], "trust": [fixture.iacaPath],
            "applepayCerts": [fixture.merchantCertificatePath], "applepayKeys": [fixture.merchantKeyPath], "applepayRoot": [fixture.applePayRootPath],
            "requestLifetime": ["3600"],
        ]
        flags["bodyLimit"] = ["1048576"]
        // wrk is one client address: the per-client shares of a hostile network would measure the limits,
        // not the service. Every slot and an unlimited rate, as before those limits existed.
        flags["verifyRate"] = ["0"]
        flags["maxClientVerifications"] = ["4096"]
        // BENCH_SLOTS sets --max-concurrent-verifications (default: the service's own).
        if let slots = ProcessInfo.processInfo.environment["BENCH_SLOTS"] { flags["maxConcurrentVerifications"] = [slots] }
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
        let descriptor = try IdentityRequestDescriptor.decode(json: Data(ServiceFixture.descriptorJSON.utf8))
        let mdocFixture = currentMdocFixture()

        // The library on one core, same kind of inputs, same process.
        var identityLibraryInputs: [(envelope: [UInt8], nonce: [UInt8])] = []
        for _ in 0..<200 {
            let created = try await services.identity.create(descriptor: descriptor, now: Date())
            identityLibraryInputs.append((try fixture.identityResponse(nonce: created.nonce, fixture: mdocFixture), created.nonce))
        }
        var libraryTokens: [[UInt8]] = []
        for _ in 0..<600 { libraryTokens.append(try fixture.applePayToken(signedAt: Date())) }
        let identityVerifier = services.identity.verifier
        var index = 0
        let applePayService = services.applePay!
        func makeApplePayVerifier() throws -> ApplePayTokenVerifier {
            try ApplePayTokenVerifier(keyRing: applePayService.keyRing, replayStore: InMemoryReplayStore(), trustAnchor: applePayService.trustAnchor)
        }
        var applePayTokens = try FirstUseTokens(libraryTokens, makeVerifier: makeApplePayVerifier)
        // One library verification of each flow (also measured again after the load).
        let identityOnce: () async -> Void = {
            let input = identityLibraryInputs[index % identityLibraryInputs.count]
            index += 1
            _ = await identityVerifier.verify(encryptedData: input.envelope, nonce: input.nonce, request: descriptor, context: .at(Date()))
        }
        let applePayOnce: () async throws -> Void = {
            _ = try await applePayTokens.verifyNext(context: VerificationContext(time: Date()))
        }
        let identityLibrary = await measure("library: in-app identity verification (1 core)", seconds: seconds, identityOnce)
        let applePayLibrary = try await measure("library: Apple Pay EC_v1 decrypt (1 core)", seconds: seconds, applePayOnce)

        if ProcessInfo.processInfo.environment["SERVICE_STAGES"] != nil {
            let body = Array((#"{"expect":{"currency":"840","amount":1999},"token":"# + String(decoding: libraryTokens[0], as: UTF8.self) + "}").utf8)
            _ = try await measure("stage: strict JSON read of an Apple Pay body", seconds: seconds) {
                _ = try StrictJSON.parse(body)
            }
            let verifier = try makeApplePayVerifier()
            let result = await verifier.verify(
                libraryTokens[0], context: VerificationContext(time: Date()),
                expectations: ApplePayExpectations(currencyCode: "840", transactionAmount: 1999))
            _ = await measure("stage: Apple Pay JSON output", seconds: seconds) {
                _ = result.json
            }
            _ = await measure("stage: Apple Pay report JSON alone (\(result.report.checks.count) checks)", seconds: seconds) {
                _ = result.report.json()
            }
            _ = await measure("stage: metrics record", seconds: seconds) {
                services.metrics.record(flow: "applepay", report: result.report, duration: .milliseconds(1))
            }
            let identityResult = await identityVerifier.verify(
                encryptedData: identityLibraryInputs[0].envelope, nonce: identityLibraryInputs[0].nonce, request: descriptor, context: .at(Date()))
            _ = await measure("stage: identity JSON output", seconds: seconds) {
                _ = identityResult.json()
            }
            _ = await measure("stage: identity library verify", seconds: seconds) {
                _ = await identityVerifier.verify(
                    encryptedData: identityLibraryInputs[0].envelope, nonce: identityLibraryInputs[0].nonce, request: descriptor, context: .at(Date())
                )
            }
            return
        }

        // Enough distinct submissions for the whole run: every request is a first submission, fully
        // verified (a replay would be cheaper and flatter the service).
        let runSeconds = max(2, seconds)
        // BENCH_ONLY=identity or applepay runs that flow's load only.
        let only = ProcessInfo.processInfo.environment["BENCH_ONLY"]
        // Concurrent connections, one load run per level (BENCH_CONNECTIONS, comma-separated; default
        // 16 and 64). A store that commits to disk before answering is latency-bound at low
        // concurrency (the event loops wait for commits); the higher level shows what the CPU allows.
        let levels = (ProcessInfo.processInfo.environment["BENCH_CONNECTIONS"] ?? "16,64").split(separator: ",")
            .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        let connectionLevels = levels.isEmpty ? [16, 64] : levels
        let wrkThreads = max(1, Int(ProcessInfo.processInfo.environment["BENCH_WRK_THREADS"] ?? "") ?? 1)
        let perLevel = runSeconds + 1
        let identityCount = min(30_000 * connectionLevels.count, max(2_000, Int(identityLibrary * 1.5 * perLevel * Double(connectionLevels.count))))
        let tokenCount = min(50_000 * connectionLevels.count, max(2_000, Int(applePayLibrary * 1.5 * perLevel * Double(connectionLevels.count))))
        print("service: preparing \(identityCount) distinct identity responses and \(tokenCount) Apple Pay tokens …")
        // Identity: requests created through the service's own sessions (same store), envelopes built for them.
        let identityFile = directory.appendingPathComponent("identity.bodies")
        try await writeLines(to: identityFile, count: identityCount) {
            let created = try await services.identity.create(descriptor: descriptor, now: Date())
            let envelope = try fixture.identityResponse(nonce: created.nonce, fixture: mdocFixture)
            return #"{"requestId":"\#(created.requestID)","encryptedData":"\#(Data(envelope).base64EncodedString())"}"#
        }
        var results: [(name: String, connections: Int, rps: Double)] = []
        let tokenFile = directory.appendingPathComponent("applepay.bodies")
        try await writeLines(to: tokenFile, count: tokenCount) {
            // The expected currency and amount, as the service requires (the fixture token's 19.99 USD).
            #"{"expect":{"currency":"840","amount":1999},"token":"# + String(decoding: try fixture.applePayToken(signedAt: Date()), as: UTF8.self)
                + "}"
        }

        for (name, path, bodyFile, count, library) in [
            ("identity verify", "/v1/identity/verify", identityFile, identityCount, identityLibrary),
            ("Apple Pay decrypt", "/v1/applepay/decrypt", tokenFile, tokenCount, applePayLibrary),
        ]
        where only.map({ path.contains($0) }) ?? true {
            // wrk threads (BENCH_WRK_THREADS, default 1), each sending its own share of the bodies from
            // line `first` on, each body once; past the end they repeat the last one (a replay, counted below).
            // Each thread reads and formats its requests in `init`, before wrk starts its clock: the load
            // generator shares the server's two cores, so per request it only hands over a prepared string.
            let script = directory.appendingPathComponent("post.lua")
            try Data(
                """
                local next_id = 0
                function setup(thread)
                  thread:set("id", next_id)
                  next_id = next_id + 1
                end
                wrk.method = "POST"
                wrk.headers["Content-Type"] = "application/json"
                local requests = {}
                local i = 0
                function init(args)
                  local first = tonumber(args[1])
                  local n = 0
                  for line in io.lines("\(bodyFile.path)") do
                    if n >= first and n % \(wrkThreads) == id then requests[#requests + 1] = wrk.format(nil, "\(path)", nil, line) end
                    n = n + 1
                  end
                end
                request = function()
                  i = i + 1
                  if i > #requests then i = #requests end
                  return requests[i]
                end
                """.utf8
            ).write(to: script)
            // Bodies are used once each across the levels: `offset` is the first one not sent yet.
            var offset = 0
            for connections in connectionLevels {
                // A short warm-up run tells the rate; the measured run then lasts only as long as its
                // distinct bodies do, so no request is a replay (a replay is cheaper and flatters the service).
                let warmUp = try await runWRK(
                    wrk, ["-t\(wrkThreads)", "-c\(connections)", "-d1s", "-s", script.path, "http://127.0.0.1:\(port)", "--", "\(offset)"])
                let used = requestCount(in: warmUp)
                let first = offset + used + 32
                let remaining = count - first
                let warmRate = Double(used)
                let duration = min(Int(runSeconds), Int(Double(remaining) / max(warmRate, 1) / 1.2))
                guard duration >= 1 else {
                    print(
                        "  service: \(name), \(connections) connections: too few distinct bodies (\(remaining)) for a measured run at \(Int(warmRate)) req/s"
                    )
                    continue
                }
                let cpuBefore = processCPUSeconds()
                let loadCPUBefore = childrenCPUSeconds()
                let threadsBefore = threadCPUSeconds()
                let commitsBefore = (services.store as? SQLiteReplayStore)?.commitStatistics
                let output = try await runWRK(
                    wrk,
                    [
                        "-t\(wrkThreads)", "-c\(connections)", "-d\(duration)s", "--latency", "-s", script.path, "http://127.0.0.1:\(port)", "--",
                        "\(first)",
                    ])
                let rps = value(after: "Requests/sec:", in: output) ?? 0
                let total = requestCount(in: output)
                offset = first + total + 32
                let cpuPerRequest = (processCPUSeconds() - cpuBefore) / Double(max(total, 1)) * 1e6
                // wrk's own CPU time, reading its requests in before the clock included.
                let loadCPUPerRequest = (childrenCPUSeconds() - loadCPUBefore) / Double(max(total, 1)) * 1e6
                let p50 = line(starting: "50%", in: output) ?? "?"
                let p99 = line(starting: "99%", in: output) ?? "?"
                let non2xx = line(starting: "Non-2xx", in: output) ?? "none"
                let label = "\(name), \(connections) connections"
                print(
                    "  service: \(label.padding(toLength: 48, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", rps)) req/s  p50 \(p50)  p99 \(p99)  non-2xx: \(non2xx)"
                )
                print(
                    "    \(total) requests in \(duration) s after a 1 s warm-up, \(max(0, total - (remaining - 32))) of them replays; server CPU \(String(format: "%.0f", cpuPerRequest)) µs per request (library \(String(format: "%.0f", 1e6 / library)) µs), wrk \(String(format: "%.0f", loadCPUPerRequest)) µs"
                )
                let threadsAfter = threadCPUSeconds()
                let measured = Double(duration)
                let busy = threadsAfter.map { name, seconds in (name, (seconds - (threadsBefore[name] ?? 0)) / measured) }
                    .filter { $0.1 >= 0.01 }.sorted { $0.1 > $1.1 }
                if let before = commitsBefore, let after = (services.store as? SQLiteReplayStore)?.commitStatistics {
                    let transactions = after.transactions - before.transactions
                    print(
                        "    SQLite: \(transactions) transactions, \(String(format: "%.1f", Double(after.operations - before.operations) / Double(max(transactions, 1)))) operations each, \(String(format: "%.2f", (after.commitSeconds - before.commitSeconds) * 1000 / Double(max(transactions, 1)))) ms committing each"
                    )
                }
                print(
                    "    server threads (share of one core): "
                        + busy.map { "\($0.0) \(String(format: "%.0f%%", $0.1 * 100))" }.joined(separator: ", "))
                results.append((name, connections, rps))
            }
        }
        // The HTTP stack alone: GET /healthz answers a constant, so its CPU per request is what every
        // request costs before any verification (parsing, routing, middleware, writing the answer).
        if only.map({ "/healthz".contains($0) }) ?? true {
            for connections in connectionLevels {
                let cpuBefore = processCPUSeconds()
                let output = try await runWRK(
                    wrk, ["-t\(wrkThreads)", "-c\(connections)", "-d\(Int(runSeconds))s", "http://127.0.0.1:\(port)/healthz"])
                let total = requestCount(in: output)
                let rps = value(after: "Requests/sec:", in: output) ?? 0
                let cpuPerRequest = (processCPUSeconds() - cpuBefore) / Double(max(total, 1)) * 1e6
                print(
                    "  service: \("GET /healthz, \(connections) connections".padding(toLength: 48, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", rps)) req/s  server CPU \(String(format: "%.0f", cpuPerRequest)) µs per request (the HTTP stack alone)"
                )
            }
        }

        // The library again, after the load: this VM's speed drifts over minutes, so each ratio is
        // taken against the faster of the two library measurements (the stricter comparison).
        index = 0
        let identityAfter = await measure("library again: in-app identity verification (1 core)", seconds: seconds, identityOnce)
        try applePayTokens.restart()
        let applePayAfter = try await measure("library again: Apple Pay EC_v1 decrypt (1 core)", seconds: seconds, applePayOnce)
        for (name, connections, rps) in results {
            let library = name.hasPrefix("identity") ? max(identityLibrary, identityAfter) : max(applePayLibrary, applePayAfter)
            print(
                "  ratio \(name), \(connections) connections: service (2 cores, wrk with \(wrkThreads) thread(s) on the same cores) \(String(format: "%.0f", rps)) req/s / library (1 core, faster of two runs) \(String(format: "%.0f", library)) /s = \(String(format: "%.2f", rps / library)) (target ≥ 0.75)"
            )
            // Per core: what each of the machine's cores serves, against what one core verifies in the library.
            let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
            print(
                "  per core \(name), \(connections) connections: \(String(format: "%.0f", rps / cores)) req/s per core (\(Int(cores)) cores) / library \(String(format: "%.0f", library)) /s on 1 core = \(String(format: "%.2f", rps / cores / library))"
            )
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

    /// Runs wrk on a thread of its own and waits without blocking one of the concurrency pool's
    /// threads: those serve the requests, and a blocked one would halve the server.
    static func runWRK(_ wrk: String, _ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: wrk)
                    process.arguments = arguments
                    let pipe = Pipe()
                    process.standardOutput = pipe
                    process.standardError = pipe
                    try process.run()
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: String(decoding: data, as: UTF8.self))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
    }

    /// Writes `count` lines, one request body each, without holding them all in memory.
    static func writeLines(to url: URL, count: Int, _ line: () async throws -> String) async throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = ""
        for index in 0..<count {
            chunk += try await line() + "\n"
            if index % 500 == 499 || index == count - 1 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
    }

    /// The "N requests in ..." count of a wrk run.
    static func requestCount(in output: String) -> Int {
        let summary = output.split(separator: "\n").first { $0.contains("requests in") } ?? ""
        return Int(summary.split(separator: " ").first ?? "") ?? 0
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

/// CPU seconds used so far by this process's threads, summed by thread name (Linux: /proc/self/task).
func threadCPUSeconds() -> [String: Double] {
    var result: [String: Double] = [:]
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return result }
    for task in tasks {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
            let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { continue }
        let name = String(stat[stat.index(after: open)..<close])
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        // Fields after the name: state is the 1st; utime and stime are the 12th and 13th.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        result[name, default: 0] += (user + system) / ticks
    }
    return result
}
