import Crypto
import Foundation
import FuzzSupport
import Mdoc
import VerificationCore
import WalletCBOR
import WalletCOSE
import WebIdentity
import X509

// The `cose` target. The first byte picks what the rest is:
//   0: a COSE_Sign1, verified with a fixed P-256 key;   1: a COSE_Mac0, checked with a fixed HMAC key;
//   2: a COSE_Key, decoded and encoded again;            3: a DeviceRequest with readerAuth, verified
//      against the real Chrome capture's reader certificate and transcript (ReaderAuthVerifier).
// Oracle: a valid signature or tag covers exactly the seed's Sig_structure / MAC_structure; a COSE_Key
// that decodes encodes to the same key; reader authentication that passes covers only the capture's
// ItemsRequest bytes.

let signingKey = try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x11, count: 32))
let macKey = SymmetricKey(data: [UInt8](repeating: 0x22, count: 32))
let seedPayload = Array("wallet-verifier fuzz seed payload".utf8)
let seedSign1 = try! COSESign1.sign(payload: seedPayload, key: .p256(signingKey), unprotected: [(.int(4), .bytes([1, 2, 3]))])
let seedSigStructure = try! seedSign1.signatureStructure()
let seedMac0 = try! COSEMac0.mac(payload: seedPayload, key: macKey)
let seedMacStructure = try! seedMac0.macStructure()

func capture(_ name: String) -> [UInt8] { testVector("mdoc/dcapi-annex-c-chrome-android-jmandel/request/" + name) }
let captureRequest = try! ReceivedDeviceRequest(cborBytes: capture("device-request.cbor"))
let captureTranscript = try! SessionTranscript(bytes: capture("session-transcript.cbor"))
let readerLeaf = try! Certificate(derEncoded: Array(captureRequest.docRequests[0].readerAuth!.headers.x5chainBytes()[0]))
let readerVerifier = ReaderAuthVerifier(roots: [readerLeaf])
let captureTime = fixedTime("2026-05-01T17:30:00Z")
let captureItems = Set(captureRequest.docRequests.map { Array($0.itemsRequestBytes) })

/// Writes the seed corpus (FUZZ_WRITE_SEEDS=DIR): the seeds hold signatures by the fixed keys above.
func writeSeeds(to directory: String) {
    let seeds: [(String, [UInt8])] = [
        ("sign1.bin", [0] + Array(seedSign1.node.encodedBytes)),
        ("mac0.bin", [1] + Array(seedMac0.node.encodedBytes)),
        ("cose-key.bin", [2] + Array(COSEPublicKey.p256(signingKey.publicKey).coseKey().encodedBytes)),
        ("device-request.bin", [3] + capture("device-request.cbor")),
    ]
    for (name, bytes) in seeds { FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(bytes)) }
}

func run(_ input: [UInt8]) async {
    guard let mode = input.first else { return }
    let bytes = Array(input.dropFirst())
    switch mode % 4 {
    case 0:
        guard let sign1 = try? COSESign1(cborBytes: bytes) else { return }
        if (try? sign1.isValidSignature(key: .p256(signingKey.publicKey))) == true {
            guard (try? sign1.signatureStructure()) == seedSigStructure else {
                fatalError("a COSE_Sign1 verified over another Sig_structure than the seed's")
            }
            AcceptedInputs.record(input)
        }
    case 1:
        guard let node = try? CBORDecoder.decode(bytes), let mac0 = try? COSEMac0(cbor: node) else { return }
        if (try? mac0.isValidTag(key: macKey)) == true {
            guard (try? mac0.macStructure()) == seedMacStructure else {
                fatalError("a COSE_Mac0 verified over another MAC_structure than the seed's")
            }
            AcceptedInputs.record(input)
        }
    case 2:
        guard let node = try? CBORDecoder.decode(bytes), let key = try? COSEPublicKey(coseKey: node) else { return }
        guard let again = try? COSEPublicKey(coseKey: CBORDecoder.decode(Array(key.coseKey().encodedBytes))), again.rawPublicKey == key.rawPublicKey
        else {
            fatalError("a COSE_Key does not survive encoding and decoding")
        }
    default:
        let report = await readerVerifier.verify(deviceRequest: bytes, transcript: captureTranscript, context: .at(captureTime))
        if report.check(.readerAuthSignature)?.status == .passed {
            guard let received = try? ReceivedDeviceRequest(cborBytes: bytes),
                received.docRequests.allSatisfy({ captureItems.contains(Array($0.itemsRequestBytes)) })
            else {
                fatalError("reader authentication passed for ItemsRequest bytes the capture does not sign")
            }
            AcceptedInputs.record(input)
        }
    }
}

@_cdecl("FuzzCOSE_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, writeSeeds: writeSeeds(to:), prepare: { _ = captureItems.count }, .asynchronous(run))
}
