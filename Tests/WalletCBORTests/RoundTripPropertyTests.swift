import PropertyBased
import Testing
import WalletCBOR

/// Builds a CBOR tree from a list of random numbers (so the property library can shrink it).
private struct TreeBuilder {
    var numbers: [UInt64]
    var index = 0

    mutating func next() -> UInt64 {
        defer { index += 1 }
        return index < numbers.count ? numbers[index] : 0
    }

    mutating func build(depth: Int) -> CBORNode {
        let choice = next() % (depth > 4 ? 8 : 11)
        let n = next()
        switch choice {
        case 0: return .unsigned(n >> (n % 64))
        case 1: return .negative(argument: n >> (n % 64))
        case 2: return .bytes((0..<(n % 40)).map { UInt8(truncatingIfNeeded: $0 &* n) })
        case 3: return .text(String(repeating: ["a", "ü", "水", "𐅑", "\"", "\n"][Int(n % 6)], count: Int(n % 30)))
        case 4: return .bool(n % 2 == 0)
        case 5: return n % 2 == 0 ? .null : .undefined
        case 6:
            let candidates: [Double] = [0, -0.0, 1.5, 65504, 100000, 1.1, .infinity, -.infinity, .nan, 5.960464477539063e-08, Double(bitPattern: n)]
            return .float(candidates[Int(n % UInt64(candidates.count))])
        case 7: return (try? .simple(UInt8(truncatingIfNeeded: n % 20))) ?? .null
        case 8: return .array((0..<(n % 5)).map { _ in build(depth: depth + 1) })
        case 9:
            var pairs: [(CBORNode, CBORNode)] = []
            var keys = Set<CBORNode>()
            for _ in 0..<(n % 5) {
                // Keys are scalars: the decoder refuses arrays, maps and tags as keys (unsupportedMapKey).
                let key = build(depth: 5)
                if keys.insert(key).inserted { pairs.append((key, build(depth: depth + 1))) }
            }
            return (try? .map(pairs)) ?? .null
        default: return .tagged(n % 2 == 0 ? 24 : n % 1000, build(depth: depth + 1))
        }
    }
}

@Suite struct RoundTripPropertyTests {
    @Test func builtTreesDecodeToEqualTreesWithIdenticalBytes() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max).array(of: 0...60)) { numbers in
            var builder = TreeBuilder(numbers: numbers)
            let tree = builder.build(depth: 0)
            let bytes = Array(tree.encodedBytes)
            guard let decoded = try? CBORDecoder.decode(bytes) else {
                Issue.record("built tree did not decode")
                return
            }
            #expect(decoded == tree)
            #expect(Array(decoded.encodedBytes) == bytes)
            // What we build is deterministic by construction.
            #expect(decoded.isDeterministicallyEncoded)
            #expect(Array(decoded.deterministicallyReencoded().encodedBytes) == bytes)
        }
    }

    @Test func integersRoundTrip() async {
        await propertyCheck(input: Gen.int64()) { value in
            let node = CBORNode.int(value)
            let decoded = try? CBORDecoder.decode(Array(node.encodedBytes))
            #expect(decoded?.integerValue == value)
        }
    }

    @Test func floatsRoundTripExactlyInTheShortestWidth() async {
        await propertyCheck(input: Gen.uint64()) { bits in
            let value = Double(bitPattern: bits)
            let node = CBORNode.float(value)
            guard case .float(let decoded)? = (try? CBORDecoder.decode(Array(node.encodedBytes)))?.value else {
                Issue.record("float did not decode")
                return
            }
            if value.isNaN { #expect(decoded.isNaN) } else { #expect(decoded.bitPattern == value.bitPattern) }
            // The width is the shortest that keeps the value.
            if Double(Float(value)) != value, !value.isNaN { #expect(node.encodedBytes.count == 9) }
        }
    }

    @Test func textRoundTrips() async {
        await propertyCheck(input: Gen.character(in: "\u{20}"..."\u{D7FF}").string(of: 0...50)) { text in
            let decoded = try? CBORDecoder.decode(Array(CBORNode.text(text).encodedBytes))
            #expect(decoded?.textValue == text)
        }
    }
}
