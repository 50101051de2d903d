import ArgumentParser

/// `wallet-verifier applepay ...`
struct ApplePayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "applepay",
        abstract: "Verify and decrypt Apple Pay payment tokens (EC_v1, RSA_v1).",
        subcommands: [ApplePayDecryptCommand.self]
    )
}
