import Foundation
import FuzzSupport
import GooglePayVerifier
import VerificationCore

// The `googlepay-token` target: token JSON (strict JSON reader) → signedKey and signedMessage JSON →
// both ECDSA signatures → ECDH, HKDF, HMAC tag, AES-CTR → the decrypted message's reader, with
// Google's test root keys and the merchant key of the real test token, at its time, with a fresh
// replay store per input. Aborts on an accepted verdict whose decrypted message differs from the
// seed's.

func vector(_ name: String, file: StaticString = #filePath) -> [UInt8] {
    let directory = URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
        .appendingPathComponent("../../../Tests/GooglePayVerifierTests/Vectors").standardized
    guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
        fatalError("fuzz: cannot read Tests/GooglePayVerifierTests/Vectors/\(name)")
    }
    return [UInt8](data)
}

let rootKeys = try! GooglePayRootKeys.parse(vector("r2d2-google-root-keys-test.json"))
let merchantKey = try! GooglePayMerchantKey(pemRepresentation: String(decoding: vector("r2d2-merchant-private-key.pem"), as: UTF8.self))
let seedMessage = vector("r2d2-ecv2-tokenized-card.plaintext.json")
let time = Date(timeIntervalSince1970: 1_595_000_067)

func run(_ bytes: [UInt8]) async {
    let verifier = GooglePayTokenVerifier(
        rootKeys: rootKeys, keyRing: GooglePayMerchantKeyRing([merchantKey]), recipient: .merchant("12345678901234567890"),
        replayStore: InMemoryReplayStore())
    let result = await verifier.verify(bytes, context: VerificationContext(time: time))
    if result.verdict == .accepted {
        guard let payment = result.payment, payment.rawJSON == seedMessage else {
            fatalError("accepted with another message than the seed's")
        }
        AcceptedInputs.record(bytes)
    }
    // The JSON answer is written for every verdict, as the service does.
    _ = result.jsonBytes
}

@_cdecl("FuzzGooglePayToken_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, .asynchronous(run))
}
