import ApplePayVerifier
import ArgumentParser
import Foundation
import GooglePayVerifier
import TrustDocuments
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletJSON

/// `wallet-verifier googlepay ...`
struct GooglePayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "googlepay",
        abstract: "Verify and decrypt Google Pay payment tokens (ECv2).",
        subcommands: [GooglePayVerifyCommand.self, GooglePayDecryptCommand.self]
    )
}

/// The options both `googlepay` subcommands take: the token, whom it is for, Google's root keys,
/// the time and the output format.
struct GooglePayTokenOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "The token file: the PaymentMethodToken JSON, the JSON string the page receives in paymentMethodData.tokenizationData.token, or the whole PaymentData response."
    )
    var token: String

    @Option(name: .long, help: "Your merchant id from the Google Pay & Wallet Console (tokens are signed for merchant:ID).")
    var merchantId: String

    @Option(
        name: .long,
        help:
            "Google's root signing keys, in the key-list format Google publishes (keys.json): a file, or its https URL (fetched once, within --fetch-timeout)."
    )
    var rootKeys: String

    @Option(name: .long, help: "Seconds fetching a --root-keys URL may take in all, connecting, headers and body (default 10, 1...300).")
    var fetchTimeout: Int = 10

    @Option(name: .long, help: "Verification time (RFC 3339). Default: now.")
    var at: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if merchantId.isEmpty { throw ValidationError("--merchant-id must not be empty") }
        if !(1...300).contains(fetchTimeout) { throw ValidationError("--fetch-timeout must be a whole number of seconds in 1...300") }
    }

    /// The verification time: `--at`, or now.
    func time() throws -> Date {
        guard let at else { return Date() }
        guard let parsed = RFC3339.parse(at) else {
            throw CLIInputError("--at \(at) is not an RFC 3339 time (e.g. 2024-05-01T12:00:00Z)")
        }
        return parsed
    }

    /// The root key list from `--root-keys`: a file, or a URL fetched once through the library's
    /// trust-document source as `serve` fetches it (a list with no ECv2 key usable at `time` is
    /// refused). A list that cannot be had or does not parse is unreadable input.
    func loadRootKeys(at time: Date) async throws -> GooglePayRootKeys {
        if TrustDocumentFetchFailure.isURL(rootKeys) {
            let source = GooglePayRootKeySource(transport: HTTPTrustDocumentTransport(timeout: TimeInterval(fetchTimeout)))
            switch await source.fetch(rootKeys, store: nil, now: time) {
            case .success(let copy): return copy.keys
            case .failure(let failure): throw CLIInputError("--root-keys \(rootKeys): \(failure)")
            }
        }
        let bytes = try InputFiles.readFile(rootKeys)
        do {
            return try GooglePayRootKeys.parse(bytes)
        } catch {
            throw CLIInputError("--root-keys \(rootKeys): \(error.message)")
        }
    }

    /// The token's bytes, taken out of the forms a page hands over (see ``GooglePayTokenInput``).
    func loadToken() throws -> [UInt8] {
        GooglePayTokenInput.tokenBytes(from: try InputFiles.readFile(token))
    }
}

/// The forms a Google Pay token reaches a server in, reduced to the token's own bytes.
enum GooglePayTokenInput {
    /// The PaymentMethodToken JSON as given; when `bytes` is a JSON string (what
    /// `paymentMethodData.tokenizationData.token` holds), its contents; when it is Google's whole
    /// PaymentData (`paymentMethodData.tokenizationData.token`), that member's contents. Anything else
    /// is returned unchanged, for the verifier to report.
    static func tokenBytes(from bytes: [UInt8]) -> [UInt8] {
        guard let value = try? StrictJSON.parse(bytes) else { return bytes }
        if let text = value.string { return Array(text.utf8) }
        if let object = value.object, object["protocolVersion"] == nil,
            let text = object["paymentMethodData"]?.object?["tokenizationData"]?.object?["token"]?.string
        {
            return Array(text.utf8)
        }
        return bytes
    }
}

