import Crypto
import Foundation
import Testing
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletVerifierTestSupport

@_spi(Internal) @testable import MdocVerifier

private let ietf = "mdoc/ietf-token-status-list/"

/// The hex lines of an IETF example file (`status_list_encoding*_cbor.txt`), decoded.
func ietfStatusListExample(_ name: String) throws -> (bits: Int, lst: ArraySlice<UInt8>) {
    let text = try TestVectors.text(ietf + name)
    let hexLines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty && $0.allSatisfy { $0.isHexDigit } }
    let node = try CBORDecoder.decode(try #require(Hex.decode(hexLines.joined())))
    let map = try node.map()
    return (Int(try map["bits"]!.uint()), try map["lst"]!.bytes())
}

@Suite struct InflateTests {
    struct Example: Sendable, CustomStringConvertible {
        let file: String
        let bits: Int
        let size: Int
        let digestPrefix: String
        let expected: [(index: Int, value: Int)]
        var description: String { file }
    }

    static let examples: [Example] = [
        Example(
            file: "status_list_encoding_cbor.txt", bits: 1, size: 2, digestPrefix: "bd9532dd101b7052",
            expected: [(0, 1), (1, 0), (3, 1), (15, 1), (14, 0)]),
        Example(
            file: "status_list_encoding1_long_cbor.txt", bits: 1, size: 131_072, digestPrefix: "f2529d5d7b48665f",
            expected: [(0, 1), (1993, 1), (1_000_345, 1), (1_000_346, 0)]),
        Example(
            file: "status_list_encoding2_cbor.txt", bits: 2, size: 3, digestPrefix: "e8445fa773e87828",
            expected: [(0, 1), (1, 2), (2, 0), (3, 3), (11, 3)]),
        Example(
            file: "status_list_encoding2_long_cbor.txt", bits: 2, size: 262_144, digestPrefix: "89014d93753a4996",
            expected: [(1993, 2), (159_495, 3), (1_000_345, 3)]),
        Example(
            file: "status_list_encoding4_cbor.txt", bits: 4, size: 524_288, digestPrefix: "7624b511c7462ca2",
            expected: [(0, 1), (459_495, 4), (1_000_345, 12), (1_004_534, 11)]),
        Example(
            file: "status_list_encoding8_cbor.txt", bits: 8, size: 1_048_576, digestPrefix: "15aae678f848a96d",
            expected: [(0, 0), (1199, 121), (19_535, 255), (1_048_575, 0)]),
    ]

    @Test(arguments: examples)
    func ietfExamplesDecompressAndIndex(_ example: Example) throws {
        let (file, bits, size, digestPrefix, expected) = (example.file, example.bits, example.size, example.digestPrefix, example.expected)
        let decoded = try ietfStatusListExample(file)
        #expect(decoded.bits == bits)
        let raw = try Zlib.decompress(decoded.lst, maximumOutputSize: 16 << 20)
        #expect(raw.count == size)
        #expect(Hex.encode(Array(SHA256.hash(data: raw))).hasPrefix(digestPrefix))
        for (index, value) in expected {
            #expect(RevocationListToken.StatusList.status(at: UInt64(index), bits: bits, in: raw) == UInt8(value), "index \(index)")
        }
        // One past the end is outside the list, never "valid".
        #expect(RevocationListToken.StatusList.status(at: UInt64(size * 8 / bits), bits: bits, in: raw) == nil)
        #expect(RevocationListToken.StatusList.status(at: UInt64.max, bits: bits, in: raw) == nil)
    }

    @Test func storedStreamsRoundTripAndTheFixtureAgrees() throws {
        for size in [0, 1, 100, 65_535, 65_536, 200_000] {
            let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(try Zlib.decompress(Zlib.storedStream(data), maximumOutputSize: size) == data)
            #expect(Zlib.storedStream(data) == ZlibFixture.stored(data))
        }
    }

