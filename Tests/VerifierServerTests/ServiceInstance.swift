import Foundation
import Synchronization
import WalletVerifierTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running `wallet-verifier serve` process on a free loopback port.
final class ServiceInstance: @unchecked Sendable {
    let process = Process()
    let port: Int
    /// The web page's port, when started with `--ui-listen`.
    private(set) var uiPort: Int?
    private let output = Pipe()
    /// Everything the process wrote (its log), kept for tests that read it.
    private final class LogBuffer: Sendable { let text = Mutex("") }
    private let logBuffer = LogBuffer()
    var log: String { logBuffer.text.withLock { $0 } }

    /// Starts `serve` and waits (up to 60 s) for its "listening on" line. The wait reads the process's
    /// output with blocking calls, so it runs on a thread of its own: a test waiting for a service
    /// never holds one of Swift's few cooperative threads, which the other tests running in parallel
    /// (and their stores' connections) need meanwhile.
    init(arguments: [String], environment extra: [String: String] = [:]) async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wallet-verifier")
        process.executableURL = binary
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LOG_LEVEL"] = "notice"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let wantsPage = arguments.contains("--ui-listen")
        let (process, output) = (self.process, self.output)
        let started: (port: Int?, page: Int?, log: String) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Self.waitForListening(process: process, output: output, wantsPage: wantsPage))
            }
        }
        uiPort = started.page
        guard let found = started.port else {
            process.terminate()
            throw VectorError("the service did not start: \(started.log)")
        }
        port = found
        // Keep draining the output so the process never blocks on a full pipe; keep it for the tests.
        logBuffer.text.withLock { $0 = started.log }
        output.fileHandleForReading.readabilityHandler = { [logBuffer] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            logBuffer.text.withLock { $0 += text }
        }
    }

    /// Reads the process's output until the API's port (and the page's, when asked for) is logged,
    /// for up to 60 s; blocking.
    private static func waitForListening(process: Process, output: Pipe, wantsPage: Bool) -> (port: Int?, page: Int?, log: String) {
        var collected = ""
        let deadline = Date().addingTimeInterval(60)
        var found: Int?
        var pagePort: Int?
        while (found == nil || (wantsPage && pagePort == nil)) && Date() < deadline && process.isRunning {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty {
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            collected += String(decoding: data, as: UTF8.self)
            if let range = collected.range(of: "listening on http://127.0.0.1:") {
                found = Int(collected[range.upperBound...].prefix { $0.isNumber })
            }
            if let range = collected.range(of: "web page on http://127.0.0.1:") {
                pagePort = Int(collected[range.upperBound...].prefix { $0.isNumber })
            }
        }
        return (found, pagePort, collected)
    }

    func stop() {
        output.fileHandleForReading.readabilityHandler = nil
        if process.isRunning {
            process.interrupt()
            process.waitUntilExit()
        }
    }

    /// Kills the process at once (SIGKILL): no graceful shutdown, nothing flushed but what the store
    /// committed.
    func kill() {
        output.fileHandleForReading.readabilityHandler = nil
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func post(_ path: String, _ object: [String: Any], headers: [String: String] = [:]) async throws -> (status: Int, body: [String: Any]) {
        try await post(path, body: try JSONSerialization.data(withJSONObject: object), headers: headers)
    }

    /// POSTs `body` as it is (a retry sends the same bytes), answering the status, the JSON and the headers.
    func post(_ path: String, body: Data, headers: [String: String] = [:]) async throws -> (status: Int, body: [String: Any]) {
        let answer = try await postForHeaders(path, body: body, headers: headers)
        return (answer.status, answer.body)
    }

    func postForHeaders(_ path: String, body: Data, headers: [String: String] = [:]) async throws -> (
        status: Int, body: [String: Any], headers: [AnyHashable: Any]
    ) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:], http?.allHeaderFields ?? [:])
    }

    func getJSON(_ path: String) async throws -> [String: Any] {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// Polls `condition` every 50 ms for up to 10 s (a reload, a log line): whether it became true.
    static func waitFor(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Sends a signal (SIGHUP: reload).
    func signal(_ number: Int32) {
        Foundation.kill(process.processIdentifier, number)
    }

    /// The body of a GET as text (`/metrics`).
    func getText(_ path: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        return String(decoding: data, as: UTF8.self)
    }

    func get(_ path: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
