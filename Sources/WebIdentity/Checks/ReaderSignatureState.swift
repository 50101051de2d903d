import WalletCOSE
import X509

/// What the `reader.auth.*` checks of one reader signature read and leave for each other.
struct ReaderSignatureState {
    /// The readerAuth or readerAuthAll signature as received.
    let signature: COSESign1
    /// ReaderAuthentication(All)Bytes of this request and session transcript.
    let signed: [UInt8]
    /// `ReaderAuthentication` or `ReaderAuthenticationAll`, for messages.
    let structure: String
    /// The x5chain, leaf first; set by `reader.auth.signature`.
    var chain: [Certificate] = []
}
