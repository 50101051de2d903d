#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A source of the current time. Verifications never read the clock themselves: the caller passes the
/// time in a ``VerificationContext``; servers take it from a clock like this one.
public protocol VerificationClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The machine's clock.
public struct SystemClock: VerificationClock {
    /// The system clock.
    public init() {}
    /// The system's current time.
    public func now() -> Date { Date() }
}

/// Always the same instant (tests, replaying an old token at its signing time).
public struct FixedClock: VerificationClock {
    /// The instant ``now()`` always returns.
    public let instant: Date
    /// A clock stopped at `instant`.
    public init(_ instant: Date) { self.instant = instant }
    /// Always ``instant``.
    public func now() -> Date { instant }
}

/// What every check may read besides its input: the verification time and the allowed clock skew.
public struct VerificationContext: Sendable, Hashable {
    /// The instant at which validity is judged (certificates, MSO validity, signing-time windows).
    public var time: Date
    /// Tolerance for clocks that disagree (issuer, device and server), applied where documented.
    public var clockSkew: Duration
    /// The submission's idempotency key, when the caller sent one: one-time values it consumed are
    /// recognised on its retries (``IdempotencyTag``).
    public var idempotency: IdempotencyTag?

    /// Creates a context; no clock skew and no idempotency key unless given.
    public init(time: Date, clockSkew: Duration = .seconds(0), idempotency: IdempotencyTag? = nil) {
        self.time = time
        self.clockSkew = clockSkew
        self.idempotency = idempotency
    }

    /// ``clockSkew`` in seconds, with fractions.
    public var clockSkewSeconds: Double {
        let parts = clockSkew.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// A context with only the verification time (no clock skew, no idempotency tag): `.at(date)`.
    public static func at(_ time: Date) -> VerificationContext {
        VerificationContext(time: time)
    }

    /// This context with a clock skew of at least `skew`. Flows whose policy sets a clock skew (the mdoc
    /// flows) use the larger of the policy's and the caller's allowance.
    public func allowingClockSkew(_ skew: Duration) -> VerificationContext {
        var context = self
        context.clockSkew = max(clockSkew, skew)
        return context
    }
}
