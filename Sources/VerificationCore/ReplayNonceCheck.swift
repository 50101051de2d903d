/// `replay.nonce`: the request's nonce was issued here, has not expired and is used for the first time
/// (or this is a keyed retry of the submission that used it). The request session decides it against
/// its ``ReplayStore`` before the flow runs — reading the request without consuming it — and the flow
/// records that outcome first; a flow that consumes the request only once the answer has shown it can
/// be accepted revises it in place afterwards (``CheckRunner/revise(_:scope:_:)``).
public struct ReplayNonceCheck: VerificationCheck {
    /// What the request session found.
    public let outcome: CheckOutcome

    /// The check recording `outcome`.
    public init(_ outcome: CheckOutcome) {
        self.outcome = outcome
    }

    /// `replay.nonce`.
    public var id: CheckID { .replayNonce }

    /// The session's outcome.
    public func evaluate(_ state: inout Void, context: VerificationContext) async throws -> CheckOutcome { outcome }
}

extension CheckRunner {
    /// Records `replay.nonce` with the request session's outcome (``ReplayNonceCheck``).
    public mutating func recordReplayNonce(_ outcome: CheckOutcome) async {
        var none: Void = ()
        await run(ReplayNonceCheck(outcome), state: &none)
    }
}
