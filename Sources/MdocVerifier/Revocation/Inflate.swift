/// A zlib (RFC 1950) / DEFLATE (RFC 1951) decoder for status lists, written for hostile input:
/// every read is bounds-checked, the output is capped before it grows, and malformed streams end in
/// a ``InflateError`` (never a trap). Speed is secondary: status lists are small, and the cap keeps a
/// "zlib bomb" from costing more than the cap.
/// Behind the `Internal` SPI: the package and its fuzz targets call it; it is not public API.
@_spi(Internal) public enum Zlib {
    /// Decompresses a zlib stream (2-byte header, DEFLATE data, Adler-32 trailer). Bytes after the
    /// trailer are an error.
    public static func decompress<C: Collection<UInt8>>(_ input: C, maximumOutputSize: Int) throws(InflateError) -> [UInt8] {
        let bytes = Array(input)
        guard bytes.count >= 6 else { throw InflateError(.truncated, "a zlib stream is at least 6 bytes, found \(bytes.count)") }
        let cmf = bytes[0], flg = bytes[1]
        guard cmf & 0x0f == 8 else { throw InflateError(.unsupportedMethod, "zlib compression method \(cmf & 0x0f) is not DEFLATE (8)") }
        guard cmf >> 4 <= 7 else { throw InflateError(.malformedHeader, "zlib window size exponent \(cmf >> 4) is above 7") }
        guard (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 else { throw InflateError(.malformedHeader, "the zlib header check bits are wrong") }
        guard flg & 0x20 == 0 else { throw InflateError(.unsupportedMethod, "zlib preset dictionaries are not supported") }
        var inflater = Inflater(input: bytes, start: 2, maximumOutputSize: maximumOutputSize)
        try inflater.run()
        let trailerStart = inflater.bytePositionAfterStream
        guard trailerStart + 4 <= bytes.count else { throw InflateError(.truncated, "the zlib stream ends before its Adler-32 checksum") }
        let expected =
            UInt32(bytes[trailerStart]) << 24 | UInt32(bytes[trailerStart + 1]) << 16 | UInt32(bytes[trailerStart + 2]) << 8
            | UInt32(bytes[trailerStart + 3])
        guard adler32(inflater.output) == expected else {
            throw InflateError(.checksumMismatch, "the Adler-32 checksum of the decompressed data does not match")
        }
        guard trailerStart + 4 == bytes.count else {
            throw InflateError(.trailingBytes, "\(bytes.count - trailerStart - 4) bytes follow the zlib stream")
        }
        return inflater.output
    }

    /// Decompresses raw DEFLATE data (no zlib header or trailer).
    public static func inflate<C: Collection<UInt8>>(raw input: C, maximumOutputSize: Int) throws(InflateError) -> [UInt8] {
        var inflater = Inflater(input: Array(input), start: 0, maximumOutputSize: maximumOutputSize)
        try inflater.run()
        return inflater.output
    }

    /// The Adler-32 checksum (RFC 1950) of `data`, which ends every zlib stream.
    public static func adler32<C: Collection<UInt8>>(_ data: C) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var pending = 0
        for byte in data {
            a += UInt32(byte)
            b += a
            pending += 1
            if pending == 5552 {
                a %= 65521
                b %= 65521
                pending = 0
            }
        }
        return (b % 65521) << 16 | (a % 65521)
    }

    /// A zlib stream of stored (uncompressed) DEFLATE blocks: valid input for any inflater. For
    /// fixtures and tools that must produce zlib data without a compressor.
    public static func storedStream(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out.append(final)
            out.append(UInt8(count & 0xff))
            out.append(UInt8(count >> 8))
            out.append(UInt8(~count & 0xff))
            out.append(UInt8((~count >> 8) & 0xff))
            out.append(contentsOf: data[offset..<(offset + count)])
            offset += count
        } while offset < data.count
        let sum = adler32(data)
        out += [UInt8(sum >> 24), UInt8((sum >> 16) & 0xff), UInt8((sum >> 8) & 0xff), UInt8(sum & 0xff)]
        return out
    }
}

