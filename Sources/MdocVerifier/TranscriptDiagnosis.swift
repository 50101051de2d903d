import Mdoc
import WalletCBOR
import WalletCOSE

/// Another session transcript the device may have signed: one a flow re-derives from what it already
/// knows (the origin with a trailing slash, the other web protocol, another configured merchant).
public struct TranscriptCandidate: Sendable {
    /// A short stable label for `details.transcriptDiagnosis`, e.g. `originTrailingSlash`.
    public let label: String
    /// What the transcript is, for the message ("the origin with a trailing slash"). Never a nonce,
    /// a key or an element value.
    public let description: String
    /// What to fix when the device signed this transcript.
    public let fix: String
    /// The transcript itself.
    public let transcript: SessionTranscript

    /// Creates a candidate from its label, its description, the fix and the transcript.
    public init(label: String, description: String, fix: String, transcript: SessionTranscript) {
        self.label = label
        self.description = description
        self.fix = fix
        self.transcript = transcript
    }
}

/// Names the transcript a wallet signed when `mdoc.device.authentication` fails with
/// `deviceSignatureInvalid` for a document whose issuer signature and value digests passed: the
/// device signature is verified over each candidate (at most ``maxCandidates``), and the first that
/// verifies is named in the failure's message and in `details.transcriptDiagnosis`. The verdict does
/// not change.
public enum TranscriptDiagnosis {
    /// The most candidates tried for one failed document.
    public static let maxCandidates = 16

    /// The first candidate (of at most ``maxCandidates``, duplicates of `primary` left out) over whose
    /// DeviceAuthentication the detached device signature verifies with `deviceKey`.
    static func firstMatch(
        _ candidates: [TranscriptCandidate], primary: SessionTranscript, signature: COSESign1, deviceKey: COSEPublicKey, docType: String,
        deviceNameSpacesBytes: CBORNode
    ) -> TranscriptCandidate? {
        var tried = 0
        for candidate in candidates {
            guard tried < maxCandidates else { break }
            if candidate.transcript.encodedBytes.elementsEqual(primary.encodedBytes) { continue }
            tried += 1
            let payload = DeviceAuthentication.bytes(
                transcript: candidate.transcript, docType: docType, deviceNameSpacesBytes: deviceNameSpacesBytes)
            if (try? signature.isValidSignature(key: deviceKey, detachedPayload: payload)) == true { return candidate }
        }
        return nil
    }

    /// Unique candidates in order, at most ``maxCandidates``.
    public static func bounded(_ candidates: [TranscriptCandidate]) -> [TranscriptCandidate] {
        var seen: [[UInt8]] = []
        var kept: [TranscriptCandidate] = []
        for candidate in candidates where kept.count < maxCandidates {
            let bytes = Array(candidate.transcript.encodedBytes)
            if seen.contains(bytes) { continue }
            seen.append(bytes)
            kept.append(candidate)
        }
        return kept
    }

    /// The candidates for a transcript given as bytes (`mdoc verify`): the same transcript wrapped as
    /// SessionTranscriptBytes (`#6.24`) in DeviceAuthentication.
    public static func givenTranscriptCandidates(_ transcript: SessionTranscript) -> [TranscriptCandidate] {
        [
            TranscriptCandidate(
                label: "taggedTranscript",
                description: "the given transcript wrapped as SessionTranscriptBytes (#6.24)",
                fix:
                    "the wallet or terminal put the tag-24 SessionTranscriptBytes into DeviceAuthentication where ISO 18013-5 puts the bare SessionTranscript array",
                transcript: transcript.tagWrapped)
        ]
    }
}
