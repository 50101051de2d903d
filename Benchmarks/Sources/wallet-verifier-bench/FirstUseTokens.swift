import ApplePayVerifier
import VerificationCore

/// Apple Pay tokens verified in turn, each as a first submission: the replay check must see first
/// uses, so every pass over the tokens gets a verifier with a fresh replay store (`makeVerifier`;
/// ring, anchor and chain cache are shared, so a new verifier costs nothing).
struct FirstUseTokens {
    let tokens: [[UInt8]]
    let makeVerifier: () throws -> ApplePayTokenVerifier
    private var verifier: ApplePayTokenVerifier
    private var index = 0

    init(_ tokens: [[UInt8]], makeVerifier: @escaping () throws -> ApplePayTokenVerifier) throws {
        precondition(!tokens.isEmpty)
        self.tokens = tokens
        self.makeVerifier = makeVerifier
        self.verifier = try makeVerifier()
    }

    /// Verifies the next token.
    mutating func verifyNext(context: VerificationContext) async throws -> ApplePayResult {
        if index == tokens.count {
            index = 0
            verifier = try makeVerifier()
        }
        defer { index += 1 }
        return await verifier.verify(tokens[index], context: context)
    }

    /// Starts again from the first token with a fresh replay store.
    mutating func restart() throws {
        index = 0
        verifier = try makeVerifier()
    }
}
