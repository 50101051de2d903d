import Crypto
import Foundation
import FuzzSupport
@_spi(Internal) import MdocVerifier
import WalletCOSE

// The `revocation-list` target. The first byte picks what the rest is:
//   0: a status or identifier list token (COSE_Sign1 + CWT), decoded, its list decompressed under a
//      cap, and evaluated by the RevocationChecker with the IETF example issuer key pinned, an hour
//      after the example's issue time;
//   1: a zlib stream and 2: a raw DEFLATE stream, inflated with a 4 KiB output cap.
// Oracle: an output beyond its cap; a list whose signature verifies with the pinned key but whose
// payload is not the example's; a decision (revoked / not revoked) for any index that differs from
// the example list's.

func ietf(_ name: String) -> [UInt8] { testVector("mdoc/ietf-token-status-list/" + name) }
let issuerKey: COSEPublicKey = {
    func b64url(_ text: String) -> [UInt8] {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return [UInt8](Data(base64Encoded: s)!)
    }
    let key = try! P256.Signing.PublicKey(
        x963Representation: [0x04] + b64url("I3HWm_0Ds1dPMI-IWmf4mBmH-YaeAVbPVu7vB27CxXo") + b64url("6N_d5Elj9bs1htgV3okJKIdbHEpkgTmAluYKJemzn1M"))
    return .p256(key)
}()
let seedToken = try! RevocationListToken(bytes: ietf("status_list_cwt.cbor"))
let seedPayload = Array(seedToken.sign1.payload!)
let uri = "https://example.com/statuslists/1"
let time = Date(timeIntervalSince1970: 1_686_920_170 + 3600)
let indices: [UInt64] = [0, 1, 3, 15, 16]
/// The example list's answer for each index: revoked, not revoked or undetermined.
func decisions(_ bytes: [UInt8]) async -> [String] {
    var lists = OfflineRevocationLists()
    guard (try? lists.add(bytes: bytes, name: "input", uri: uri)) != nil else { return [] }
    let checker = RevocationChecker(source: lists, trustStore: .init(), pinnedSignerKeys: [issuerKey])
    var answers: [String] = []
    for index in indices {
        switch await checker.evaluate(
            references: [.statusList(index: index, uri: uri, certificate: nil)], docType: "any", documentRoot: nil, at: time
        ).answer {
        case .notRevoked: answers.append("valid")
        case .revoked: answers.append("revoked")
        case .undetermined: answers.append("undetermined")
        }
    }
    return answers
}
let seedDecisions: [String] = seedResult { await decisions(ietf("status_list_cwt.cbor")) }

func run(_ input: [UInt8]) async {
    guard let mode = input.first else { return }
    let bytes = Array(input.dropFirst())
    switch mode % 3 {
    case 0:
        if let token = try? RevocationListToken(bytes: bytes) {
            if let entries = try? token.statusList?.decompressed(maximumSize: 4096) {
                guard entries.count <= 4096 else { fatalError("a list decompressed past its cap") }
                if let bits = token.statusList?.bits {
                    for index in indices { _ = RevocationListToken.StatusList.status(at: index, bits: bits, in: entries) }
                }
            }
            if (try? token.sign1.isValidSignature(key: issuerKey)) == true {
                guard token.sign1.payload.map(Array.init) == seedPayload else {
                    fatalError("a list verified with the pinned key carries another payload")
                }
            }
        }
        let answers = await decisions(bytes)
        for (answer, seed) in zip(answers, seedDecisions) where answer != "undetermined" {
            guard answer == seed else { fatalError("a list decided an index otherwise than the example list: \(answers) / \(seedDecisions)") }
        }
        if answers.contains(where: { $0 != "undetermined" }) { AcceptedInputs.record(input) }
    case 1:
        if let output = try? Zlib.decompress(bytes, maximumOutputSize: 4096), output.count > 4096 { fatalError("zlib output past its cap") }
    default:
        if let output = try? Zlib.inflate(raw: bytes, maximumOutputSize: 4096), output.count > 4096 { fatalError("DEFLATE output past its cap") }
    }
}

/// Writes the seed corpus (FUZZ_WRITE_SEEDS=DIR).
func writeSeeds(to directory: String) {
    FileManager.default.createFile(atPath: directory + "/status-list.bin", contents: Data([0] + ietf("status_list_cwt.cbor")))
    if let token = try? RevocationListToken(bytes: ietf("status_list_cwt.cbor")), let compressed = token.statusList?.compressed {
        FileManager.default.createFile(atPath: directory + "/zlib.bin", contents: Data([1] + Array(compressed)))
    }
    FileManager.default.createFile(
        atPath: directory + "/deflate-stored.bin",
        contents: Data([2] + Array(Zlib.storedStream(Array("stored block".utf8)).dropFirst(2).dropLast(4))))
}

@_cdecl("FuzzRevocationList_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, writeSeeds: writeSeeds(to:), prepare: { _ = seedDecisions.count }, .asynchronous(run))
}
