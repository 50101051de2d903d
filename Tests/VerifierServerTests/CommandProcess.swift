import Foundation

/// Runs the built `wallet-verifier` with some arguments to its end, for tests of what a command
/// prints and exits with. It waits on a thread of its own, never on one of Swift's cooperative threads.
enum CommandProcess {
    /// Runs `wallet-verifier ARGUMENTS` until it exits or `seconds` pass (then it is terminated):
    /// its exit status (nil when terminated) and everything it wrote.
    static func run(_ arguments: [String], seconds: Double = 60) async throws -> (status: Int32?, output: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wallet-verifier")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // The output is read while the process runs, so a full pipe never blocks it.
        let collected = OutputBuffer()
        pipe.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(seconds)
                while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
                let exited = !process.isRunning
                if !exited { process.terminate() }
                process.waitUntilExit()
                pipe.fileHandleForReading.readabilityHandler = nil
                collected.append(pipe.fileHandleForReading.readDataToEndOfFile())
                continuation.resume(returning: (exited ? process.terminationStatus : nil, collected.text))
            }
        }
    }

    /// Bytes from a readability handler, kept under a lock.
    final class OutputBuffer: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.withLock { data.append(more) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }
}
