/// The MSO's `valueDigests` as the verifier reads them: per namespace, each digestID with where its
/// digest is in ``bytes``, sorted by digestID. One table per MSO instead of a dictionary per namespace
/// and a slice per digest: a lookup is a binary search, and reading a digest counts no reference.
public struct MSOValueDigests: Sendable {
    /// Namespace identifiers in received order.
    public let nameSpaces: [String]
    /// For each namespace, the part of ``entries`` that holds its digests.
    let spans: [Range<Int>]
    /// The digests, namespace by namespace, each namespace's sorted by digestID.
    let entries: [(id: UInt64, range: Range<Int>)]
    /// The bytes the digests' ranges index: the received MSO itself, or a copy of the digests for an
    /// MSO decoded the generic way.
    public let bytes: ArraySlice<UInt8>

    /// A table of these namespaces and their digests (each namespace's in any order; its digestIDs unique).
    init(_ spaces: [(name: String, digests: [(id: UInt64, range: Range<Int>)])], bytes: ArraySlice<UInt8>) {
        var spans: [Range<Int>] = []
        var entries: [(id: UInt64, range: Range<Int>)] = []
        spans.reserveCapacity(spaces.count)
        entries.reserveCapacity(spaces.reduce(0) { $0 + $1.digests.count })
        for space in spaces {
            let start = entries.count
            entries.append(contentsOf: space.digests)
            spans.append(start..<entries.count)
        }
        self.init(nameSpaces: spaces.map(\.name), spans: spans, entries: entries, bytes: bytes)
    }

    /// A table already laid out: `spans[i]` is the part of `entries` that holds the digests of
    /// `nameSpaces[i]`, each part in any order (sorted here), its digestIDs unique. The in-place MSO
    /// reader appends its digests straight into one array, with no array per namespace.
    init(nameSpaces: [String], spans: [Range<Int>], entries: [(id: UInt64, range: Range<Int>)], bytes: ArraySlice<UInt8>) {
        var entries = entries
        for span in spans {
            // Issuers usually list digestIDs in order; otherwise sorted in place (no copy of the part).
            if !entries[span].indices.dropFirst().allSatisfy({ entries[$0 - 1].id < entries[$0].id }) {
                entries.withUnsafeMutableBufferPointer { all in
                    var part = UnsafeMutableBufferPointer(rebasing: all[span])
                    part.sort { $0.id < $1.id }
                }
            }
        }
        self.nameSpaces = nameSpaces
        self.spans = spans
        self.entries = entries
        self.bytes = bytes
    }

    /// The table of digests decoded the generic way: copied into one buffer (they may come from
    /// different buffers).
    init(_ dictionary: [(name: String, digests: [(id: UInt64, digest: ArraySlice<UInt8>)])]) {
        var buffer: [UInt8] = []
        let spaces = dictionary.map { space in
            (
                name: space.name,
                digests: space.digests.map { entry in
                    let start = buffer.count
                    buffer.append(contentsOf: entry.digest)
                    return (id: entry.id, range: start..<buffer.count)
                }
            )
        }
        self.init(spaces, bytes: buffer[...])
    }

    /// The index of a namespace in ``nameSpaces``; nil when the MSO has no digests for it.
    public func nameSpaceIndex(_ name: String) -> Int? { nameSpaces.firstIndex(of: name) }

    /// Where the digest of `id` in the namespace at `nameSpace` is in ``bytes``; nil when there is none.
    public func digestRange(nameSpace: Int, id: UInt64) -> Range<Int>? {
        var low = spans[nameSpace].lowerBound
        var high = spans[nameSpace].upperBound
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < spans[nameSpace].upperBound && entries[low].id == id ? entries[low].range : nil
    }

    /// namespace → digestID → digest, as the model's `valueDigests` gives them.
    func dictionary() -> [String: [UInt64: ArraySlice<UInt8>]] {
        var result: [String: [UInt64: ArraySlice<UInt8>]] = [:]
        for (index, name) in nameSpaces.enumerated() {
            var digests: [UInt64: ArraySlice<UInt8>] = [:]
            for entry in entries[spans[index]] { digests[entry.id] = bytes[entry.range] }
            result[name] = digests
        }
        return result
    }
}
