import ArgumentParser

/// `wallet-verifier keys`: the service's own keys and certificates.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "The service's own keys and certificates (Apple Pay, reader, request signing).",
        subcommands: [KeysStatusCommand.self]
    )
}