    @Test func theOutputCapStopsZlibBombs() throws {
        let bomb = ZlibFixture.zeros(count: 64 << 20)  // 64 MiB of zeros in ~400 KB
        #expect(bomb.count < 512 * 1024)
        #expect(throws: InflateError(.outputTooLarge, "")) { try Zlib.decompress(bomb, maximumOutputSize: 1 << 20) }
        // Under the cap the same construction decodes exactly.
        let small = ZlibFixture.zeros(count: 10_000)
        #expect(try Zlib.decompress(small, maximumOutputSize: 10_000) == [UInt8](repeating: 0, count: 10_000))
        #expect(throws: InflateError(.outputTooLarge, "")) { try Zlib.decompress(small, maximumOutputSize: 9_999) }
        #expect(throws: InflateError(.outputTooLarge, "")) { try Zlib.decompress(Zlib.storedStream([1, 2, 3]), maximumOutputSize: 2) }
    }

    @Test func malformedStreamsAreErrors() throws {
        let good = Zlib.storedStream(Array("status".utf8))
        var badChecksum = good
        badChecksum[badChecksum.count - 1] ^= 1
        #expect(throws: InflateError(.checksumMismatch, "")) { try Zlib.decompress(badChecksum, maximumOutputSize: 100) }
        #expect(throws: InflateError(.trailingBytes, "")) { try Zlib.decompress(good + [0], maximumOutputSize: 100) }
        #expect(throws: InflateError(.malformedHeader, "")) { try Zlib.decompress([0x78, 0x02] + good.dropFirst(2), maximumOutputSize: 100) }
        #expect(throws: InflateError(.unsupportedMethod, "")) { try Zlib.decompress([0x79, 0x9c, 0, 0, 0, 0], maximumOutputSize: 100) }
        // Block type 3 is reserved.
        #expect(throws: InflateError(.invalidBlockType, "")) { try Zlib.decompress([0x78, 0x01, 0x07, 0, 0, 0, 0], maximumOutputSize: 100) }
        // A back-reference before the start of the data: fixed block, length 3 (symbol 257), distance 1.
        #expect(throws: InflateError(.invalidDistance, "")) { try Zlib.inflate(raw: [0x03, 0x02, 0x00, 0x00], maximumOutputSize: 100) }
    }