/// Why a compressed stream could not be decompressed.
public struct InflateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with a compressed stream.
    public enum Code: String, Sendable {
        case truncated, malformedHeader, unsupportedMethod, invalidBlockType, invalidStoredLength
        case invalidCode, invalidDistance, outputTooLarge, checksumMismatch, trailingBytes
    }

    /// What is wrong.
    public let code: Code
    /// Where and why, for people.
    public let message: String

    /// An error with its code and message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the message.
    public var description: String { "InflateError.\(code.rawValue): \(message)" }
    /// Errors are equal when their codes are (tests compare codes, not messages).
    public static func == (lhs: InflateError, rhs: InflateError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only, as equality compares it only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// A canonical Huffman code: how many codes of each length, and the symbols in code order.
private struct HuffmanCode {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int] = []

    /// Builds the code from per-symbol lengths (0 = unused). Over-subscribed sets are rejected;
    /// incomplete ones are allowed (an unused code then fails to decode).
    init(lengths: ArraySlice<Int>) throws(InflateError) {
        for length in lengths {
            guard (0...15).contains(length) else { throw InflateError(.invalidCode, "a code length of \(length) is out of range") }
        }
        self.init(checkedLengths: lengths)
        var left = 1
        for length in 1...15 {
            left <<= 1
            left -= counts[length]
            guard left >= 0 else { throw InflateError(.invalidCode, "the Huffman code lengths are over-subscribed") }
        }
    }

    /// Builds the tables from lengths already known to be in 0...15 (the fixed codes, or after the
    /// check above).
    init(checkedLengths lengths: ArraySlice<Int>) {
        for length in lengths { counts[length] += 1 }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
        symbols = [Int](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
        counts[0] = 0
    }
}

private struct Inflater {
    let input: [UInt8]
    var position: Int
    var bitBuffer: UInt32 = 0
    var bitCount = 0
    let maximumOutputSize: Int
    var output: [UInt8] = []

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    init(input: [UInt8], start: Int, maximumOutputSize: Int) {
        self.input = input
        self.position = start
        self.maximumOutputSize = max(0, maximumOutputSize)
    }

    /// The index of the first byte after the DEFLATE stream (partial bytes are discarded).
    var bytePositionAfterStream: Int { position }

    mutating func bits(_ count: Int) throws(InflateError) -> Int {
        while bitCount < count {
            guard position < input.count else { throw InflateError(.truncated, "the compressed data ends in the middle of a block") }
            bitBuffer |= UInt32(input[position]) << UInt32(bitCount)
            position += 1
            bitCount += 8
        }
        let value = Int(bitBuffer & ((1 << UInt32(count)) - 1))
        bitBuffer >>= UInt32(count)
        bitCount -= count
        return value
    }

    mutating func decode(_ code: HuffmanCode) throws(InflateError) -> Int {
        var value = 0, first = 0, index = 0
        for length in 1...15 {
            value |= try bits(1)
            let count = code.counts[length]
            if value - first < count { return code.symbols[index + value - first] }
            index += count
            first += count
            first <<= 1
            value <<= 1
        }
        throw InflateError(.invalidCode, "a Huffman code in the data is not in the block's code table")
    }

    mutating func emit(_ byte: UInt8) throws(InflateError) {
        guard output.count < maximumOutputSize else {
            throw InflateError(.outputTooLarge, "the decompressed data exceeds the limit of \(maximumOutputSize) bytes")
        }
        output.append(byte)
    }

    mutating func run() throws(InflateError) {
        var last = false
        while !last {
            last = try bits(1) == 1
            switch try bits(2) {
            case 0: try stored()
            case 1: try huffmanBlock(literal: Self.fixedLiteral, distance: Self.fixedDistance)
            case 2: try dynamic()
            default: throw InflateError(.invalidBlockType, "DEFLATE block type 3 is reserved")
            }
        }
        // Discard the partial byte; position now points after the stream.
        bitBuffer = 0
        bitCount = 0
    }

    mutating func stored() throws(InflateError) {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw InflateError(.truncated, "a stored block header is cut off") }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        position += 4
        guard length == ~complement & 0xffff else { throw InflateError(.invalidStoredLength, "a stored block's length and its complement disagree") }
        guard position + length <= input.count else { throw InflateError(.truncated, "a stored block is cut off") }
        guard output.count + length <= maximumOutputSize else {
            throw InflateError(.outputTooLarge, "the decompressed data exceeds the limit of \(maximumOutputSize) bytes")
        }
        output.append(contentsOf: input[position..<(position + length)])
        position += length
    }

    static let fixedLiteral: HuffmanCode = {
        var lengths = [Int](repeating: 8, count: 288)
        for i in 144..<256 { lengths[i] = 9 }
        for i in 256..<280 { lengths[i] = 7 }
        return HuffmanCode(checkedLengths: lengths[...])
    }()

    static let fixedDistance = HuffmanCode(checkedLengths: [Int](repeating: 5, count: 30)[...])

    mutating func dynamic() throws(InflateError) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else {
            throw InflateError(
                .invalidCode, "a dynamic block declares \(literalCount) literal/length and \(distanceCount) distance codes (at most 286 and 30)")
        }
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengthLengths[Self.codeLengthOrder[index]] = try bits(3) }
        let codeLengthCode = try HuffmanCode(lengths: codeLengthLengths[...])
        var lengths: [Int] = []
        lengths.reserveCapacity(literalCount + distanceCount)
        while lengths.count < literalCount + distanceCount {
            let symbol = try decode(codeLengthCode)
            var repeated = 0, count = 0
            switch symbol {
            case 0...15:
                lengths.append(symbol)
                continue
            case 16:
                guard let previous = lengths.last else { throw InflateError(.invalidCode, "a repeat code has no previous length") }
                repeated = previous
                count = 3 + (try bits(2))
            case 17: count = 3 + (try bits(3))
            default: count = 11 + (try bits(7))
            }
            guard lengths.count + count <= literalCount + distanceCount else {
                throw InflateError(.invalidCode, "code lengths repeat past the end of the table")
            }
            lengths.append(contentsOf: repeatElement(repeated, count: count))
        }
        guard lengths[256] != 0 else { throw InflateError(.invalidCode, "the block has no end-of-block code") }
        let literal = try HuffmanCode(lengths: lengths[0..<literalCount])
        let distance = try HuffmanCode(lengths: lengths[literalCount...])
        try huffmanBlock(literal: literal, distance: distance)
    }

    mutating func huffmanBlock(literal: HuffmanCode, distance: HuffmanCode) throws(InflateError) {
        while true {
            let symbol = try decode(literal)
            if symbol < 256 {
                try emit(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < Self.lengthBase.count else { throw InflateError(.invalidCode, "length symbol \(symbol) is invalid") }
            let length = Self.lengthBase[lengthIndex] + (try bits(Self.lengthExtra[lengthIndex]))
            let distanceSymbol = try decode(distance)
            guard distanceSymbol < Self.distanceBase.count else {
                throw InflateError(.invalidDistance, "distance symbol \(distanceSymbol) is invalid")
            }
            let back = Self.distanceBase[distanceSymbol] + (try bits(Self.distanceExtra[distanceSymbol]))
            guard back <= output.count else {
                throw InflateError(.invalidDistance, "a back-reference points \(back) bytes back, before the start of the data")
            }
            guard output.count + length <= maximumOutputSize else {
                throw InflateError(.outputTooLarge, "the decompressed data exceeds the limit of \(maximumOutputSize) bytes")
            }
            let start = output.count - back
            for offset in 0..<length { output.append(output[start + offset]) }
        }
    }
}
