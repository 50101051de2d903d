import NIOCore
import NIOPosix
import Synchronization

/// Where the service's Swift concurrency tasks run.
///
/// By default Swift runs tasks on its own thread pool while the HTTP server's sockets are served by
/// NIO's event-loop threads, so every request crosses between the two several times (a thread wake-up
/// each). ``runTasksOnEventLoops()`` makes NIO's shared event-loop threads (the ones the server uses)
/// Swift's global executor: a request's handler then runs on the thread that read it, and writes its
/// answer from there. The `serve` command calls it at start-up unless
/// `WALLET_VERIFIER_EVENT_LOOP_EXECUTOR=off`. With it, the service spends about a third less CPU per
/// verification on the SQLite store (see the README's benchmark section). Code on the request path
/// must not block a thread (the event loops serve the sockets too): the SQLite store runs on a thread
/// of its own and answers on the caller's event loop, and no actor sits on the request path (resuming
/// from an actor moves a handler to whichever loop ran the actor).
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

    /// True unless the environment variable `WALLET_VERIFIER_EVENT_LOOP_EXECUTOR` is `off`, `0`,
    /// `false` or `no` (any case).
    public static func enabled(environment: [String: String]) -> Bool {
        guard let value = environment["WALLET_VERIFIER_EVENT_LOOP_EXECUTOR"]?.lowercased() else { return true }
        return !["off", "0", "false", "no"].contains(value)
    }
}
