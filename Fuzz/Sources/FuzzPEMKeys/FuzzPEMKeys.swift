import ApplePayVerifier
import Foundation
import FuzzSupport
import MdocVerifier
import WalletIdentity
import WebIdentity

// The `pem-keys` target: every key and certificate file form the CLI and the service accept. The
// first byte picks the reader; the rest is the file:
//   0 identity key (--identity-key, PEM)        1 web recipient key (--web-key: PEM, JWK, raw)
//   2 reader ephemeral key (mdoc --reader-key)  3 IACA trust file (--trust: PEM or DER certificates)
//   4 Apple Pay root (--applepay-root)           5 Apple Pay private key (--applepay-key), fixed certificate
//   6 Apple Pay certificate (--applepay-cert), fixed key
//   7 reader-authentication key (serve --reader-key), fixed certificate
//   8 reader-authentication certificate (--reader-cert), fixed key
// Oracle: no crash, trap, leak or timeout; an Apple Pay pair that loads has the fixed half unchanged.

func seatgeek(_ name: String) -> [UInt8] { testVector("applepay/seatgeek-2014-ec/" + name) }
let merchantCertificate = seatgeek("certificate.pem")
let merchantKey = seatgeek("private_key.pem")
let fixedPair = try! MerchantKey(certificateFile: merchantCertificate, privateKeyFile: merchantKey)

func run(_ input: [UInt8]) {
    guard let mode = input.first else { return }
    let bytes = Array(input.dropFirst())
    switch mode % 9 {
    case 0: _ = try? IdentityKeyRing.loadPrivateKey(pem: String(decoding: bytes, as: UTF8.self), name: "input")
    case 1: _ = try? WebRecipientKey.load(contents: bytes, name: "input")
    case 2: _ = try? ReaderKeyAgreementKey.load(contents: bytes, name: "input")
    case 3: _ = try? IACATrustStore.certificates(in: bytes, name: "input")
    case 4: _ = try? ApplePayTrustAnchor(fileContents: bytes)
    case 5:
        if let pair = try? MerchantKey(certificateFile: merchantCertificate, privateKeyFile: bytes) {
            guard pair.publicKeyHash == fixedPair.publicKeyHash else { fatalError("the certificate's key hash changed with the private key file") }
        }
    case 6:
        _ = try? MerchantKey(certificateFile: bytes, privateKeyFile: merchantKey)
    case 7:
        _ = try? ReaderAuthSigner.load(keyContents: bytes, keyName: "input", certificateFiles: [("certificate.pem", merchantCertificate)])
    default:
        _ = try? ReaderAuthSigner.load(keyContents: merchantKey, keyName: "private_key.pem", certificateFiles: [("input", bytes)])
    }
}

@_cdecl("FuzzPEMKeys_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, .synchronous(run))
}
