import Foundation
import NIOCore
import Testing
import VerificationCore

@testable import VerifierServer

/// Each client's share of the verification slots and of the outstanding sessions, the slot given
/// back while a verification waits on another server, and how clients are told apart.
@Suite struct AdmissionShareTests {
    /// Holds a slot of `client` until `release` yields; `entered` yields once inside.
    static func hold(
        _ admission: RequestAdmission, client: String
    ) -> (task: Task<Bool, any Error>, entered: AsyncStream<Void>, release: AsyncStream<Void>.Continuation) {
        let (entered, enteredSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let task = Task {
            let result = try await admission.withVerificationSlotOrRefusal(client: client) {
                enteredSignal.yield()
                for await _ in release { break }
                return true
            }
            return (try? result.get()) ?? false
        }
        return (task, entered, releaseSignal)
    }

    @Test func oneClientHoldsAtMostItsShareOfTheSlots() async throws {
        let admission = RequestAdmission(
            ratePerMinute: 0, maxOutstanding: 10, maxConcurrent: 4, verificationWait: .milliseconds(200), maxPerClient: 2)
        let first = Self.hold(admission, client: "a"), second = Self.hold(admission, client: "a")
        for await _ in first.entered { break }
        for await _ in second.entered { break }
        // A third of client a waits its 200 ms and is told its own share is full.
        let third = try await admission.withVerificationSlotOrRefusal(client: "a") { 3 }
        #expect(third == .failure(.clientBusy))
        // Client b still runs: two slots are free.
        #expect(try await admission.withVerificationSlotOrRefusal(client: "b") { 4 } == .success(4))
        // A waiting verification of a runs as soon as one of a's own finishes.
        let waiting = Task { try await admission.withVerificationSlotOrRefusal(client: "a") { 5 } }
        try await Task.sleep(for: .milliseconds(30))
        first.release.yield()
        #expect(try await first.task.value)
        #expect(try await waiting.value == .success(5))
        second.release.yield()
        #expect(try await second.task.value)
        #expect(admission.runningCount == 0)
    }

    @Test func aVerificationWaitingOnAnotherServerGivesItsSlotBack() async throws {
        let admission = RequestAdmission(ratePerMinute: 0, maxOutstanding: 10, maxConcurrent: 1, verificationWait: .milliseconds(300))
        let (fetching, fetchingSignal) = AsyncStream<Void>.makeStream()
        let (answer, answerSignal) = AsyncStream<Void>.makeStream()
        let slow = Task {
            try await admission.withVerificationSlot(client: "a") {
                try await OutboundWait.during {
                    fetchingSignal.yield()
                    for await _ in answer { break }
                }
                return "slow"
            }
        }
        for await _ in fetching { break }
        // The only slot is free while the slow one waits on its list server.
        #expect(admission.runningCount == 0)
        #expect(try await admission.withVerificationSlot(client: "b") { "other" } == "other")
        answerSignal.yield()
        #expect(try await slow.value == "slow")
        #expect(admission.runningCount == 0)
    }

    /// Waiters served in time leave nothing behind: one sweeping task watches every deadline (not a
    /// timer each), and the waiters past theirs are turned away in the order they queued.
    @Test func oneSweepWatchesTheDeadlinesOfManyWaiters() async throws {
        let admission = RequestAdmission(ratePerMinute: 0, maxOutstanding: 10, maxConcurrent: 1, verificationWait: .seconds(30))
        let holder = Self.hold(admission, client: "a")
        for await _ in holder.entered { break }
        let waiters = (0..<40).map { index in Task { try await admission.withVerificationSlotOrRefusal(client: "c\(index)") { index } } }
        while admission.waitingCount < 40 { try await Task.sleep(for: .milliseconds(5)) }
        holder.release.yield()
        #expect(try await holder.task.value)
        for (index, waiter) in waiters.enumerated() { #expect(try await waiter.value == .success(index)) }
        #expect(admission.sweepsStarted == 1)
        #expect(admission.runningCount == 0 && admission.waitingCount == 0)

        // Waiters past their deadline are turned away, each at its own.
        let short = RequestAdmission(ratePerMinute: 0, maxOutstanding: 10, maxConcurrent: 1, verificationWait: .milliseconds(150))
        let busy = Self.hold(short, client: "a")
        for await _ in busy.entered { break }
        let clock = ContinuousClock()
        let started = clock.now
        async let early = short.withVerificationSlotOrRefusal(client: "b") { 1 }
        try await Task.sleep(for: .milliseconds(60))
        async let late = short.withVerificationSlotOrRefusal(client: "c") { 2 }
        #expect(try await early == .failure(.busy))
        let earlyAt = clock.now - started
        #expect(try await late == .failure(.busy))
        let lateAt = clock.now - started
        #expect(earlyAt >= .milliseconds(150) && lateAt >= .milliseconds(210), "\(earlyAt) \(lateAt)")
        // One sweep, or two when the first ended (nobody waiting) before the late one queued.
        #expect((1...2).contains(short.sweepsStarted))
        busy.release.yield()
        #expect(try await busy.task.value)
        #expect(try await short.withVerificationSlotOrRefusal(client: "d") { 3 } == .success(3))
    }

    @Test func eachClientHasItsShareOfOutstandingSessions() {
        let admission = RequestAdmission(
            ratePerMinute: 0, maxOutstanding: 100, maxConcurrent: 1, maxClientOutstanding: 3, sessionLifetime: .seconds(60))
        let now = ContinuousClock.now
        #expect((0..<5).map { _ in admission.takeClientSession(client: "a", now: now) } == [true, true, true, false, false])
        #expect(admission.takeClientSession(client: "b", now: now))
        // A creation that failed gives its share back; sessions past the lifetime no longer count.
        admission.returnClientSession(client: "a")
        #expect(admission.takeClientSession(client: "a", now: now))
        #expect(admission.takeClientSession(client: "a", now: now + .seconds(61)))
    }

    @Test func clientsAreAddressesAndIPv6ClientsTheirSlash64() throws {
        #expect(ClientKey.of(try SocketAddress(ipAddress: "192.0.2.7", port: 1234)) == "192.0.2.7")
        let one = ClientKey.of(try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1))
        let two = ClientKey.of(try SocketAddress(ipAddress: "2001:db8:1:2:ffff:ffff:ffff:ffff", port: 2))
        let other = ClientKey.of(try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1))
        #expect(one == two)
        #expect(one != other)
        #expect(one == "2001:db8:1:2::/64")
        #expect(ClientKey.of(try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 1)) == "192.0.2.7")
        #expect(ClientKey.of(nil) == "unknown")
    }

