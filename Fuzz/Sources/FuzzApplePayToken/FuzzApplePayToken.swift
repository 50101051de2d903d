import ApplePayVerifier
import Foundation
import FuzzSupport
import VerificationCore

// The `applepay-token` target: token JSON (strict JSON reader) → CMS SignedData BER walk → checks →
// EC_v1 decryption with the merchant key of Apple's 2014 token, at its signing time, with a fresh
// replay store per input. Aborts on an accepted verdict whose decrypted payment differs from the
// seed's.

func file(_ name: String) -> [UInt8] { testVector("applepay/seatgeek-2014-ec/" + name) }
let key = try! MerchantKey(certificateFile: file("certificate.pem"), privateKeyFile: file("private_key.pem"))
let time = ISO8601DateFormatter().date(from: "2014-10-27T19:52:43Z")!
let seedPayment =
    #"{"applicationPrimaryAccountNumber":"4109370251004320","applicationExpirationDate":"200731","currencyCode":"840","transactionAmount":100,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","paymentData":{"onlinePaymentCryptogram":"Af9x/QwAA/DjmU65oyc1MAABAAA=","eciIndicator":"5"}}"#

func run(_ bytes: [UInt8]) async {
    var policy = ApplePayPolicy.production
    policy.maximumSigningAge = .seconds(86_400 * 365 * 20)
    guard let verifier = try? ApplePayTokenVerifier(keyRing: try MerchantKeyRing([key]), replayStore: InMemoryReplayStore(), policy: policy) else {
        return
    }
    let result = await verifier.verify(bytes, context: VerificationContext(time: time))
    if result.verdict == .accepted {
        guard let payment = result.payment, String(decoding: payment.rawJSON, as: UTF8.self) == seedPayment else {
            fatalError("accepted with another payment than the seed's")
        }
        AcceptedInputs.record(bytes)
    }
}

@_cdecl("FuzzApplePayToken_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, .asynchronous(run))
}
