/// Typed access to a node's content. Each throwing accessor reports a ``CBORError`` with code
/// ``CBORError/Code/typeMismatch`` (naming what was expected and what was found, and the offset)
/// when the node is of another kind.
extension CBORNode {
    func mismatch(_ expected: String, _ context: String?) -> CBORError {
        let prefix = context.map { "\($0): " } ?? ""
        return CBORError(code: .typeMismatch, message: "\(prefix)expected \(expected), found \(value.kindDescription)", offset: offset)
    }

    /// The value of an integer item that fits in `Int64`.
    public var integerValue: Int64? {
        switch value {
        case .unsignedInt(let v): return v <= UInt64(Int64.max) ? Int64(v) : nil
        case .negativeInt(let v): return v <= UInt64(Int64.max) ? -1 - Int64(v) : nil
        default: return nil
        }
    }

    /// The string, if this is a text string.
    public var textValue: String? {
        if case .textString(let t) = value { return t }
        return nil
    }

    /// The content, if this is a byte string.
    public var bytesValue: ArraySlice<UInt8>? {
        if case .byteString(let b) = value { return b }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [CBORNode]? {
        if case .array(let a) = value { return a }
        return nil
    }

    /// The entries, if this is a map.
    public var mapValue: CBORMap? {
        if case .map(let m) = value { return m }
        return nil
    }

    /// Whether this is the simple value null (undefined is not null).
    public var isNull: Bool {
        if case .null = value { return true }
        return false
    }

    /// The string of a text-string item; `context`, evaluated only on failure, prefixes the error message.
    public func text(_ context: @autoclosure () -> String? = nil) throws(CBORError) -> String {
        guard let t = textValue else { throw mismatch("a text string", context()) }
        return t
    }

    /// The content of a byte-string item; `context`, evaluated only on failure, prefixes the error message.
    public func bytes(_ context: @autoclosure () -> String? = nil) throws(CBORError) -> ArraySlice<UInt8> {
        guard let b = bytesValue else { throw mismatch("a byte string", context()) }
        return b
    }

    /// The elements of an array item; `context`, evaluated only on failure, prefixes the error message.
    public func array(_ context: @autoclosure () -> String? = nil) throws(CBORError) -> [CBORNode] {
        guard let a = arrayValue else { throw mismatch("an array", context()) }
        return a
    }

    /// The entries of a map item; `context`, evaluated only on failure, prefixes the error message.
    public func map(_ context: @autoclosure () -> String? = nil) throws(CBORError) -> CBORMap {
        guard let m = mapValue else { throw mismatch("a map", context()) }
        return m
    }

    /// The value of an integer item (major type 0 or 1).
    /// Throws ``CBORError/Code/typeMismatch`` for another kind, ``CBORError/Code/invalidValue`` when it does not fit in `Int64`.
    public func int(_ context: @autoclosure () -> String? = nil) throws(CBORError) -> Int64 {
        switch value {
        case .unsignedInt, .negativeInt:
            guard let v = integerValue else {
                throw CBORError(code: .invalidValue, message: "\(context().map { "\($0): " } ?? "")integer out of range", offset: offset)
            }
            return v
        default:
            throw mismatch("an integer", context())
        }
    }

    /// The value of an unsigned integer item (major type 0); a negative integer is a type mismatch.
    public func uint(_ context: @autoclosure () -> String? = nil) throws(CBORError) -> UInt64 {
        guard case .unsignedInt(let v) = value else { throw mismatch("an unsigned integer", context()) }
        return v
    }

    /// The value of a `true` or `false` item.
    public func bool(_ context: @autoclosure () -> String? = nil) throws(CBORError) -> Bool {
        guard case .boolean(let v) = value else { throw mismatch("a boolean", context()) }
        return v
    }

    /// The content of a tag with the given number.
    public func tagged(_ tag: UInt64, _ context: @autoclosure () -> String? = nil) throws(CBORError) -> CBORNode {
        guard case .tagged(let t, let content) = value, t == tag else { throw mismatch("tag \(tag)", context()) }
        return content
    }
}

extension CBORMap {
    /// The value under a text key, or a ``CBORError/Code/missingField`` error naming the key.
    public func required(_ key: String, in context: @autoclosure () -> String? = nil) throws(CBORError) -> CBORNode {
        guard let node = self[key] else {
            let where_ = context().map { " in \($0)" } ?? ""
            throw CBORError(code: .missingField, message: "missing \"\(key)\"\(where_)", offset: nil)
        }
        return node
    }

    /// The value under an integer key, or a ``CBORError/Code/missingField`` error naming the key.
    public func required(_ key: Int64, in context: @autoclosure () -> String? = nil) throws(CBORError) -> CBORNode {
        guard let node = self[key] else {
            let where_ = context().map { " in \($0)" } ?? ""
            throw CBORError(code: .missingField, message: "missing key \(key)\(where_)", offset: nil)
        }
        return node
    }
}

/// A type that can be decoded from a ``CBORNode``.
public protocol CBORDecodable: Sendable {
    /// Decodes the value from an item; throws ``CBORError`` when the item does not have the expected shape.
    init(cbor node: CBORNode) throws(CBORError)

    /// Decodes the value from the encoding of one item (for example the content of a tag-24 byte
    /// string; the slice shares the received buffer). The default decodes a node with `limits` and
    /// calls ``init(cbor:)``. A type may read the bytes directly instead, but must accept and reject
    /// exactly the inputs the default does, with the same errors.
    init(embeddedCBOR bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits) throws(CBORError)
}

extension CBORDecodable {
    /// Decodes one item from `bytes` with `limits`, then the value with ``init(cbor:)``.
    public init(embeddedCBOR bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits) throws(CBORError) {
        try self.init(cbor: CBORDecoder(limits: limits).decode(bytes))
    }
}

/// A type that can be represented as a ``CBORNode`` (encoded deterministically).
public protocol CBOREncodable: Sendable {
    /// The node that represents the value; its ``CBORNode/encodedBytes`` are the value's encoding.
    func cborNode() throws(CBORError) -> CBORNode
}

extension CBORNode: CBORDecodable, CBOREncodable {
    /// The node itself: a node decodes as itself.
    public init(cbor node: CBORNode) { self = node }
    /// The node itself, with its bytes unchanged.
    public func cborNode() -> CBORNode { self }
}

extension CBORDecodable {
    /// Decodes one item from bytes and then the typed value.
    public init(cborBytes bytes: [UInt8], limits: CBORDecoder.Limits = .default) throws(CBORError) {
        try self.init(cbor: CBORDecoder(limits: limits).decode(bytes))
    }

    /// Decodes one item from a slice and then the typed value; offsets in errors are indices of the slice's base buffer.
    public init(cborBytes bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits = .default) throws(CBORError) {
        try self.init(cbor: CBORDecoder(limits: limits).decode(bytes))
    }
}
