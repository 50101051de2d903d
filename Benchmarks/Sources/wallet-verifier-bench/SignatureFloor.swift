import Crypto
import Mdoc
import WalletCOSE

/// The two ECDSA P-256 verifications at the heart of an mdoc presentation (issuer signature over the
/// MSO, device signature over DeviceAuthentication), prepared ahead: the crypto floor the benchmarks
/// set full verification against.
struct SignatureFloor {
    let issuerData: [UInt8]
    let issuerSignature: P256.Signing.ECDSASignature
    let deviceData: [UInt8]
    let deviceSignature: P256.Signing.ECDSASignature
    let issuerKey: P256.Signing.PublicKey
    let deviceKey: P256.Signing.PublicKey

    /// The verifications of the first document of `response`; nil when it is MACed, not signed.
    init?(response: [UInt8], transcript: SessionTranscript, issuerKey: P256.Signing.PublicKey, deviceKey: P256.Signing.PublicKey) throws {
        let document = try DeviceResponse(cborBytes: response).documents[0]
        let issuerAuth = document.issuerSigned.issuerAuth
        issuerData = try issuerAuth.signatureStructure()
        issuerSignature = try P256.Signing.ECDSASignature(rawRepresentation: issuerAuth.signature)
        guard case .signature(let deviceSign1) = document.deviceSigned!.deviceAuth else { return nil }
        deviceData = try deviceSign1.signatureStructure(
            detachedPayload: DeviceAuthentication.bytes(
                transcript: transcript, docType: document.docType, deviceNameSpacesBytes: document.deviceSigned!.nameSpacesBytes))
        deviceSignature = try P256.Signing.ECDSASignature(rawRepresentation: deviceSign1.signature)
        self.issuerKey = issuerKey
        self.deviceKey = deviceKey
    }

    /// Both verifications; a failure stops the benchmark.
    func verify() {
        precondition(issuerKey.isValidSignature(issuerSignature, for: issuerData))
        precondition(deviceKey.isValidSignature(deviceSignature, for: deviceData))
    }
}
