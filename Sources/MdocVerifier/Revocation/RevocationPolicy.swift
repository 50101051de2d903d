import VerificationCore

/// How revocation is decided and what an undecidable answer means.
public struct RevocationPolicy: Sendable, Hashable {
    /// What to do when revocation cannot be decided (list unavailable, expired, stale, badly signed,
    /// untrusted, index out of range).
    public enum Undetermined: String, Sendable, Hashable {
        /// `mdoc.revocation.list` is recorded with status `error`, so the verdict is indeterminate.
        case error
        /// `mdoc.revocation.list` and `mdoc.revocation.status` are recorded as `skipped` with the
        /// reason, and the report carries a warning. The verdict is decided by the other checks.
        case warning
    }

    /// What an undecidable revocation answer does to the verdict: an error (the default) or a warning.
    public var undetermined: Undetermined
    /// A list whose `iat` is older than this at the verification time is stale (undetermined).
    /// Default one day: Apple signs its lists daily. Nil trusts a list until its `exp`.
    public var maximumListAge: Duration?
    /// Tolerance for `iat` in the future and `exp` in the past.
    public var clockSkew: Duration
    /// Largest decompressed status list accepted (a guard against zlib bombs).
    public var maximumStatusListSize: Int
    /// Whether an MSO without a `status` entry fails `mdoc.revocation.status` (`statusMissing`)
    /// instead of being not applicable.
    public var requireStatusEntry: Bool

    /// Creates a policy; the defaults are those of ``strict``.
    /// Defaults: undetermined is an error, lists at most one day old, 60 s of clock skew, status lists up to 16 MiB, status entry optional.
    public init(
        undetermined: Undetermined = .error, maximumListAge: Duration? = .seconds(86_400), clockSkew: Duration = .seconds(60),
        maximumStatusListSize: Int = 16 * 1024 * 1024, requireStatusEntry: Bool = false
    ) {
        self.undetermined = undetermined
        self.maximumListAge = maximumListAge
        self.clockSkew = clockSkew
        self.maximumStatusListSize = maximumStatusListSize
        self.requireStatusEntry = requireStatusEntry
    }

    /// Undetermined revocation makes the verdict indeterminate.
    public static let strict = RevocationPolicy()

    /// Undetermined revocation is a warning; a revoked document is still rejected.
    public static let warnWhenUndetermined = RevocationPolicy(undetermined: .warning)
}
