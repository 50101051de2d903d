import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import VerificationCore

/// `applepay.signature.signer`: the leaf certificate's key signed the signed attributes, with the
/// algorithm the token version calls for: ECDSA P-256 with SHA-256 (EC_v1), RSA PKCS#1 v1.5 with
/// SHA-256 (RSA_v1). The signature is checked over the signed-attribute bytes as received (the
/// `[0]` tag read as SET, as RFC 5652 requires).
struct SignerCheck: VerificationCheck {
    let id = CheckID.applePaySignatureSigner
    let prerequisites: [CheckID] = [.applePaySignatureCMS]

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token, let signer = state.signer, let leaf = state.leaf else { return .notEvaluated(because: .applePaySignatureCMS) }
        guard let signedDigest = signer.signedAttributesDigest else {
            return .failed(
                .missingSignedAttributes,
                "The SignerInfo has no signed attributes; Apple's signature covers contentType, signingTime and messageDigest")
        }
        let algorithm = signer.signatureAlgorithm
        if let protection = Self.algorithmProtectionProblem(signer) { return protection }

        switch token.version {
        case .ecV1:
            guard algorithm.algorithm == CMSOID.ecdsaWithSHA256 else {
                return .failed(
                    .unsupportedSignatureAlgorithm, "The signature algorithm is \(algorithm); EC_v1 tokens are signed with ecdsa-with-SHA256")
            }
            guard case .p256(let key) = leaf.signingKey else {
                return .failed(
                    .keyTypeMismatch,
                    "The leaf \"\(leaf.displayName)\" has a \(leaf.signingKey?.algorithmName ?? "unsupported") key; EC_v1 tokens are signed with P-256"
                )
            }
            guard let raw = Self.rawECDSASignature(signer.signature),
                let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
                key.isValidSignature(signature, for: signedDigest)
            else {
                return .failed(
                    .signatureInvalid, "The ECDSA signature over the signed attributes does not verify with the leaf \"\(leaf.displayName)\"")
            }
            return .passed(leaf.texts.signerMessage ?? Self.ecPassMessage(leafName: leaf.displayName))
        case .rsaV1:
            guard
                algorithm.algorithm == CMSOID.sha256WithRSAEncryption
                    || (algorithm.algorithm == CMSOID.rsaEncryption && signer.digestAlgorithm.algorithm == CMSOID.sha256),
                algorithm.parametersAbsentOrNull
            else {
                return .failed(
                    .unsupportedSignatureAlgorithm, "The signature algorithm is \(algorithm); RSA_v1 tokens are signed with sha256WithRSAEncryption")
            }
            guard case .rsa(let key) = leaf.signingKey else {
                return .failed(
                    .keyTypeMismatch,
                    "The leaf \"\(leaf.displayName)\" has a \(leaf.signingKey?.algorithmName ?? "unsupported") key; RSA_v1 tokens are signed with RSA"
                )
            }
            let signature = _RSA.Signing.RSASignature(rawRepresentation: signer.signature)
            guard key.isValidSignature(signature, for: signedDigest, padding: .insecurePKCS1v1_5) else {
                return .failed(
                    .signatureInvalid,
                    "The RSA PKCS#1 v1.5/SHA-256 signature over the signed attributes does not verify with the leaf \"\(leaf.displayName)\"")
            }
            return .passed(leaf.texts.signerMessage ?? Self.rsaPassMessage(leafName: leaf.displayName, bits: key.keySizeInBits))
        }
    }

    static func ecPassMessage(leafName: String) -> String {
        "ECDSA P-256/SHA-256 signature by \"\(leafName)\" verifies"
    }

    static func rsaPassMessage(leafName: String, bits: Int) -> String {
        "RSA PKCS#1 v1.5/SHA-256 signature by \"\(leafName)\" (\(bits) bits) verifies"
    }

    /// DER `SEQUENCE { INTEGER r, INTEGER s }` to the 64-byte r ‖ s form (each a positive integer
    /// of at most 32 bytes). Nil for anything else.
    static func rawECDSASignature(_ der: ArraySlice<UInt8>) -> [UInt8]? {
        let scanner = BERScanner(bytes: Array(der))
        guard let root = try? scanner.root(), root.tag == 0x30,
            let parts = try? scanner.children(of: root), parts.count == 2,
            parts[0].tag == 0x02, parts[1].tag == 0x02
        else { return nil }
        var raw: [UInt8] = []
        raw.reserveCapacity(64)
        for part in parts {
            var integer = scanner.bytes[part.content]
            guard let first = integer.first, first & 0x80 == 0 else { return nil }
            if first == 0, integer.count > 1 { integer = integer.dropFirst() }
            guard integer.count <= 32 else { return nil }
            for _ in integer.count..<32 { raw.append(0) }
            raw += integer
        }
        return raw
    }

    /// RFC 6211: when the CMSAlgorithmProtection attribute is present, it must name the algorithms
    /// actually used.
    static func algorithmProtectionProblem(_ signer: CMSSignerInfo) -> CheckOutcome? {
        guard signer.signedAttributes.contains(where: { $0.type == CMSOID.algorithmProtection }) else { return nil }
        let attributes = signer.attributes(CMSOID.algorithmProtection)
        guard attributes.count == 1, let attribute = attributes.first, attribute.values.count == 1, let value = attribute.values.first else {
            return .failed(.algorithmProtectionMismatch, "The CMSAlgorithmProtection attribute must appear once with one value")
        }
        do {
            // CMSAlgorithmProtection ::= SEQUENCE { digestAlgorithm, signatureAlgorithm [1] IMPLICIT OPTIONAL, macAlgorithm [2] OPTIONAL }
            let scanner = BERScanner(bytes: Array(value))
            let root = try scanner.root()
            guard root.tag == 0x30 else { throw CMSParseError(.malformedAttribute, "not a SEQUENCE") }
            let parts = try scanner.children(of: root)
            guard let digestPart = parts.first else { throw CMSParseError(.malformedAttribute, "no digest algorithm") }
            let digest = try CMSSignedData.algorithmIdentifier(digestPart, scanner: scanner, depth: 2)
            var signature: CMSAlgorithmIdentifier?
            if let signaturePart = parts.dropFirst().first(where: { $0.tag == 0xA1 }) {
                var retagged = Array(scanner.slice(signaturePart))
                retagged[0] = 0x30
                let inner = BERScanner(bytes: retagged)
                signature = try CMSSignedData.algorithmIdentifier(try inner.root(), scanner: inner, depth: 2)
            }
            guard digest.algorithm == signer.digestAlgorithm.algorithm else {
                return .failed(
                    .algorithmProtectionMismatch, "CMSAlgorithmProtection names digest \(digest) but the signer uses \(signer.digestAlgorithm)")
            }
            if let signature, signature.algorithm != signer.signatureAlgorithm.algorithm {
                return .failed(
                    .algorithmProtectionMismatch,
                    "CMSAlgorithmProtection names signature algorithm \(signature) but the signer uses \(signer.signatureAlgorithm)")
            }
            return nil
        } catch {
            return .failed(.algorithmProtectionMismatch, "The CMSAlgorithmProtection attribute cannot be read")
        }
    }
}
