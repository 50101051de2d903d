import Crypto
import Mdoc
import VerificationCore
import WalletCOSE

/// `mdoc.device.authentication` (ISO 18013-5 §9.1.3): the deviceSignature (COSE_Sign1, detached, key =
/// MSO deviceKey) or deviceMac (COSE_Mac0, HMAC-SHA256 with EMacKey = HKDF-SHA256(ECDH(reader key,
/// device key), salt SHA-256(SessionTranscriptBytes), info "EMacKey")) over DeviceAuthenticationBytes.
struct DeviceAuthenticationCheck: VerificationCheck {
    var id: CheckID { .mdocDeviceAuthentication }
    var prerequisites: [CheckID] { MdocPrerequisites.msoStructure }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let mso = state.mso else { return .notEvaluated(because: .mdocMSOStructure) }
        guard let deviceSigned = document.deviceSigned else {
            return .failed(.deviceSignedMissing, "The document has no deviceSigned part, so it cannot be bound to the holder's device.")
        }
        let deviceKey: COSEPublicKey
        switch mso.deviceKey {
        case .success(let key): deviceKey = key
        case .failure(let error): return .failed(.invalidDeviceKey, "The MSO's device key cannot be used: \(error.message).")
        }
        let payload = DeviceAuthentication.bytes(
            transcript: state.transcript, docType: document.docType, deviceNameSpacesBytes: deviceSigned.nameSpacesBytes)
        // ISO 18013-5 detaches the payload; some wallets attach it. An attached payload must be exactly
        // the DeviceAuthenticationBytes this verifier expects.
        func attachedMismatch(_ attached: ArraySlice<UInt8>?) -> CheckOutcome? {
            guard let attached, !attached.elementsEqual(payload) else { return nil }
            return .failed(
                .deviceAuthenticationMismatch,
                "The device authenticated an attached DeviceAuthentication that differs from the expected one: the session transcript or docType differs from the one the device used."
            )
        }
        switch deviceSigned.deviceAuth {
        case .signature(let sign1):
            do {
                let algorithm = try sign1.algorithm
                if let mismatch = attachedMismatch(sign1.payload) { return mismatch }
                guard try sign1.isValidSignature(key: deviceKey, detachedPayload: sign1.payload == nil ? payload : nil) else {
                    let message =
                        "The device signature does not verify over DeviceAuthentication: the session transcript (nonce, merchant or app identifiers, handover) differs from the one the device signed, or the response was not produced by the device the MSO names."
                    if sign1.payload == nil, state.transcriptDiagnosisEligible, !state.transcriptCandidates.isEmpty,
                        let match = TranscriptDiagnosis.firstMatch(
                            state.transcriptCandidates, primary: state.transcript, signature: sign1, deviceKey: deviceKey,
                            docType: document.docType, deviceNameSpacesBytes: deviceSigned.nameSpacesBytes)
                    {
                        return .failed(
                            .deviceSignatureInvalid, message + " The device signed the transcript of \(match.description): \(match.fix).",
                            details: ["transcriptDiagnosis": match.label])
                    }
                    return .failed(.deviceSignatureInvalid, message)
                }
                let curve = deviceKey.curveName
                return .passed {
                    (
                        "The device signature (\(algorithm), \(curve)) verifies over DeviceAuthentication with the MSO's device key.",
                        ["mechanism": "deviceSignature"]
                    )
                }
            } catch {
                return .failed(ReasonCode(error.code.rawValue), "The device signature cannot be verified: \(error.message).")
            }
        case .mac(let mac0):
            guard state.deviceMacAllowed else {
                return .failed(
                    .deviceMacNotAllowed,
                    "The response is authenticated with deviceMac, which this flow cannot carry: its session transcript can only be signed (Apple's in-app flow uses ECDSA only; the DC API gives the reader no key agreement with the device). Only a deviceSignature binds this response to the device.",
                    details: ["mechanism": "deviceMac"])
            }
            guard let readerKey = state.readerKey else {
                return .error(
                    .readerKeyRequired,
                    "The response is authenticated with deviceMac, which cannot be checked without the reader's ephemeral private key (EReaderKey): reader key required.",
                    retryable: false, details: ["mechanism": "deviceMac"])
            }
            guard let devicePublic = deviceKey.p256KeyAgreementKey else {
                return .failed(.unsupportedDeviceKey, "deviceMac needs a P-256 device key for ECDH; the MSO's key is \(deviceKey.curveName).")
            }
            do {
                let shared = try readerKey.sharedSecretFromKeyAgreement(with: devicePublic)
                let salt = Array(SHA256.hash(data: state.transcript.taggedBytes))
                let macKey = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Array("EMacKey".utf8), outputByteCount: 32)
                if let mismatch = attachedMismatch(mac0.payload) { return mismatch }
                guard try mac0.isValidTag(key: macKey, detachedPayload: mac0.payload == nil ? payload : nil) else {
                    return .failed(
                        .deviceMacInvalid,
                        "The device MAC does not verify: the session transcript or the reader key differs from the ones the device used.",
                        details: ["mechanism": "deviceMac"])
                }
                return .passed("The device MAC (HMAC 256/256) verifies over DeviceAuthentication.", details: ["mechanism": "deviceMac"])
            } catch let error as COSEError {
                return .failed(ReasonCode(error.code.rawValue), "The device MAC cannot be verified: \(error.message).")
            } catch {
                return .failed(.keyAgreementFailed, "ECDH with the device key failed.")
            }
        }
    }
}
