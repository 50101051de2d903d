/// Comparisons of map keys with field names written in the source, without building a `String`
/// for the name (the in-place readers compare every key of every item).
public enum TextKeys {
    /// True when the key's UTF-8 bytes, as received, are exactly `name`'s.
    @inline(__always)
    public static func equal(_ key: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard key.count == count else { return false }
        for i in 0..<count where key[i] != name.utf8Start[i] { return false }
        return true
    }

    /// True when the key's UTF-8 form is exactly `name`'s.
    public static func equal(_ key: String, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard key.utf8.count == count else { return false }
        return key.utf8.withContiguousStorageIfAvailable { bytes in
            equal(UnsafeRawBufferPointer(bytes), name)
        } ?? key.utf8.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: count))
    }
}
