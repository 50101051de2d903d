import ArgumentParser
import Foundation
import Hummingbird
import Logging
import VerificationCore
import VerifierServer

/// `wallet-verifier serve`: the HTTP verification service.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP verification service (embedded SQLite store by default).",
        discussion: """
            Every setting can also come from the environment (\(ServerSettings.environmentNames.values.sorted().joined(separator: ", ")); \
            lists comma-separated) or a JSON config file (--config) whose keys are \(ServerSettings.configKeys.joined(separator: ", ")); \
            flags win over the environment, the environment over the file. \
            Without keys, it starts with a generated development identity key and says so. SIGHUP re-reads the trust roots, \
            revocation-list files and every key (and the config file) without a restart; a configuration that does not load is \
            refused as a whole and the running one stays.
            """
    )

    @OptionGroup var options: ServeOptions
    @Flag(
        name: .long,
        help:
            "Check the configuration and exit: load every key, certificate, trust root, VICAL and the store as serve would, bind no port; exit 0 when ready for production (warnings allowed), 1 when a check failed or a development stand-in is configured."
    )
    var check = false
    @Flag(
        name: .long,
        help:
            "With --check: for a developer's machine, development stand-ins (generated keys, development merchant values, no trust roots, test roots, the memory store) are warnings, not failures."
    )
    var development = false
    @Option(name: .long, help: "With --check: table (default) or json.") var format: String?

    func validate() throws {
        if format != nil && !check { throw ValidationError("--format goes with --check") }
        if development && !check { throw ValidationError("--development goes with --check") }
        if let format, format != "table", format != "json" { throw ValidationError("--format takes table or json, got \"\(format)\"") }
    }

    func run() async throws {
        let flags = options.flags
        let config = options.config
        let settings = try options.settings()
        if check {
            try await PreflightOutput.run(settings: settings, json: format == "json", development: development)
            return
        }
        // What must not run whatever else is configured: said before anything is loaded.
        let refusals = ServicePreflight.startRefusals(settings: settings)
        if !refusals.isEmpty { throw CLIInputError("cannot start: " + refusals.map(\.message).joined(separator: "; ")) }
        var configuredLogger =
            settings.logFormat == .json ? Logger(label: "wallet-verifier") { _ in JSONLogHandler() } : Logger(label: "wallet-verifier")
        configuredLogger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let logger = configuredLogger
        // Every connection is a file descriptor: the soft limit goes up to the hard one.
        if let limit = FileDescriptorLimit.raiseSoftToHard() {
            logger.notice(
                "open files: soft limit \(limit.before) -> \(limit.after), hard limit \(limit.hard)\(limit.after < limit.hard ? " (the raise was refused)" : "")"
            )
        }
        if !EventLoopExecutor.isInstalled {
            logger.notice(
                "request handlers run on Swift's thread pool, not on the HTTP server's event loops (WALLET_VERIFIER_EVENT_LOOP_EXECUTOR=off, or not available here)"
            )
        }
        let services: VerifierServices
        do {
            services = try await VerifierServices.make(settings: settings, logger: logger)
        } catch {
            throw CLIInputError("cannot start: \(error)")
        }
        // SIGHUP: the same flags, the environment and the config file, read again.
        let live = LiveServices(services)
        let flagsAtStart = flags, configFile = config
        let reload = ReloadOnSignalService(live: live, logger: logger) {
            try ServerSettings.resolve(flags: flagsAtStart, environment: ProcessInfo.processInfo.environment, configFile: configFile)
        }
        let app = VerifierApplication.build(
            live: live, logger: logger, extraServices: [reload, CertificateExpiryWarnings(live: live, logger: logger)]
        ) { channel in
            if let address = channel.localAddress {
                logger.notice("listening on http://\(settings.host):\(address.port ?? settings.port)")
            }
        }
        do {
            if let listen = settings.uiListen {
                let access: WebPageAccess
                do { access = try WebPageAccess.load(tokenFile: settings.uiTokenFile) } catch { throw CLIInputError("cannot start: \(error)") }
                let page = VerifierApplication.buildWebPage(live: live, access: access, host: listen.host, port: listen.port, logger: logger) {
                    channel in
                    let port = channel.localAddress?.port ?? listen.port
                    // The one place the page token is logged: once, when it was generated here.
                    if access.generated {
                        logger.notice(
                            "web page on \(access.signInURL(host: listen.host, port: port)) (open once; the token was generated for this run)")
                    } else {
                        logger.notice("web page on http://\(listen.host):\(port)/ (open /?token=… with the token of --ui-token-file)")
                    }
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await Self.listening(host: settings.host, port: settings.port, flag: "--port") { try await app.runService() }
                    }
                    group.addTask {
                        try await Self.listening(host: listen.host, port: listen.port, flag: "--ui-listen") { try await page.runService() }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } else {
                try await Self.listening(host: settings.host, port: settings.port, flag: "--port") { try await app.runService() }
            }
        } catch {
            await services.shutdown()
            throw error
        }
        await services.shutdown()
    }

    /// Runs a listener; an address already in use (or not this machine's) becomes an error that names it
    /// and the flag that chooses another.
    static func listening(host: String, port: Int, flag: String, _ run: () async throws -> Void) async throws {
        do {
            try await run()
        } catch {
            guard let problem = ListenFailure.describe(error, host: host, port: port, flag: flag) else { throw error }
            throw CLIInputError(problem)
        }
    }
}
