// Duplicate map keys: the data model compares deterministic encodings (RFC 8949 §5.6).

/// Duplicate-key detection for one map being decoded.
///
/// Two keys are equal in the data model exactly when their deterministic encodings are. Keys already
/// in preferred form (definite-length strings and integers, the usual case) are compared by their
/// received bytes, read in place, without re-encoding. Once a key that is not in preferred form
/// appears, the map switches to canonical encodings (re-encoding such keys). Large maps (more than
/// 16 keys) use a set, so duplicate detection stays linear.
struct MapKeyTracker {
    /// While every key is in preferred form and the map is small, earlier keys are read from
    /// `entries` (their received bytes are canonical) and nothing is stored here.
    var rangeSet: Set<InputKeyBytes>?
    /// After a key not in preferred form: the canonical encodings of all keys so far.
    var canonicalKeys: [ArraySlice<UInt8>]?
    var keySet: Set<CanonicalKeyBytes>?

    /// Throws ``CBORError/Code/duplicateMapKey`` if `key` (encoded at `range` of the input) equals an
    /// earlier key of the map, whose entries so far are `entries`.
    mutating func add(_ key: CBORNode, at range: Range<Int>, entries: [CBORMap.Entry], in parser: Parser) throws(CBORError) {
        let preferred = parser.hasPreferredScalarEncoding(at: range.lowerBound)
        let duplicate: Bool
        if canonicalKeys == nil && keySet == nil && preferred {
            if rangeSet != nil {
                duplicate = !rangeSet!.insert(InputKeyBytes(bytes: parser.inputBytes(range))).inserted
            } else {
                duplicate = entries.withUnsafeBufferPointer { earlier in
                    for i in 0..<earlier.count where parser.inputBytesEqual(earlier[i].key.encodedBytes.indices, range) { return true }
                    return false
                }
                if entries.count + 1 > 16 {
                    var set = Set(entries.map { InputKeyBytes(bytes: parser.inputBytes($0.key.encodedBytes.indices)) })
                    set.insert(InputKeyBytes(bytes: parser.inputBytes(range)))
                    rangeSet = set
                }
            }
        } else {
            if canonicalKeys == nil && keySet == nil {
                // Every earlier key was in preferred form: its received bytes are canonical.
                let earlier = entries.map(\.key.encodedBytes)
                if rangeSet != nil { keySet = Set(earlier.map { CanonicalKeyBytes(bytes: $0) }) } else { canonicalKeys = earlier }
                rangeSet = nil
            }
            let canonical = preferred ? key.encodedBytes : key.deterministicallyReencoded().encodedBytes
            if keySet != nil {
                duplicate = !keySet!.insert(CanonicalKeyBytes(bytes: canonical)).inserted
            } else {
                duplicate = canonicalKeys!.contains { bytesEqual($0, canonical) }
                canonicalKeys!.append(canonical)
                if canonicalKeys!.count > 16 {
                    keySet = Set(canonicalKeys!.map { CanonicalKeyBytes(bytes: $0) })
                    canonicalKeys = nil
                }
            }
        }
        guard !duplicate else {
            throw CBORError(code: .duplicateMapKey, message: "map key appears twice", offset: key.offset)
        }
    }
}

/// Key bytes read in place from the input being parsed (valid only during the parse).
struct InputKeyBytes: Hashable {
    let bytes: UnsafeRawBufferPointer

    static func == (lhs: InputKeyBytes, rhs: InputKeyBytes) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        for i in 0..<lhs.bytes.count where lhs.bytes[i] != rhs.bytes[i] { return false }
        return true
    }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes: bytes) }
}

/// Encoded key bytes hashed as a block (the generic `ArraySlice` hashing feeds the hasher one byte
/// at a time).
struct CanonicalKeyBytes: Hashable {
    let bytes: ArraySlice<UInt8>

    static func == (lhs: CanonicalKeyBytes, rhs: CanonicalKeyBytes) -> Bool { bytesEqual(lhs.bytes, rhs.bytes) }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Byte-wise equality of two slices.
@inline(__always)
func bytesEqual(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.withUnsafeBufferPointer { a in
        rhs.withUnsafeBufferPointer { b in
            for i in 0..<a.count where a[i] != b[i] { return false }
            return true
        }
    }
}
