import ArgumentParser
import Foundation
import SwiftASN1
import VerificationCore
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `wallet-verifier keys ...`: make the keys and certificate requests the portals ask for, and bring
/// the certificates they issue back as files `serve` reads.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make keys and certificate signing requests, and import the certificates the portals issue for them.",
        discussion: """
            keys new writes a private key and a CSR for one kind of key and says where to upload the CSR; \
            keys import checks the certificate you download against the key, recognises what it is for, \
            writes it beside the key and prints the serve flags that use them; keys status lists the service's own \
            certificates with the days they have left.
            Exit codes: 0 done, 2 usage error, unreadable input, or a file that would be overwritten; keys status exits 1 when a \
            certificate expires within --warn-days.
            """,
        subcommands: [KeysNewCommand.self, KeysImportCommand.self, KeysStatusCommand.self]
    )
}

/// What a key is for: each kind has its own portal, certificate and `serve` flags.
enum KeyKind: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// The in-app identity encryption key (Verify with Wallet in an app; APPLE-HPKE-v1 envelopes).
    case identity
    /// The Apple Pay Payment Processing key, EC_v1 tokens.
    case applepay
    /// The Apple Pay Payment Processing key, RSA_v1 tokens.
    case applepayRSA = "applepay-rsa"
    /// The reader key that signs web requests (Verify with Wallet on the Web; reader authentication).
    case webReader = "web-reader"
    /// The key that signs OpenID4VP request objects.
    case openID4VPSigning = "openid4vp-signing"
    /// The key that signs verification receipts (its certificate is optional, from any CA).
    case receipts
    /// The Google Pay merchant encryption key: no certificate, its public key is registered with Google.
    case googlepay
    /// The Apple Pay Merchant Identity key (RSA-2048): the TLS client certificate of merchant validation.
    case merchantIdentity = "merchant-identity"
    /// The recipient key of web responses (`--web-key`): no certificate, wallets get its public key in each request.
    case webKey = "web-key"

    /// `DIR/<kind>.key.pem`.
    var keyFileName: String { "\(rawValue).key.pem" }
    /// `DIR/<kind>.csr.pem`.
    var csrFileName: String { "\(rawValue).csr.pem" }
    /// `DIR/<kind>.cert.pem`.
    var certificateFileName: String { "\(rawValue).cert.pem" }

    /// RSA-2048 for `applepay-rsa` and `merchant-identity` (the key type Apple's portal asks for), P-256 otherwise.
    var isRSA: Bool { self == .applepayRSA || self == .merchantIdentity }

    /// Whether the key comes with a certificate (and so `keys new` writes a CSR): every kind but
    /// `googlepay`, whose public key is registered with Google as it is, and `web-key`, whose public
    /// key each web request carries.
    var hasCertificate: Bool { self != .googlepay && self != .webKey }

    /// The key type `keys new` makes.
    var keyTypeName: String { isRSA ? "RSA-2048" : "EC P-256" }

    /// The certificate, as the portals name it.
    var certificateName: String {
        switch self {
        case .identity: return "identity encryption certificate (Verify with Wallet in your app)"
        case .applepay: return "Apple Pay Payment Processing certificate (EC, EC_v1 tokens)"
        case .applepayRSA: return "Apple Pay Payment Processing certificate (RSA, RSA_v1 tokens)"
        case .webReader: return "Verify with Wallet on the Web certificate (reader authentication: signs web requests)"
        case .openID4VPSigning: return "OpenID4VP request-signing certificate"
        case .receipts: return "receipt-signing certificate (optional: receipts are signed with the key alone too)"
        case .googlepay: return "Google Pay registration (no certificate: Google takes the public key itself)"
        case .merchantIdentity:
            return "Apple Pay Merchant Identity certificate (the TLS client certificate of merchant validation, Apple Pay on the web)"
        case .webKey: return "web recipient key (no certificate: each web request carries its public key)"
        }
    }

    /// Where to take the CSR and which certificate to ask for.
    var portalSteps: [String] {
        switch self {
        case .identity:
            return [
                "Apple Developer portal (developer.apple.com/account), Certificates, Identifiers & Profiles: open the merchant identifier your PKIdentityRequest names",
                "create its identity encryption certificate for Verify with Wallet, uploading the CSR below, and download the certificate (.cer)",
            ]
        case .applepay:
            return [
                "Apple Developer portal (developer.apple.com/account), Certificates, Identifiers & Profiles, Identifiers, Merchant IDs: open your merchant ID",
                "Apple Pay Payment Processing Certificate, Create Certificate; answer No to processing exclusively in China mainland (an EC certificate)",
                "upload the CSR below and download the certificate (apple_pay.cer)",
            ]
        case .applepayRSA:
            return [
                "Apple Developer portal (developer.apple.com/account), Certificates, Identifiers & Profiles, Identifiers, Merchant IDs: open your merchant ID",
                "Apple Pay Payment Processing Certificate, Create Certificate; answer Yes to processing exclusively in China mainland (the RSA certificate)",
                "upload the CSR below and download the certificate (apple_pay.cer)",
            ]
        case .webReader:
            return [
                "Apple Business (business.apple.com): in your organisation's Verify with Wallet on the Web settings, request the certificate for your website",
                "upload the CSR below and download the certificate",
            ]
        case .openID4VPSigning:
            return [
                "Google's relying-party registration for the Digital Credentials API (Google Wallet), or another verifier registrar",
                "request a request-signing certificate with the CSR below (Google's carries the extension 1.3.6.1.4.1.11129.10.1, the hash of your registered metadata) and download it",
            ]
        case .receipts:
            return [
                "nothing is required: serve --receipt-key with this key signs receipts, which verify with the service's /v1/receipts/jwks",
                "optionally, so that auditors see who signs them: your organisation's certificate authority issues a certificate for the CSR below",
            ]
        case .googlepay:
            return [
                "Google Pay & Wallet Console (pay.google.com/business/console), Google Pay API, Integrate with your website or app: choose Direct integration",
                "paste the public key above (base64 of the uncompressed P-256 point) as your encryption key; Google encrypts tokens for it from then on",
            ]
        case .merchantIdentity:
            return [
                "Apple Developer portal (developer.apple.com/account), Certificates, Identifiers & Profiles, Identifiers, Merchant IDs: open your merchant ID",
                "Apple Pay Merchant Identity Certificate, Create Certificate: upload the CSR below and download the certificate (merchant_id.cer)",
                "register and verify the domain your Apple Pay button is shown on, under the same merchant ID",
            ]
        case .webKey:
            return ["nothing to register: wallets encrypt their answers to the public key each web request carries"]
        }
    }

    /// Every `serve` flag the flow needs: the files, and placeholders in capitals for the values
    /// only the operator knows (`merchantID` fills the identity flow's when given).
    func serveFlags(certificate: String, key: String, merchantID: String? = nil) -> [String] {
        switch self {
        case .identity:
            return ["--identity-key", key] + (certificate.isEmpty ? [] : ["--identity-cert", certificate]) + [
                "--merchant-id", merchantID ?? "YOUR_MERCHANT_ID", "--team-id", "YOUR_TEAM_ID",
            ]
        case .applepay, .applepayRSA: return ["--applepay-cert", certificate, "--applepay-key", key]
        case .webReader: return ["--reader-key", key, "--reader-cert", certificate]
        case .openID4VPSigning: return ["--request-signing-key", key, "--request-signing-cert", certificate]
        case .receipts: return ["--receipt-key", key, "--receipt-cert", certificate]
        case .googlepay:
            return [
                "--googlepay-key", key, "--googlepay-merchant-id", "YOUR_GOOGLE_MERCHANT_ID", "--googlepay-root-keys",
                "https://payments.developers.google.com/paymentmethodtoken/keys.json",
            ]
        case .merchantIdentity:
            return [
                "--applepay-identity-cert", certificate, "--applepay-identity-key", key, "--applepay-domain", "YOUR_DOMAIN",
                "--applepay-display-name", "YOUR_STORE_NAME",
            ]
        case .webKey: return ["--web-key", key, "--web-origin", "https://YOUR_SITE"]
        }
    }

    /// The kind `keys new` named the key file for, when `path` is such a file (`<kind>.key.pem`).
    static func named(byKeyFile path: String) -> KeyKind? {
        let name = (path as NSString).lastPathComponent
        return allCases.first { $0.keyFileName == name }
    }
}