    @Test func everyTruncationAndManyBitFlipsFailCleanly() throws {
        let (_, lst) = try ietfStatusListExample("status_list_encoding4_cbor.txt")
        let stream = Array(lst)
        for length in 0..<stream.count {
            #expect(throws: InflateError.self) { try Zlib.decompress(stream[0..<length], maximumOutputSize: 1 << 20) }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var mutated = stream
            let position = Int.random(in: 0..<mutated.count, using: &generator)
            mutated[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            // Either an error or (rarely) some output within the cap: never a trap, never more than the cap.
            if let output = try? Zlib.decompress(mutated, maximumOutputSize: 600_000) { #expect(output.count <= 600_000) }
        }
        for _ in 0..<300 {
            let noise = [0x78, 0x9c] + (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let output = try? Zlib.decompress(noise, maximumOutputSize: 4096) { #expect(output.count <= 4096) }
        }
    }
}

@Suite struct IETFStatusListTokenTests {
    static let issuerKey: COSEPublicKey = {
        // example_issuer_public.jwk.json (kid "12"), x and y as base64url.
        func b64url(_ text: String) -> [UInt8] {
            var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while s.count % 4 != 0 { s += "=" }
            return [UInt8](Data(base64Encoded: s)!)
        }
        let x = b64url("I3HWm_0Ds1dPMI-IWmf4mBmH-YaeAVbPVu7vB27CxXo")
        let y = b64url("6N_d5Elj9bs1htgV3okJKIdbHEpkgTmAluYKJemzn1M")
        return .p256(try! P256.Signing.PublicKey(x963Representation: [0x04] + x + y))
    }()

    static let issuedAt = Date(timeIntervalSince1970: 1_686_920_170)

    @Test func theExampleStatusListDecodesAndIsSignedByTheExampleKey() throws {
        let token = try RevocationListToken(bytes: try TestVectors.data(ietf + "status_list_cwt.cbor"))
        #expect(token.kind == .statusList)
        #expect(token.type == "application/statuslist+cwt")
        #expect(token.subject == "https://example.com/statuslists/1")
        #expect(token.issuedAt == Self.issuedAt)
        #expect(token.expiresAt == Date(timeIntervalSince1970: 2_291_720_170))
        #expect(token.timeToLive == 43_200)
        #expect(try token.sign1.isValidSignature(key: Self.issuerKey))
        let list = try #require(token.statusList)
        #expect(list.bits == 1)
        let entries = try list.decompressed(maximumSize: 1024)
        #expect(entries == [0xb9, 0xa3])
        let statuses = (0..<16).map { RevocationListToken.StatusList.status(at: UInt64($0), bits: 1, in: entries)! }
        #expect(statuses == [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1])
    }

    /// The referenced token's status claim, run through the checker with the example key pinned.
    @Test func theReferencedTokenIsRevokedAndOtherIndicesAreDecided() async throws {
        let referenced = try COSESign1(cborBytes: try TestVectors.data(ietf + "referenced_token_cwt.cbor"))
        #expect(try referenced.isValidSignature(key: Self.issuerKey))
        let claims = try CBORDecoder.decode(referenced.payload!).map()
        let status = try #require(claims[Int64(65535)])
        let references = try MSOStatusReference.references(in: status)
        #expect(references == [.statusList(index: 0, uri: "https://example.com/statuslists/1", certificate: nil)])

        var lists = OfflineRevocationLists()
        try lists.add(bytes: try TestVectors.data(ietf + "status_list_cwt.cbor"), name: "status_list_cwt.cbor")
        let checker = RevocationChecker(source: lists, trustStore: .init(), pinnedSignerKeys: [Self.issuerKey])
        let time = Self.issuedAt.addingTimeInterval(3600)
        func answer(_ index: UInt64) async -> RevocationEvaluation.Answer {
            await checker.evaluate(
                references: [.statusList(index: index, uri: "https://example.com/statuslists/1", certificate: nil)],
                docType: "any", documentRoot: nil, at: time
            ).answer
        }
        guard case .revoked(let reason, _) = await checker.evaluate(references: references, docType: "any", documentRoot: nil, at: time).answer else {
            Issue.record("index 0 must be revoked")
            return
        }
        #expect(reason == "revoked")
        guard case .notRevoked = await answer(1) else {
            Issue.record("index 1 is valid")
            return
        }
        guard case .revoked = await answer(3) else {
            Issue.record("index 3 is invalid")
            return
        }
        guard case .undetermined(let failure) = await answer(16) else {
            Issue.record("index 16 is outside the list")
            return
        }
        #expect(failure.reason == "indexOutOfRange")

        // Without the pinned key the list has no x5chain: untrusted, never "valid".
        let unpinned = RevocationChecker(source: lists, trustStore: .init())
        guard case .undetermined(let untrusted) = await unpinned.evaluate(references: references, docType: "any", documentRoot: nil, at: time).answer
        else {
            Issue.record("an unpinned list without x5chain must be undetermined")
            return
        }
        #expect(untrusted.reason == "untrustedSigner")
        // A day and a bit later the list is stale under the default policy (Apple refreshes daily).
        guard
            case .undetermined(let stale) = await checker.evaluate(
                references: references, docType: "any", documentRoot: nil, at: Self.issuedAt.addingTimeInterval(2 * 86_400)
            ).answer
        else {
            Issue.record("a two-day-old list must be stale")
            return
        }
        #expect(stale.reason == "listStale")
    }

    @Test(arguments: [
        "a0", "d28443a10126a0f640", "d2844da20126106b6f746865722b74797065a05819a1197ffd" + "a2646269747303636c737441" + "00" + "4100", "ff", "",
    ])
    func hostileListsAreMalformed(_ input: String) {
        #expect(throws: RevocationFailure.self) { try RevocationListToken(bytes: Hex.decode(input) ?? []) }
    }
}
