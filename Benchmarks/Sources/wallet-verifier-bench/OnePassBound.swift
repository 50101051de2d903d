import Foundation
import Mdoc
import WalletCBOR

/// A lower bound, not a decoder: one pass over an mdoc DeviceResponse (and the MSO inside its
/// issuerAuth) that collects, as index ranges into the input, everything the verifier's checks read,
/// with no node, slice or per-item allocation. `mdoc-stages` times it next to the model and MSO
/// decodes, to show how much of their cost is the model's shape rather than the reading.
///
/// It checks what a decode must (definite lengths, bounds, depth, UTF-8 of every text string, each
/// expected key at most once) but not everything `CBORDecoder` does (duplicates among keys it does not
/// know, indefinite lengths, the generic fallback and its errors): it only reads well-formed input of
/// the shape this benchmark sends, and returns nil for anything else.
struct OnePassBound {
    struct Item {
        var nameSpace: Int
        var tagged: Range<Int>
        var digestID: UInt64
        var random: Range<Int>
        var identifier: String
        var value: Range<Int>
    }

    struct Digest {
        var nameSpace: Int
        var id: UInt64
        var digest: Range<Int>
    }

    var docType = ""
    var nameSpaces: [String] = []
    var items: [Item] = []
    var issuerProtected = 0..<0
    var x5chain = 0..<0
    var payload = 0..<0
    var issuerSignature = 0..<0
    var deviceNameSpaces = 0..<0
    var deviceProtected = 0..<0
    var deviceSignature = 0..<0
    var version = ""
    var digestAlgorithm = ""
    var msoDocType = ""
    var digests: [Digest] = []
    var deviceKeyX = 0..<0
    var deviceKeyY = 0..<0
    var validity: [Range<Int>] = []

    /// Reads `bytes`; nil unless it is a DeviceResponse of the expected shape.
    static func read(_ bytes: [UInt8]) -> OnePassBound? {
        bytes.withUnsafeBytes { raw in
            var reader = Reader(raw)
            var result = OnePassBound()
            guard reader.response(into: &result), reader.position == raw.count else { return nil }
            return result
        }
    }

    struct Reader {
        let p: UnsafeRawBufferPointer
        var position = 0
        var end: Int

        init(_ p: UnsafeRawBufferPointer) {
            self.p = p
            self.end = p.count
        }

        mutating func head() -> (major: UInt8, argument: UInt64)? {
            guard position < end else { return nil }
            let initial = p[position]
            position += 1
            let additional = initial & 0x1f
            var argument = UInt64(additional)
            if additional >= 24 {
                guard additional <= 27 else { return nil }
                let width = 1 << Int(additional - 24)
                guard end - position >= width else { return nil }
                argument = 0
                for _ in 0..<width {
                    argument = argument << 8 | UInt64(p[position])
                    position += 1
                }
            }
            return (initial >> 5, argument)
        }

        mutating func head(is major: UInt8, _ argument: UInt64) -> Bool {
            guard let h = head() else { return false }
            return h.major == major && h.argument == argument
        }

        mutating func string(_ major: UInt8) -> Range<Int>? {
            guard let h = head(), h.major == major, h.argument <= UInt64(end - position) else { return nil }
            let start = position
            position += Int(h.argument)
            if major == 3, !Self.validUTF8(p, start..<position) { return nil }
            return start..<position
        }

        /// (The codec's own validator is internal to WalletCBOR.)
        static func validUTF8(_ p: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
            var ascii = true
            for i in range where p[i] >= 0x80 {
                ascii = false
                break
            }
            if ascii { return true }
            return String(validating: UnsafeRawBufferPointer(rebasing: p[range]), as: UTF8.self) != nil
        }

        /// A text string, into `slot`.
        mutating func text(into slot: inout String) -> Bool {
            guard let range = string(3) else { return false }
            slot = text(range)
            return true
        }

        /// The text of valid UTF-8 bytes, made as the model makes its texts (ISO 18013-5's known texts
        /// from the table, others new).
        func text(_ range: Range<Int>) -> String {
            CBORKnownTexts.iso18013_5.text(utf8: UnsafeRawBufferPointer(rebasing: p[range]))
        }

