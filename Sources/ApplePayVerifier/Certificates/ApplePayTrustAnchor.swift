import Crypto
import Foundation
import SwiftASN1
import WalletEncoding
import X509

/// The root certificate Apple Pay signing chains must end in.
///
/// Production uses ``appleRootCAG3()``: Apple Root CA - G3, shipped with the module as a resource and
/// accepted only if its SHA-256 fingerprint is the pinned one. Tests (and nobody else) pass their own
/// root with ``init(certificateDER:)`` or ``init(pem:)``; reports then carry a `customTrustAnchor`
/// warning.
public struct ApplePayTrustAnchor: Sendable, CustomStringConvertible {
    /// SHA-256 of the DER of Apple Root CA - G3.
    public static let appleRootCAG3Fingerprint = "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179"

    let parsed: ParsedCertificate
    /// True for Apple Root CA - G3 (fingerprint checked).
    public let isAppleRootCAG3: Bool

    /// The anchor certificate, parsed.
    public var certificate: Certificate { parsed.certificate }
    /// Upper-case hex SHA-256 of the certificate's DER.
    public let fingerprint: String
    /// The certificate's name and its SHA-256 fingerprint.
    public var description: String { "\(parsed.displayName) (SHA-256 \(fingerprint))" }

    /// A custom root (tests). The certificate is used as it is; no fingerprint is checked.
    public init(certificateDER der: [UInt8]) throws {
        do {
            self.parsed = try ParsedCertificate(der: der)
        } catch {
            throw MerchantKeyError(.unreadableCertificate, "the trust anchor is not a readable X.509 certificate")
        }
        self.fingerprint = Hex.encode(parsed.sha256, uppercase: true)
        self.isAppleRootCAG3 = fingerprint == Self.appleRootCAG3Fingerprint
    }

    /// A custom root from PEM (or DER) file contents.
    public init(fileContents: [UInt8]) throws {
        let der = try PEMBlocks.certificateDER(fromFileContents: fileContents, what: "the trust anchor")
        try self.init(certificateDER: der)
    }

    /// Apple Root CA - G3, from the module's resource (or, when the resource bundle is not next to
    /// the executable, from the copy compiled in), checked against the pinned fingerprint.
    public static func appleRootCAG3() throws -> ApplePayTrustAnchor {
        try bundled.get()
    }

    private static let bundled: Result<ApplePayTrustAnchor, MerchantKeyError> = {
        let pem = resourcePEM() ?? embeddedAppleRootCAG3PEM
        guard let der = try? PEMBlocks.certificateDER(fromFileContents: Array(pem.utf8), what: "Apple Root CA - G3"),
            let anchor = try? ApplePayTrustAnchor(certificateDER: der)
        else {
            return .failure(MerchantKeyError(.unreadableCertificate, "the bundled Apple Root CA - G3 cannot be read"))
        }
        guard anchor.isAppleRootCAG3 else {
            return .failure(
                MerchantKeyError(
                    .unreadableCertificate,
                    "the bundled Apple Root CA - G3 has fingerprint \(anchor.fingerprint), not the pinned \(appleRootCAG3Fingerprint)"))
        }
        return .success(anchor)
    }()

    /// Looks for the resource the way SwiftPM lays bundles out, without `Bundle.module` (which
    /// traps when the bundle is missing).
    static func resourcePEM() -> String? {
        let bundleName = "wallet-verifier_ApplePayVerifier"
        var candidates: [URL] = []
        let main = Bundle.main.bundleURL
        candidates.append(main.appendingPathComponent("\(bundleName).resources/AppleRootCA-G3.pem"))
        candidates.append(main.appendingPathComponent("\(bundleName).bundle/AppleRootCA-G3.pem"))
        candidates.append(main.appendingPathComponent("\(bundleName).bundle/Contents/Resources/AppleRootCA-G3.pem"))
        candidates.append(main.deletingLastPathComponent().appendingPathComponent("\(bundleName).resources/AppleRootCA-G3.pem"))
        if let executable = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(executable.appendingPathComponent("\(bundleName).resources/AppleRootCA-G3.pem"))
        }
        for url in candidates {
            if let data = try? Data(contentsOf: url) { return String(decoding: data, as: UTF8.self) }
        }
        return nil
    }
}

/// The same certificate as `Resources/AppleRootCA-G3.pem`; used only when that resource cannot be
/// found (a relocated executable). Either way the fingerprint is checked.
let embeddedAppleRootCAG3PEM = """
    -----BEGIN CERTIFICATE-----
    MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwS
    QXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9u
    IEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN
    MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBS
    b290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9y
    aXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49
    AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtf
    TjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517
    IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr
    MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gA
    MGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4
    at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM
    6BgD56KyKA==
    -----END CERTIFICATE-----
    """
