/// Finds the boundaries of BER elements (tag, length, content) without building a node tree, so
/// the SignedData's outer layers can be walked without parsing the certificates inside them on
/// every token (swift-asn1's `BER.parse` builds a node for every element, certificates included).
/// The small parts (signer infos, algorithm identifiers) are then read with `BER.parse`.
///
/// Definite and indefinite lengths; every index is bounds-checked and nesting is limited, so
/// hostile input ends in a ``CMSParseError``.
struct BERScanner {
    struct Element {
        /// The first identifier octet (class, constructed bit, low tag number).
        var tag: UInt8
        /// The whole element: identifier, length, content and, for indefinite lengths, the
        /// end-of-contents octets.
        var range: Range<Int>
        /// The content octets (without end-of-contents octets).
        var content: Range<Int>
        var isConstructed: Bool { tag & 0x20 != 0 }
    }

    static let maximumDepth = 24

    let bytes: [UInt8]

    /// The one element that spans all of `bytes`.
    func root() throws(CMSParseError) -> Element {
        let element = try element(at: 0, depth: 0)
        guard element.range.upperBound == bytes.count else {
            throw CMSParseError(.malformedCMS, "the signature has \(bytes.count - element.range.upperBound) bytes after the SignedData")
        }
        return element
    }

    /// The elements directly inside a constructed element.
    func children(of parent: Element, depth: Int = 1) throws(CMSParseError) -> [Element] {
        guard parent.isConstructed else { throw CMSParseError(.malformedCMS, "a primitive element where a constructed one is expected") }
        var result: [Element] = []
        // The SignedData's layers hold a handful of elements: one allocation instead of regrowing.
        result.reserveCapacity(6)
        var offset = parent.content.lowerBound
        while offset < parent.content.upperBound {
            let child = try element(at: offset, depth: depth)
            guard child.range.upperBound <= parent.content.upperBound else {
                throw CMSParseError(.malformedCMS, "an element runs past the end of its parent")
            }
            result.append(child)
            offset = child.range.upperBound
        }
        return result
    }

    func slice(_ element: Element) -> ArraySlice<UInt8> {
        bytes[element.range]
    }

    func element(at start: Int, depth: Int) throws(CMSParseError) -> Element {
        guard depth <= Self.maximumDepth else { throw CMSParseError(.malformedCMS, "the signature nests too deeply") }
        var offset = start
        guard offset < bytes.count else { throw CMSParseError(.malformedCMS, "the signature is truncated") }
        let tag = bytes[offset]
        offset += 1
        if tag & 0x1F == 0x1F {
            // High tag number: skip its base-128 octets (at most 4).
            var count = 0
            repeat {
                guard offset < bytes.count, count < 4 else { throw CMSParseError(.malformedCMS, "the signature has an invalid tag") }
                count += 1
                offset += 1
            } while bytes[offset - 1] & 0x80 != 0
        }
        guard offset < bytes.count else { throw CMSParseError(.malformedCMS, "the signature is truncated") }
        let first = bytes[offset]
        offset += 1
        if first == 0x80 {
            // Indefinite length: constructed only; children until 00 00.
            guard tag & 0x20 != 0 else { throw CMSParseError(.malformedCMS, "an indefinite length on a primitive element") }
            let contentStart = offset
            while true {
                guard offset + 1 < bytes.count else { throw CMSParseError(.malformedCMS, "the signature is truncated (no end-of-contents)") }
                if bytes[offset] == 0, bytes[offset + 1] == 0 {
                    return Element(tag: tag, range: start..<(offset + 2), content: contentStart..<offset)
                }
                offset = try element(at: offset, depth: depth + 1).range.upperBound
            }
        }
        var length = 0
        if first & 0x80 == 0 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count <= 4, offset + count <= bytes.count else { throw CMSParseError(.malformedCMS, "the signature has an invalid length") }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[offset])
                offset += 1
            }
        }
        guard length <= bytes.count - offset else { throw CMSParseError(.malformedCMS, "the signature is truncated") }
        return Element(tag: tag, range: start..<(offset + length), content: offset..<(offset + length))
    }
}
