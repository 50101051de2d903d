import ServiceLifecycle

/// The loop of the service's background tasks (certificate warnings, VICAL, revocation-list and
/// Google root-key refreshes, the receipt purge): `work` every `interval` until graceful shutdown or
/// cancellation. `startImmediately` runs it once before the first wait; otherwise the first run comes
/// after one interval.
func repeatUntilShutdown(every interval: Duration, startImmediately: Bool, _ work: @escaping @Sendable () async -> Void) async {
    await cancelWhenGracefulShutdown {
        if startImmediately, !Task.isCancelled { await work() }
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            await work()
        }
    }
}
