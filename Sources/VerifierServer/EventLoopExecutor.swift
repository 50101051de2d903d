import NIOCore
import NIOPosix
import Synchronization

/// Where the service's Swift concurrency tasks run.
///
/// By default Swift runs tasks on its own thread pool while the HTTP server's sockets are served by
/// NIO's event-loop threads, so every request crosses between the two several times (a thread wake-up
/// each). ``runTasksOnEventLoops()`` makes NIO's shared event-loop threads (the ones the server uses)
/// Swift's global executor: a request's handler then runs on the thread that read it, and writes its
/// answer from there. The `serve` command calls it at start-up when
/// `WALLET_VERIFIER_EVENT_LOOP_EXECUTOR=on`. It is off by default: it lowered the CPU per Apple Pay
/// request on the in-memory store, but in-app identity verification on the in-memory store showed a
/// p99 latency above one second with it (not yet explained), and on the SQLite store the gain was
/// within the benchmark's noise.
public enum EventLoopExecutor {
    private static let installed = Mutex<Bool?>(nil)

    /// Installs NIO's shared event-loop group as Swift concurrency's global executor, once per
    /// process (later calls return the first call's answer). Call it before the service starts,
    /// from the main thread. Returns false when the platform does not support it (nothing changes).
    @discardableResult
    public static func runTasksOnEventLoops() -> Bool {
        installed.withLock { installed in
            if let installed { return installed }
            let result = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
            installed = result
            return result
        }
    }

    /// True once ``runTasksOnEventLoops()`` has succeeded in this process.
    public static var isInstalled: Bool { installed.withLock { $0 ?? false } }

    /// True when the environment variable `WALLET_VERIFIER_EVENT_LOOP_EXECUTOR` is `on`, `1`, `true` or `yes`.
    public static func enabled(environment: [String: String]) -> Bool {
        guard let value = environment["WALLET_VERIFIER_EVENT_LOOP_EXECUTOR"]?.lowercased() else { return false }
        return ["on", "1", "true", "yes"].contains(value)
    }
}