        func equals(_ range: Range<Int>, _ literal: StaticString) -> Bool {
            guard range.count == literal.utf8CodeUnitCount else { return false }
            return memcmp(p.baseAddress! + range.lowerBound, literal.utf8Start, range.count) == 0
        }

        mutating func count(_ major: UInt8) -> Int? {
            guard let h = head(), h.major == major, h.argument <= UInt64(end - position) else { return nil }
            return Int(h.argument)
        }

        /// Skips one item of any kind, checking lengths and text.
        mutating func skip(depth: Int) -> Bool {
            guard depth < 16, let h = head() else { return false }
            switch h.major {
            case 0, 1: return true
            case 2, 3:
                guard h.argument <= UInt64(end - position) else { return false }
                let start = position
                position += Int(h.argument)
                return h.major == 2 || Self.validUTF8(p, start..<position)
            case 4:
                guard h.argument <= UInt64(end - position) else { return false }
                for _ in 0..<h.argument where !skip(depth: depth + 1) { return false }
                return true
            case 5:
                guard h.argument <= UInt64(end - position) / 2 else { return false }
                for _ in 0..<h.argument where !(skip(depth: depth + 1) && skip(depth: depth + 1)) { return false }
                return true
            case 6: return skip(depth: depth + 1)
            default: return h.argument <= 23 || h.argument >= 32
            }
        }

        /// A text-keyed map: `entry` reads each value (or skips it), given the key's range.
        mutating func map(_ entry: (inout Reader, Range<Int>) -> Bool) -> Bool {
            guard let n = count(5) else { return false }
            for _ in 0..<n {
                guard let key = string(3), entry(&self, key) else { return false }
            }
            return true
        }

        /// A tag-24 byte string: the whole item's range and a reader over its content.
        mutating func embedded() -> (tagged: Range<Int>, inner: Reader)? {
            let start = position
            guard let tag = head(), tag.major == 6, tag.argument == 24, let content = string(2) else { return nil }
            var inner = self
            inner.position = content.lowerBound
            inner.end = content.upperBound
            return (start..<position, inner)
        }

        mutating func response(into r: inout OnePassBound) -> Bool {
            map { reader, key in
                if reader.equals(key, "version") { return reader.string(3) != nil }
                if reader.equals(key, "status") { return reader.head()?.major == 0 }
                if reader.equals(key, "documents") {
                    guard reader.count(4) == 1 else { return false }
                    return reader.document(into: &r)
                }
                return reader.skip(depth: 1)
            }
        }

        mutating func document(into r: inout OnePassBound) -> Bool {
            map { reader, key in
                if reader.equals(key, "docType") { return reader.text(into: &r.docType) }
                if reader.equals(key, "issuerSigned") { return reader.issuerSigned(into: &r) }
                if reader.equals(key, "deviceSigned") { return reader.deviceSigned(into: &r) }
                return reader.skip(depth: 2)
            }
        }

        mutating func issuerSigned(into r: inout OnePassBound) -> Bool {
            map { reader, key in
                if reader.equals(key, "nameSpaces") {
                    return reader.map { reader, name in
                        let space = r.nameSpaces.count
                        r.nameSpaces.append(reader.text(name))
                        guard let n = reader.count(4) else { return false }
                        r.items.reserveCapacity(r.items.count + n)
                        for _ in 0..<n {
                            guard let (tagged, inner) = reader.embedded() else { return false }
                            var item = inner
                            guard let read = item.item(space: space, tagged: tagged), item.position == item.end else { return false }
                            r.items.append(read)
                        }
                        return true
                    }
                }
                if reader.equals(key, "issuerAuth") {
                    guard reader.count(4) == 4, let protected = reader.string(2), reader.count(5) == 1,
                        reader.head(is: 0, 33), let chain = reader.string(2), let payload = reader.string(2),
                        let signature = reader.string(2)
                    else { return false }
                    (r.issuerProtected, r.x5chain, r.payload, r.issuerSignature) = (protected, chain, payload, signature)
                    var mso = reader
                    mso.position = payload.lowerBound
                    mso.end = payload.upperBound
                    guard let (_, inner) = mso.embedded(), mso.position == mso.end else { return false }
                    var msoReader = inner
                    return msoReader.mso(into: &r) && msoReader.position == msoReader.end
                }
                return reader.skip(depth: 3)
            }
        }

