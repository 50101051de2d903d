import ApplePayVerifier
import ArgumentParser
import Foundation
import VerificationCore
import VerificationReceipts
import WalletEncoding

/// `wallet-verifier applepay decrypt`: every step of Apple's Payment Token Format Reference, each
/// reported as a check, then the payment data when the token is accepted.
struct ApplePayDecryptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Verify an Apple Pay payment token and decrypt its payment data.",
        discussion: """
            TOKEN is the paymentData JSON object or a whole PKPaymentToken JSON. The n-th --merchant-cert \
            pairs with the n-th --merchant-key; the pair whose certificate matches header.publicKeyHash is \
            used. Key files: PEM (EC PRIVATE KEY, PRIVATE KEY, RSA PRIVATE KEY; EC PARAMETERS blocks and \
            openssl "Bag Attributes" text are fine) or DER. Convert a .p12 with \
            `openssl pkcs12 -in f.p12 -nocerts -nodes -out key.pem`.
            Text output masks the account number and hides the cryptogram; --format json prints \
            {"verdict", "checks", ..., "payment"} with the payment data exactly as decrypted (only when \
            accepted).
            A payment is checked against the currency and amount charged (--expect-currency, \
            --expect-amount) and, when the payment request had one, its applicationData \
            (--expect-application-data HEX-SHA-256 or --expect-application-data-base64 DATA); without \
            them the report carries an expectationsMissing warning.
            Exit codes: 0 accepted, 1 rejected, 2 usage error or unreadable input, 3 indeterminate.
            """
    )

    @Option(name: .long, help: "The token JSON file.")
    var token: String

    @Option(name: .long, help: "A payment-processing certificate (PEM or DER). Repeatable; pairs with --merchant-key.")
    var merchantCert: [String] = []

    @Option(name: .long, help: "The private key of the certificate at the same position. Repeatable.")
    var merchantKey: [String] = []

    @Option(name: .long, help: "Trust this root instead of Apple Root CA - G3 (tests only).")
    var root: String?

    @Option(name: .long, help: "Verification time (RFC 3339). Default: now.")
    var at: String?

    @Option(name: .long, help: "Seconds a token is accepted after its signing time (default 300).")
    var maxAge: Int?

    @Option(name: .long, help: "The merchant identifier, when the certificate does not carry it (OID 1.2.840.113635.100.6.32).")
    var merchantId: String?

    @Option(name: .long, help: "Expected ISO 4217 numeric currency code, e.g. 840.")
    var expectCurrency: String?

    @Option(name: .long, help: "Expected transactionAmount (minor units, as in the token).")
    var expectAmount: String?

    @Option(name: .long, help: "Expected header.applicationData (hex SHA-256 of the request's applicationData).")
    var expectApplicationData: String?

    @Option(
        name: .long,
        help:
            "Expected applicationData as the payment request's data itself (base64): the verifier compares its SHA-256 with header.applicationData (with --expect-application-data too, both must match)."
    )
    var expectApplicationDataBase64: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var receipts: ReceiptOptions

    func validate() throws {
        if merchantCert.isEmpty || merchantKey.isEmpty {
            throw ValidationError("give at least one --merchant-cert FILE --merchant-key FILE pair")
        }
        if merchantCert.count != merchantKey.count {
            throw ValidationError(
                "--merchant-cert is given \(merchantCert.count) times but --merchant-key \(merchantKey.count) times; they pair up in order")
        }
        if let maxAge, maxAge < 0 { throw ValidationError("--max-age must not be negative") }
        if let expectCurrency, expectCurrency.count != 3 || !expectCurrency.allSatisfy(\.isASCIIDigit) {
            throw ValidationError("--expect-currency takes the ISO 4217 numeric code (e.g. 840 for USD), as tokens carry it")
        }
        // Digits only on the command line: "1.00" would be read as one minor unit, not one dollar.
        if let expectAmount, !expectAmount.allSatisfy(\.isASCIIDigit) || ApplePayExpectations.minorUnits(expectAmount) == nil {
            throw ValidationError(
                "--expect-amount takes the amount in the currency's minor units, as tokens carry it: a whole number (1999 for 19.99 USD), not \"\(expectAmount)\""
            )
        }
        if let expectApplicationData,
            expectApplicationData.isEmpty || expectApplicationData.count % 2 != 0 || !expectApplicationData.allSatisfy(\.isHexDigit)
        {
            throw ValidationError("--expect-application-data must be hex (the header.applicationData value)")
        }
        if let expectApplicationDataBase64 {
            if Base64.decodeLenient(expectApplicationDataBase64) == nil {
                throw ValidationError("--expect-application-data-base64 must be base64 of the payment request's applicationData")
            }
        }
    }

    func run() async throws {
        let time: Date
        if let at {
            guard let parsed = RFC3339.parse(at) else {
                throw CLIInputError("--at \(at) is not an RFC 3339 time (e.g. 2024-05-01T12:00:00Z)")
            }
            time = parsed
        } else {
            time = Date()
        }
        let signer = try receipts.signer()

        var keys: [MerchantKey] = []
        for (certificatePath, keyPath) in zip(merchantCert, merchantKey) {
            let certificateFile = try InputFiles.readFile(certificatePath)
            let keyFile = try InputFiles.readFile(keyPath)
            do {
                keys.append(try MerchantKey(certificateFile: certificateFile, privateKeyFile: keyFile, merchantIdentifier: merchantId))
            } catch {
                throw CLIInputError("--merchant-cert \(certificatePath) / --merchant-key \(keyPath): \(error.reason)")
            }
        }
        let ring: MerchantKeyRing
        do {
            ring = try MerchantKeyRing(keys)
        } catch {
            throw CLIInputError(error.reason)
        }

        var anchor: ApplePayTrustAnchor?
        if let root {
            do {
                anchor = try ApplePayTrustAnchor(fileContents: try InputFiles.readFile(root))
            } catch let error as CLIInputError {
                throw error
            } catch {
                throw CLIInputError("--root \(root): \(error)")
            }
        }

        var policy = ApplePayPolicy.production
        if let maxAge { policy.maximumSigningAge = .seconds(maxAge) }

        let verifier: ApplePayTokenVerifier
        do {
            verifier = try ApplePayTokenVerifier(keyRing: ring, replayStore: InMemoryReplayStore(), policy: policy, trustAnchor: anchor)
        } catch {
            throw CLIInputError("cannot load the trust anchor: \(error)")
        }

        let tokenBytes = try InputFiles.readFile(token)
        let expectations = ApplePayExpectations(
            currencyCode: expectCurrency,
            transactionAmount: expectAmount.flatMap(ApplePayExpectations.minorUnits),
            applicationData: expectApplicationData,
            originalApplicationData: expectApplicationDataBase64.flatMap(Base64.decodeLenient)
        )
        let result = await verifier.verify(tokenBytes, context: VerificationContext(time: time), expectations: expectations)
        // The token file as read; the receipt names the merchant of the key the token was encrypted for.
        let receipt = try await receipts.issue(signer: signer) {
            ReceiptContent.applePay(result, submission: tokenBytes, keyRing: ring, testRoot: anchor.map { !$0.isAppleRootCAG3 } ?? false)
        }
        CLIOutput.current.out(ReceiptOutput.render(ApplePayOutput.render(result, format: format), format: format, receipt: receipt))
        throw CommandExit(code: result.verdict.exitCode)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