/// Reading and writing the files of `keys new` and `keys import`.
enum KeyFiles {
    /// `directory/name`, as the user wrote the directory (no resolution: it is printed back).
    static func path(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Creates `directory` (and its parents) when missing; an existing file in its place is an error.
    static func makeDirectory(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIInputError("--out \(directory) is a file, not a directory; give a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIInputError("cannot create the directory \(directory): \(error.localizedDescription)")
        }
    }

    /// Throws naming the first of `paths` that exists: nothing is ever overwritten.
    static func requireAbsent(_ paths: [String]) throws {
        for path in paths where FileManager.default.fileExists(atPath: path) {
            throw CLIInputError("\(path) exists already; nothing was written. Move it away or choose another --out directory")
        }
    }

    /// Writes a new file with `mode` (never replacing one: `O_EXCL`).
    static func writeNew(_ path: String, _ text: String, mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard fd >= 0 else {
            if errno == EEXIST { throw CLIInputError("\(path) exists already; nothing was written there") }
            throw CLIInputError("cannot create \(path) (errno \(errno))")
        }
        defer { close(fd) }
        // The mode given to open is reduced by the umask; set it exactly.
        _ = fchmod(fd, mode)
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else {
                unlink(path)
                throw CLIInputError("cannot write \(path) (errno \(errno))")
            }
            written += count
        }
    }