        mutating func item(space: Int, tagged: Range<Int>) -> Item? {
            var item = Item(nameSpace: space, tagged: tagged, digestID: 0, random: 0..<0, identifier: "", value: 0..<0)
            var seen: UInt8 = 0
            let read = map { reader, key in
                if reader.equals(key, "digestID") {
                    guard seen & 1 == 0, let h = reader.head(), h.major == 0 else { return false }
                    seen |= 1
                    item.digestID = h.argument
                    return true
                }
                if reader.equals(key, "random") {
                    guard seen & 2 == 0, let random = reader.string(2) else { return false }
                    seen |= 2
                    item.random = random
                    return true
                }
                if reader.equals(key, "elementIdentifier") {
                    guard seen & 4 == 0, let identifier = reader.string(3) else { return false }
                    seen |= 4
                    item.identifier = reader.text(identifier)
                    return true
                }
                if reader.equals(key, "elementValue") {
                    let start = reader.position
                    guard seen & 8 == 0, reader.skip(depth: 9) else { return false }
                    seen |= 8
                    item.value = start..<reader.position
                    return true
                }
                return reader.skip(depth: 9)
            }
            return read && seen == 15 ? item : nil
        }

        mutating func deviceSigned(into r: inout OnePassBound) -> Bool {
            map { reader, key in
                if reader.equals(key, "nameSpaces") {
                    guard let (tagged, _) = reader.embedded() else { return false }
                    r.deviceNameSpaces = tagged
                    return true
                }
                if reader.equals(key, "deviceAuth") {
                    return reader.map { reader, key in
                        guard reader.equals(key, "deviceSignature"), reader.count(4) == 4, let protected = reader.string(2),
                            reader.count(5) == 0, reader.head(is: 7, 22), let signature = reader.string(2)
                        else { return false }
                        (r.deviceProtected, r.deviceSignature) = (protected, signature)
                        return true
                    }
                }
                return reader.skip(depth: 3)
            }
        }

        mutating func mso(into r: inout OnePassBound) -> Bool {
            map { reader, key in
                if reader.equals(key, "version") { return reader.text(into: &r.version) }
                if reader.equals(key, "digestAlgorithm") { return reader.text(into: &r.digestAlgorithm) }
                if reader.equals(key, "docType") { return reader.text(into: &r.msoDocType) }
                if reader.equals(key, "valueDigests") {
                    return reader.map { reader, name in
                        let space = r.nameSpaces.firstIndex { $0.utf8.elementsEqual(UnsafeRawBufferPointer(rebasing: reader.p[name])) } ?? -1
                        guard let n = reader.count(5) else { return false }
                        r.digests.reserveCapacity(r.digests.count + n)
                        for _ in 0..<n {
                            guard let id = reader.head(), id.major == 0, let digest = reader.string(2) else { return false }
                            r.digests.append(Digest(nameSpace: space, id: id.argument, digest: digest))
                        }
                        return true
                    }
                }
                if reader.equals(key, "deviceKeyInfo") {
                    return reader.map { reader, key in
                        guard reader.equals(key, "deviceKey"), let n = reader.count(5) else { return reader.skip(depth: 4) }
                        for _ in 0..<n {
                            guard let label = reader.head() else { return false }
                            if label.major == 1, label.argument == 1 {
                                guard let x = reader.string(2) else { return false }
                                r.deviceKeyX = x
                            } else if label.major == 1, label.argument == 2 {
                                guard let y = reader.string(2) else { return false }
                                r.deviceKeyY = y
                            } else if !reader.skip(depth: 5) {
                                return false
                            }
                        }
                        return true
                    }
                }
                if reader.equals(key, "validityInfo") {
                    r.validity.reserveCapacity(3)
                    return reader.map { reader, _ in
                        guard let tag = reader.head(), tag.major == 6, tag.argument == 0, let date = reader.string(3) else { return false }
                        r.validity.append(date)
                        return true
                    }
                }
                return reader.skip(depth: 3)
            }
        }
    }
}
