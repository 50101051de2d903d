/// Base64 (RFC 4648), the one implementation every module uses.
///
/// Decoding, by where the text comes from:
/// - ``decodeLenient(_:)``: what HTTP clients send — the standard (§4) or the URL-safe (§5) alphabet,
///   padded or not, surrounding whitespace ignored.
/// - ``decodeStrict(_:)``: what Apple writes in payment tokens — standard alphabet, length a multiple of
///   4, at most two "=" and only at the end, nothing else (a field with line breaks or "=" in the
///   middle was altered on the way).
///
/// - ``decodeWrapped(_:)``: files, which wrap lines anywhere: whitespace is dropped, then lenient.
/// - ``decodeURL(_:)``: base64url (§5) as the Digital Credentials API and JWKs use it, unpadded.
///
/// Anything else (a character outside the alphabet, "=" before the end, an impossible length, empty
/// input) is refused with nil.
package enum Base64 {
    /// The standard or the URL-safe alphabet, padded or not, surrounding whitespace ignored.
    package static func decodeLenient(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input in
            var start = 0
            var end = input.count
            while start < end, isWhitespace(input[start]) { start += 1 }
            while end > start, isWhitespace(input[end - 1]) { end -= 1 }
            var padding = 0
            while end > start, padding < 2, input[end - 1] == UInt8(ascii: "=") {
                end -= 1
                padding += 1
            }
            let count = end - start
            if padding > 0, (count + padding) % 4 != 0 { return nil }
            return decode(UnsafeBufferPointer(rebasing: input[start..<end]), table: lenientTable)
        }
    }

    /// The standard alphabet, padded to a multiple of 4, nothing else.
    package static func decodeStrict(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decodeStrict(utf8: $0) }
    }

    /// ``decodeStrict(_:)`` of text given as its UTF-8 bytes.
    package static func decodeStrict(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard input.count % 4 == 0 else { return nil }
        var end = input.count
        if end > 0, input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        if end > 0, input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        return decode(UnsafeBufferPointer(rebasing: input[0..<end]), table: strictTable)
    }

    /// Base64 or base64url with line breaks and spaces anywhere (as files wrap it).
    package static func decodeWrapped(_ text: String) -> [UInt8]? {
        decodeLenient(String(text.unicodeScalars.filter { !" \n\r\t".unicodeScalars.contains($0) }))
    }

    /// base64url (RFC 4648 §5): the URL-safe alphabet only; "=" is ignored wherever it is. Empty text is
    /// zero bytes.
    package static func decodeURL(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input in
            // The usual case, unpadded base64url: decoded where it is, in one pass.
            if input.isEmpty { return [] }
            if let bytes = decode(input, table: urlTable) { return bytes }
            var unpadded = [UInt8]()
            unpadded.reserveCapacity(input.count)
            for byte in input where byte != UInt8(ascii: "=") {
                guard isURLAlphabet(byte) else { return nil }
                unpadded.append(byte)
            }
            if unpadded.isEmpty { return [] }
            return unpadded.withUnsafeBufferPointer { decode($0, table: lenientTable) }
        }
    }

    /// Unpadded base64url (RFC 4648 §5) read where it is: the URL-safe alphabet only, no "=", no
    /// whitespace; empty input is zero bytes. Nil for anything else.
    package static func decodeURLUnpadded(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        input.isEmpty ? [] : decode(input, table: urlTable)
    }

    /// Whether the byte belongs to the base64url alphabet (RFC 4648 §5), padding excluded.
    @inlinable
    package static func isURLAlphabet(_ c: UInt8) -> Bool {
        (65...90).contains(c) || (97...122).contains(c) || (48...57).contains(c) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }

    /// Standard base64 with padding.
    package static func encode<S: Sequence<UInt8>>(_ bytes: S) -> String {
        encode(bytes, alphabet: standardAlphabet, pad: true)
    }

    /// base64url without padding (RFC 4648 §5).
    package static func encodeURL<S: Sequence<UInt8>>(_ bytes: S) -> String {
        encode(bytes, alphabet: urlAlphabet, pad: false)
    }

    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func encode<S: Sequence<UInt8>>(_ bytes: S, alphabet: [UInt8], pad: Bool) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let n = UInt32(input[index]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
            if pad { out += [UInt8(ascii: "="), UInt8(ascii: "=")] }
        } else if rest == 2 {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
            if pad { out.append(UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded sextets; nil for an empty input, a length of 1 modulo 4 or a byte outside the
    /// alphabet whose `table` is given (one of ``strictTable``, ``urlTable``, ``lenientTable``).
    ///
    /// Each group of four characters is one lookup per character in ``DecodeTable``'s shifted tables,
    /// ORed into the group's 24 bits: no shifting and masking of sextets per character (the signature
    /// and the data of a payment token, a JWE's ciphertext, are kilobytes).
    private static func decode(_ input: UnsafeBufferPointer<UInt8>, table: DecodeTable) -> [UInt8]? {
        let count = input.count
        guard count > 0, count % 4 != 1, let source = input.baseAddress else { return nil }
        let outputCount = count / 4 * 3 + max(0, count % 4 - 1)
        var invalid: UInt32 = 0
        let output = table.shifted.withUnsafeBufferPointer { shifted in
            [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
                guard let t = shifted.baseAddress, let out = buffer.baseAddress else {
                    initialized = 0
                    return
                }
                var i = 0
                var o = 0
                while i + 4 <= count {
                    let group =
                        t[Int(source[i])] | t[256 + Int(source[i + 1])] | t[512 + Int(source[i + 2])] | t[768 + Int(source[i + 3])]
                    invalid |= group
                    out[o] = UInt8(truncatingIfNeeded: group >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: group)
                    i += 4
                    o += 3
                }
                let rest = count - i
                if rest >= 2 {
                    var group = t[Int(source[i])] | t[256 + Int(source[i + 1])]
                    if rest == 3 { group |= t[512 + Int(source[i + 2])] }
                    invalid |= group
                    out[o] = UInt8(truncatingIfNeeded: group >> 16)
                    if rest == 3 { out[o + 1] = UInt8(truncatingIfNeeded: group >> 8) }
                }
                initialized = outputCount
            }
        }
        return invalid & DecodeTable.invalid == 0 ? output : nil
    }

    /// An alphabet's sextet values, shifted into place for each of a group's four characters:
    /// `shifted[k * 256 + c]` is the value of character `c` at position `k` (shifted left by
    /// 18, 12, 6 or 0 bits), or ``invalid`` for a byte outside the alphabet.
    struct DecodeTable: Sendable {
        /// Set (bit 24, above any group's 24 bits) for a byte outside the alphabet.
        static let invalid: UInt32 = 0x0100_0000
        let shifted: [UInt32]

        /// From sextet values (0x80 marks a byte outside the alphabet).
        init(sextets: [UInt8]) {
            var shifted = [UInt32](repeating: Self.invalid, count: 4 * 256)
            for character in 0..<256 where sextets[character] & 0x80 == 0 {
                for position in 0..<4 {
                    shifted[position * 256 + character] = UInt32(sextets[character]) << UInt32(18 - 6 * position)
                }
            }
            self.shifted = shifted
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The standard alphabet only (no "=").
    private static let strictTable = DecodeTable(sextets: strictSextets)
    /// The URL-safe alphabet only.
    private static let urlTable = DecodeTable(sextets: urlSextets)
    /// Both alphabets.
    private static let lenientTable = DecodeTable(sextets: lenientSextets)

    /// Sextet values of the standard alphabet; 0x80 marks every other byte (including "=").
    private static let strictSextets: [UInt8] = {
        var table = [UInt8](repeating: 0x80, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// Sextet values of the URL-safe alphabet only; 0x80 marks every other byte.
    private static let urlSextets: [UInt8] = {
        var table = [UInt8](repeating: 0x80, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// Sextet values of both alphabets.
    private static let lenientSextets: [UInt8] = {
        var table = strictSextets
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()
}