    /// Writes each (path, text, mode) in order; when one fails, the ones written before it are removed.
    static func writeAll(_ files: [(path: String, text: String, mode: mode_t)]) throws {
        var done: [String] = []
        do {
            for file in files {
                try writeNew(file.path, file.text, mode: file.mode)
                done.append(file.path)
            }
        } catch {
            for path in done { unlink(path) }
            throw error
        }
    }

    /// A command-line word: as it is when it needs no quoting, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./:=@%+,".contains($0)) }
        if plain && !text.isEmpty { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Subjects written as in RFC 4514 (`CN=Example Shop,O=Example Inc.,C=US`): CN, O, OU, C, ST and L;
/// `\` escapes a comma, a plus sign, an equals sign or a backslash in a value.
enum SubjectName {
    static let attributes: [String: ASN1ObjectIdentifier] = [
        "CN": .RDNAttributeType.commonName, "O": .RDNAttributeType.organizationName, "OU": .RDNAttributeType.organizationalUnitName,
        "C": .RDNAttributeType.countryName, "ST": .RDNAttributeType.stateOrProvinceName, "L": .RDNAttributeType.localityName,
    ]

    /// The name `text` writes. RFC 4514 lists the most specific attribute first, so the DER order is
    /// the reverse of the text's. Throws a ``CLIInputError`` that says what is wrong and shows an example.
    static func parse(_ text: String) throws -> DistinguishedName {
        let example = "e.g. --subject \"CN=Example Shop,O=Example Inc.,C=US\""
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { throw CLIInputError("--subject \"\(text)\" ends with a lone backslash; \(example)") }
        parts.append(current)
        var rdns: [RelativeDistinguishedName] = []
        for part in parts {
            guard let equals = part.firstIndex(of: "=") else {
                throw CLIInputError("--subject \"\(text)\": \"\(part)\" is not TYPE=value; \(example)")
            }
            let type = part[..<equals].trimmingCharacters(in: .whitespaces).uppercased()
            let value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard let oid = attributes[type] else {
                throw CLIInputError("--subject \"\(text)\": the attribute \"\(type)\" is not supported; use CN, O, OU, C, ST or L; \(example)")
            }
            guard !value.isEmpty else { throw CLIInputError("--subject \"\(text)\": \(type) has no value; \(example)") }
            guard value.utf8.count <= 64 else {
                throw CLIInputError("--subject \"\(text)\": the \(type) value is longer than 64 bytes (RFC 5280's upper bound)")
            }
            if type == "C" {
                guard value.count == 2, value.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                    throw CLIInputError("--subject \"\(text)\": C takes a two-letter ISO 3166 country code in capitals, such as US")
                }
                rdns.append(RelativeDistinguishedName(try RelativeDistinguishedName.Attribute(type: oid, printableString: value)))
            } else {
                rdns.append(RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: oid, utf8String: value)))
            }
        }
        guard rdns.count <= 16 else { throw CLIInputError("--subject \"\(text)\" has \(rdns.count) attributes; give at most 16") }
        return DistinguishedName(rdns.reversed())
    }
}
