/// What loading or refreshing a trust source observed, for the caller's log (the library logs
/// nothing itself): the service logs each at its level, the command line prints errors.
public enum TrustSourceEvent: Sendable, Equatable {
    /// A source was loaded or refreshed.
    case notice(String)
    /// A source is usable but needs attention (stale, kept instead of a refused copy).
    case warning(String)
    /// A copy or a fetch was refused, or could not be obtained.
    case error(String)

    /// The message, whatever the level.
    public var message: String {
        switch self {
        case .notice(let text), .warning(let text), .error(let text): text
        }
    }
}
