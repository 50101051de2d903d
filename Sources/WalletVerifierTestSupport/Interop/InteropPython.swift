import Foundation

/// The Python of `.venv-interop` (joserfc and cbor2 from PyPI, installed by scripts/test), for the
/// tests that check our output with implementations written by nobody here.
public enum InteropPython {
    /// A script that exited with another status than 0.
    public struct Failure: Error, CustomStringConvertible {
        /// The script's name and its standard error.
        public let description: String
    }

    /// The package's root directory.
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url
    }()

    /// `WALLET_VERIFIER_INTEROP_PYTHON`, else `.venv-interop/bin/python`, when executable.
    public static let python: String? = {
        let candidates: [String?] = [
            ProcessInfo.processInfo.environment["WALLET_VERIFIER_INTEROP_PYTHON"], root.appendingPathComponent(".venv-interop/bin/python").path,
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs `script` (a path relative to the root) with `input` as JSON on its standard input, on a
    /// thread of its own (never on the cooperative pool), and returns its standard output. Throws
    /// `CancellationError` without the Python, ``Failure`` when the script fails.
    public static func run(_ script: String, input: Any) async throws -> String {
        guard let python else { throw CancellationError() }
        let data = try JSONSerialization.data(withJSONObject: input)
        let path = root.appendingPathComponent(script).path
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: python)
                    process.arguments = [path]
                    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
                    process.standardInput = stdin
                    process.standardOutput = stdout
                    process.standardError = stderr
                    try process.run()
                    stdin.fileHandleForWriting.write(data)
                    try stdin.fileHandleForWriting.close()
                    let output = stdout.fileHandleForReading.readDataToEndOfFile()
                    let errors = stderr.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    guard process.terminationStatus == 0 else {
                        let name = (script as NSString).lastPathComponent
                        continuation.resume(throwing: Failure(description: "\(name) failed: \(String(decoding: errors, as: UTF8.self))"))
                        return
                    }
                    continuation.resume(returning: String(decoding: output, as: UTF8.self))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
    }
}
