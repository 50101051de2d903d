#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`). Every connection is a file descriptor: with
/// the common soft limit of 1,024, a thousand idle connections would leave none for the store or a
/// new client, so `serve` raises the soft limit to the hard one at start and logs both.
public enum FileDescriptorLimit {
    /// The soft and hard limits before and after a raise.
    public struct Change: Sendable, Hashable {
        /// The soft limit before.
        public var before: UInt64
        /// The soft limit now.
        public var after: UInt64
        /// The hard limit (the most the soft limit may be raised to without privileges).
        public var hard: UInt64
    }

    /// Raises the soft limit to the hard limit; nil when the limits cannot be read. A refused raise
    /// leaves the soft limit as it was (``Change/after`` says so).
    public static func raiseSoftToHard() -> Change? {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return nil }
        let before = UInt64(limit.rlim_cur), hard = UInt64(limit.rlim_max)
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resourceNumber, &raised) == 0 { return Change(before: before, after: hard, hard: hard) }
        }
        return Change(before: before, after: before, hard: hard)
    }

    #if canImport(Glibc)
    private static var resourceNumber: __rlimit_resource_t { __rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue)) }
    #else
    private static var resourceNumber: Int32 { RLIMIT_NOFILE }
    #endif
}