/// `wallet-verifier googlepay verify`: the signatures and the intermediate key's expiry only.
struct GooglePayVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a Google Pay token's signatures and intermediate key expiry, without decrypting it.",
        discussion: """
            Checks that a root key of --root-keys for ECv2 signed the intermediate signing key, that the \
            intermediate key has not expired, and that it signed the message for merchant:ID. Nothing is \
            decrypted: the message's own expiry and the card need `googlepay decrypt`.
            Exit codes: 0 accepted, 1 rejected, 2 usage error or unreadable input, 3 indeterminate.
            """
    )

    @OptionGroup var options: GooglePayTokenOptions

    func run() async throws {
        let time = try options.time()
        let verifier = GooglePayTokenVerifier(
            rootKeys: try await options.loadRootKeys(at: time), keyRing: .empty, recipient: .merchant(options.merchantId),
            replayStore: InMemoryReplayStore())
        let result = await verifier.verifySignatures(try options.loadToken(), context: VerificationContext(time: time))
        CLIOutput.current.out(GooglePayOutput.render(result, format: options.format))
        throw CommandExit(code: result.verdict.exitCode)
    }
}

/// `wallet-verifier googlepay decrypt`: every step of Google's payment data cryptography, then the
/// card when the token is accepted.
struct GooglePayDecryptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Verify a Google Pay token and decrypt its payment data.",
        discussion: """
            --merchant-key is the P-256 private key whose public half is registered with Google (PEM: \
            EC PRIVATE KEY or PRIVATE KEY; or DER); repeat it while keys rotate: each is tried on the \
            token's tag. Text output masks the account number and hides the cryptogram and expiry; \
            --format json prints the report with `payment` (the message exactly as decrypted) and `card` \
            only when accepted.
            Exit codes: 0 accepted, 1 rejected, 2 usage error or unreadable input, 3 indeterminate.
            """
    )

    @OptionGroup var options: GooglePayTokenOptions

    @Option(name: .long, help: "A merchant private key (P-256, PEM or DER). Repeatable.")
    var merchantKey: [String] = []

    @OptionGroup var receipts: ReceiptOptions

    func validate() throws {
        if merchantKey.isEmpty { throw ValidationError("give at least one --merchant-key FILE") }
    }

    func run() async throws {
        let time = try options.time()
        let signer = try receipts.signer()
        let rootKeys = try await options.loadRootKeys(at: time)
        var keys: [GooglePayMerchantKey] = []
        for path in merchantKey {
            keys.append(try GooglePayKeyFile.load(path, option: "--merchant-key"))
        }
        let recipient = GooglePayRecipient.merchant(options.merchantId)
        let verifier = GooglePayTokenVerifier(
            rootKeys: rootKeys, keyRing: GooglePayMerchantKeyRing(keys), recipient: recipient, replayStore: InMemoryReplayStore())
        let token = try options.loadToken()
        let result = await verifier.verify(token, context: VerificationContext(time: time))
        // The token as verified; the receipt holds no card data (docs/receipts.md).
        let receipt = try await receipts.issue(signer: signer) { ReceiptContent.googlePay(result, submission: token, recipient: recipient) }
        CLIOutput.current.out(
            ReceiptOutput.render(GooglePayOutput.render(result, format: options.format), format: options.format, receipt: receipt))
        throw CommandExit(code: result.verdict.exitCode)
    }
}

/// Reading a Google Pay merchant key file with the project's key-file reader (the one `applepay
/// decrypt` uses): PEM (`EC PRIVATE KEY` or `PRIVATE KEY`, other blocks and text around them
/// ignored) or DER; the key must be P-256.
enum GooglePayKeyFile {
    /// The key in the file at `path`; the error names the option and the path, never key material.
    static func load(_ path: String, option: String) throws -> GooglePayMerchantKey {
        let key: MerchantKey.PrivateKey
        do {
            key = try MerchantKeyFiles.privateKey(fromFileContents: try InputFiles.readFile(path))
        } catch let error as MerchantKeyError {
            throw CLIInputError("\(option) \(path): \(error.reason)")
        }
        guard case .ecP256(let privateKey) = key else {
            throw CLIInputError("\(option) \(path): an RSA key; Google Pay merchant keys are P-256")
        }
        return GooglePayMerchantKey(privateKey: privateKey)
    }
}
