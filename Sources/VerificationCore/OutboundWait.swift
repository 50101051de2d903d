/// Waiting on another server in the middle of a verification (a revocation list, a VICAL URL).
///
/// A server that limits how many verifications run at once must not let a slow peer hold one of its
/// slots while the verification only waits: code that waits on the network wraps the wait in
/// ``during(_:)``; the caller that admitted the verification sets ``hooks`` for its task, to give the
/// slot back while the wait lasts and to take one again before the verification goes on. Without
/// hooks (the CLI, a library caller) ``during(_:)`` just runs its body.
public enum OutboundWait {
    /// What a slot-limited caller does around a network wait.
    public struct Hooks: Sendable {
        /// Called as the wait starts: give the verification's slot back.
        public let leave: @Sendable () -> Void
        /// Called as the wait ends, before the verification goes on: take a slot again.
        public let reenter: @Sendable () async -> Void

        /// Hooks from the two closures.
        public init(leave: @escaping @Sendable () -> Void, reenter: @escaping @Sendable () async -> Void) {
            self.leave = leave
            self.reenter = reenter
        }
    }

    /// The hooks of the verification running in this task, if its caller limits slots.
    @TaskLocal public static var hooks: Hooks?

    /// Runs `body` (a network wait) outside the verification's slot: ``Hooks/leave`` before,
    /// ``Hooks/reenter`` after, whether `body` returned or threw. Nested waits leave only once.
    public static func during<T>(_ body: () async throws -> T) async throws -> T {
        guard let hooks else { return try await body() }
        hooks.leave()
        let result: Result<T, any Error>
        do {
            result = .success(try await $hooks.withValue(nil) { try await body() })
        } catch {
            result = .failure(error)
        }
        await hooks.reenter()
        return try result.get()
    }
}