    /// The byte scan agrees with the rules written out the plain way, on random paths over the
    /// characters that matter.
    @Test func canonicalPathScanAgreesWithTheRules() {
        func plain(_ path: String) -> Bool {
            guard path.hasPrefix("/") else { return false }
            if path == "/" { return true }
            let lower = path.lowercased()
            for encoded in ["%2f", "%5c", "%2e", "%00"] where lower.contains(encoded) { return false }
            if path.contains("\\") { return false }
            for segment in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
                if segment.isEmpty || segment == "." || segment == ".." { return false }
            }
            return true
        }
        let pieces = ["/", ".", "..", "a", "v1", "%", "%2", "%2f", "%2F", "%2e", "%2E", "%5c", "%5C", "%00", "%0", "%20", "\\", "é", "x.y"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let path = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(CanonicalPathMiddleware.isCanonical(path) == plain(path), "\(path)")
        }
    }

    @Test func canonicalPaths() {
        for path in ["/", "/v1/trust", "/healthz", "/v1/identity/verify"] { #expect(CanonicalPathMiddleware.isCanonical(path), "\(path)") }
        for path in [
            "//v1/trust", "/v1//trust", "/./v1/trust", "/%2Fv1/trust", "/v1/./trust", "/v1/trust/", "/v1/../trust", "/v1%2ftrust", "/v1\\trust", "",
            "/v1/%2E%2e/trust", "/v1/tr%5Cust", "/v1/t%00", "/..", "/.", "/v1/.",
        ] {
            #expect(!CanonicalPathMiddleware.isCanonical(path), "\(path)")
        }
    }
}
