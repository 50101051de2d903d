import ArgumentParser
import Crypto
import Foundation
import Mdoc
import MdocVerifier
import SwiftASN1
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WebIdentity
import X509

extension WebCommand {
    /// The wallet's side of reader authentication, for integrators who test their own requests.
    struct VerifyRequest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-request",
            abstract: "Verify the reader authentication (readerAuth / readerAuthAll) of a web request, as a wallet would.",
            discussion: """
                Reads the argument a page passes to navigator.credentials.get (JSON with data.deviceRequest and \
                data.encryptionInfo) or a DeviceRequest (binary, hex or base64; then --encryption-info is required), \
                rebuilds the session transcript from the encryption info and --origin, verifies every reader signature \
                over the bytes as received, validates the reader's chain to the --trust roots at --at, and checks the \
                reader certificate's ISO/IEC 18013-5 Annex B profile. Checks: reader.request.structure, \
                reader.request.items, reader.auth.signature, reader.auth.chain, reader.auth.profile. \
                Exit codes: 0 accepted, 1 rejected, 2 usage error or unreadable input (every check is local, so 3, \
                indeterminate, does not occur).
                """
        )

        @Option(name: .long, help: "The navigator.credentials.get argument (JSON) or a DeviceRequest (binary, hex or base64).")
        var request: String

        @Option(name: .long, help: "The origin the request is made from, e.g. https://shop.example.")
        var origin: String

        @Option(name: .long, help: "The EncryptionInfo (base64url, or a file holding it); taken from the JSON argument when absent.")
        var encryptionInfo: String?

        @Option(name: .long, help: "A trusted reader root (or the reader certificate itself): a PEM or DER file, or a directory. Repeatable.")
        var trust: [String] = []

        @Option(name: .long, help: "Verification time (RFC 3339). Default: now.")
        var at: String?

        @Option(name: .long, help: "Output format: text or json.")
        var format: OutputFormat = .text

        func run() async throws {
            let time = try CommandSupport.verificationTime(at)
            let raw = try InputFiles.readFile(request)
            let deviceRequest: [UInt8]
            var infoText = try encryptionInfo.map(CommandSupport.encryptionInfoText)
            let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("{") {
                let parts = try Self.argumentParts(raw, name: request)
                deviceRequest = parts.deviceRequest
                infoText = infoText ?? parts.encryptionInfo
            } else {
                deviceRequest = InputFiles.cborBytes(fromFileContents: raw).bytes
            }
            guard let infoText else {
                throw CLIInputError(
                    "--encryption-info is required when --request is a DeviceRequest rather than the navigator.credentials.get argument")
            }
            do { _ = try DCAPIEncryptionInfo(base64URL: infoText) } catch { throw CLIInputError("--encryption-info: \(error)") }
            var roots: [Certificate] = []
            for path in trust { roots += try await CommandSupport.trustStore([path]).anchors.map(\.certificate) }
            let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: infoText, origin: origin)
            let report = await ReaderAuthVerifier(roots: roots).verify(deviceRequest: deviceRequest, transcript: transcript, context: .at(time))
            switch format {
            case .json: CLIOutput.current.out(ReportOutput.json(report))
            case .text: CLIOutput.current.out(ReportOutput.text(report))
            }
            throw CommandExit(code: report.verdict.exitCode)
        }

        /// `{"digital": {"requests": [{"protocol": "org-iso-mdoc", "data": {"deviceRequest", "encryptionInfo"}}]}}`
        /// (or the `data` object alone): the DeviceRequest bytes and the encryption info text.
        static func argumentParts(_ raw: [UInt8], name: String) throws -> (deviceRequest: [UInt8], encryptionInfo: String) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(raw)) as? [String: Any] else {
                throw CLIInputError("--request \(name) is not valid JSON")
            }
            var data = object
            if let digital = object["digital"] as? [String: Any], let requests = digital["requests"] as? [[String: Any]] {
                guard let mdoc = requests.first(where: { ($0["protocol"] as? String) == "org-iso-mdoc" }), let inner = mdoc["data"] as? [String: Any]
                else {
                    throw CLIInputError("--request \(name) holds no org-iso-mdoc request")
                }
                data = inner
            } else if let inner = object["data"] as? [String: Any] {
                data = inner
            }
            guard let requestText = data["deviceRequest"] as? String, let bytes = Base64.decodeURL(requestText) else {
                throw CLIInputError("--request \(name) has no base64url deviceRequest")
            }
            guard let info = data["encryptionInfo"] as? String else {
                throw CLIInputError("--request \(name) has no encryptionInfo")
            }
            return (bytes, info)
        }
    }
}

/// A reader-authentication signing key and its certificates, for `web request`.
enum ReaderKeyFiles {
    static func signer(key keyPath: String, certificates paths: [String], flag: String = "--reader-key") throws -> ReaderAuthSigner {
        let key = try InputFiles.readFile(keyPath)
        let certificates = try paths.map { (name: $0, contents: try InputFiles.readFile($0)) }
        do {
            return try ReaderAuthSigner.load(keyContents: key, keyName: "\(flag) \(keyPath)", certificateFiles: certificates)
        } catch {
            throw CLIInputError("\(error)")
        }
    }
}
