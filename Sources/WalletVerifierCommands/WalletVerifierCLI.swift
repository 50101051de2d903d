import ArgumentParser
import Foundation
import VerificationCore
import VerifierServer

/// The `wallet-verifier` command line.
///
/// Exit codes, for every verify command: 0 accepted, 1 rejected, 2 usage error or unreadable input,
/// 3 indeterminate. `--help` exits 0.
public struct WalletVerifierCommand: AsyncParsableCommand {
    /// The root command's name, abstract, exit-code summary and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "wallet-verifier",
        abstract: "Verify what wallets hand over: identity responses (ISO 18013-5 mdoc), Apple Pay and Google Pay payment tokens.",
        discussion: """
            Exit codes of verify commands: 0 accepted, 1 rejected, 2 usage error or unreadable input, 3 indeterminate.
            """,
        subcommands: CommandRegistry.subcommands
    )

    /// Creates the root command; ArgumentParser fills it from the command line.
    public init() {}
}

/// Subcommands of the root command. Each flow adds its command group here.
enum CommandRegistry {
    static let subcommands: [any ParsableCommand.Type] = [
        CBORCommand.self,
        ApplePayCommand.self,
        GooglePayCommand.self,
        MdocCommand.self,
        IdentityCommand.self,
        WebCommand.self,
        SDJWTCommand.self,
        ReceiptCommand.self,
        TrustCommand.self,
        KeysCommand.self,
        ServeCommand.self,
    ]
}

/// Exit codes shared by all commands.
public enum CLIExit {
    /// The verdict is accepted (also `--help`).
    public static let accepted: Int32 = 0
    /// The verdict is rejected.
    public static let rejected: Int32 = 1
    /// A usage error or input that cannot be read.
    public static let usage: Int32 = 2
    /// The verdict is indeterminate: no required check failed, but at least one could not be decided.
    public static let indeterminate: Int32 = 3
}

/// An error for input the command cannot use: reported on standard error, exit code 2.
public typealias CLIInputError = CodedError<CLIInputErrorDomain>

/// The domain of ``CLIInputError``: a command's input (reported on standard error, exit code 2).
public enum CLIInputErrorDomain: ErrorDomain {
    /// `CLIInputError`.
    public static let name = "CLIInputError"
    /// ``ErrorCode/invalidInput``.
    public static let defaultCode = ErrorCode.invalidInput
}

/// Where commands write. Tests capture it; the executable prints to stdout and stderr.
public final class CLIOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var outBuffer = ""
    private var errBuffer = ""
    private let capture: Bool

    /// Creates an output that buffers what is written when `capture` is true, and prints it otherwise.
    public init(capture: Bool) { self.capture = capture }

    /// Writes a line (or lines) to standard output. Control characters other than line breaks and
    /// tabs are escaped (``TerminalText``): whatever a command prints, no escape sequence from the
    /// input reaches the terminal.
    public func out(_ raw: String) {
        let text = TerminalText.escape(raw, keepLineBreaks: true)
        if capture { lock.withLock { outBuffer += text + "\n" } } else { print(text) }
    }

    /// Writes a line to standard error, escaped like ``out(_:)``.
    public func err(_ raw: String) {
        let text = TerminalText.escape(raw, keepLineBreaks: true)
        if capture {
            lock.withLock { errBuffer += text + "\n" }
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    /// Everything written to standard output so far; empty unless capturing.
    public var standardOutput: String { lock.withLock { outBuffer } }
    /// Everything written to standard error so far; empty unless capturing.
    public var standardError: String { lock.withLock { errBuffer } }

    /// The output of the current task; ``WalletVerifierCommand/runCapturing(_:)`` binds a capturing one.
    @TaskLocal public static var current = CLIOutput(capture: false)
}

/// Thrown by a command to end with a specific exit code after it has written its output.
struct CommandExit: Error {
    let code: Int32
}

extension WalletVerifierCommand {
    /// Parses and runs a command line, returning the exit code. Never calls `exit`.
    public static func run(arguments: [String]) async -> Int32 {
        let output = CLIOutput.current
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch let exit as CommandExit {
            return exit.code
        } catch let error as CLIInputError {
            output.err("error: \(error.description)")
            return CLIExit.usage
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version
                output.out(fullMessage(for: error))
                return 0
            }
            let message = fullMessage(for: error)
            if !message.isEmpty { output.err(message) }
            // ArgumentParser reports usage errors as 64; the contract says 2.
            return code == .validationFailure ? CLIExit.usage : (code.rawValue == 1 ? CLIExit.usage : code.rawValue)
        }
    }

    /// Process-wide set-up before ``run(arguments:)``, for the executable only (call it first, from the
    /// main thread): `serve` runs Swift tasks on the HTTP server's event-loop threads unless
    /// `WALLET_VERIFIER_EVENT_LOOP_EXECUTOR=off` (see `EventLoopExecutor`).
    public static func prepareProcess(arguments: [String], environment: [String: String]) {
        if arguments.first == "serve", !arguments.contains("--check"), EventLoopExecutor.enabled(environment: environment) {
            EventLoopExecutor.runTasksOnEventLoops()
        }
    }

    /// Runs with output captured, for tests.
    public static func runCapturing(_ arguments: [String]) async -> (code: Int32, stdout: String, stderr: String) {
        let output = CLIOutput(capture: true)
        let code = await CLIOutput.$current.withValue(output) {
            await run(arguments: arguments)
        }
        return (code, output.standardOutput, output.standardError)
    }
}
