import WalletEncoding
import WalletJSON

extension ApplePayToken {
    /// Reads the usual token in place, without a JSON tree or a `String` per field: a `paymentData`
    /// object of exactly `version`, `data`, `signature` and `header` (any order), the header holding
    /// only `ephemeralPublicKey` or `wrappedKey`, `publicKeyHash`, `transactionId` and optionally
    /// `applicationData`, every value a string of printable ASCII whose only escape is `\/` (which
    /// serializers write into every base64 field), JSON whitespace between the parts.
    ///
    /// Nil for anything else (another member, a duplicate, another escape, non-ASCII, a number or
    /// null, a PKPaymentToken around it) and for any value ``init(json:parsed:)`` refuses: that
    /// reading then decides, with its precise error. It never accepts a token that reading rejects,
    /// and for one both accept the tokens are equal (`ApplePayTokenInPlaceTests` compares them).
    static func readUsual(_ bytes: [UInt8]) -> ApplePayToken? {
        bytes.withUnsafeBufferPointer { input in
            var reader = UsualTokenReader(input: input)
            return reader.token()
        }
    }
}

/// The reader behind ``ApplePayToken/readUsual(_:)``.
private struct UsualTokenReader {
    let input: UnsafeBufferPointer<UInt8>
    var offset = 0

    /// A string's content as its range in the input, and whether it holds a `\/`.
    struct Text {
        let range: Range<Int>
        let escaped: Bool
    }

    mutating func token() -> ApplePayToken? {
        var version: Text?, data: Text?, signature: Text?
        var ephemeralPublicKey: Text?, wrappedKey: Text?, publicKeyHash: Text?, transactionId: Text?, applicationData: Text?
        var sawHeader = false
        let read = object { name, reader in
            switch name {
            case "version": return reader.stringOnce(&version)
            case "data": return reader.stringOnce(&data)
            case "signature": return reader.stringOnce(&signature)
            case "header":
                guard !sawHeader else { return false }
                sawHeader = true
                return reader.object { name, reader in
                    switch name {
                    case "ephemeralPublicKey": return reader.stringOnce(&ephemeralPublicKey)
                    case "wrappedKey": return reader.stringOnce(&wrappedKey)
                    case "publicKeyHash": return reader.stringOnce(&publicKeyHash)
                    case "transactionId": return reader.stringOnce(&transactionId)
                    case "applicationData": return reader.stringOnce(&applicationData)
                    default: return false
                    }
                }
            default: return false
            }
        }
        skipWhitespace()
        guard read, offset == input.count, let version, let data, let signature, let publicKeyHash, let transactionId else { return nil }

        guard let tokenVersion = ApplePayTokenVersion(rawValue: string(version)) else { return nil }
        switch tokenVersion {
        case .ecV1: guard ephemeralPublicKey != nil, wrappedKey == nil else { return nil }
        case .rsaV1: guard wrappedKey != nil, ephemeralPublicKey == nil else { return nil }
        }
        guard let dataBytes = base64(data), dataBytes.count >= 16, let signatureBytes = base64(signature) else { return nil }
        var ephemeralKeyBytes: [UInt8]?
        var wrappedKeyBytes: [UInt8]?
        if let ephemeralPublicKey {
            guard let decoded = base64(ephemeralPublicKey) else { return nil }
            ephemeralKeyBytes = decoded
        }
        if let wrappedKey {
            guard let decoded = base64(wrappedKey) else { return nil }
            wrappedKeyBytes = decoded
        }
        let hashText = string(publicKeyHash)
        guard base64(publicKeyHash)?.count == 32 else { return nil }
        let transactionIdText = string(transactionId)
        guard let transactionIdBytes = Hex.decodeStrict(transactionIdText), !transactionIdBytes.isEmpty else { return nil }
        var applicationDataText: String?
        var applicationDataBytes: [UInt8]?
        if let applicationData {
            let text = string(applicationData)
            guard let decoded = Hex.decodeStrict(text) else { return nil }
            applicationDataText = text
            applicationDataBytes = decoded
        }
        return ApplePayToken(
            version: tokenVersion, data: dataBytes, signature: signatureBytes,
            header: ApplePayToken.Header(
                ephemeralPublicKey: ephemeralKeyBytes, wrappedKey: wrappedKeyBytes, publicKeyHash: hashText, transactionId: transactionIdText,
                transactionIdBytes: transactionIdBytes, applicationData: applicationDataText, applicationDataBytes: applicationDataBytes),
            outerTransactionIdentifier: nil, paymentMethod: nil)
    }

    // MARK: - Values

    /// The text's content with each `\/` read as `/`.
    func withContent<R>(_ text: Text, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let raw = UnsafeBufferPointer(rebasing: input[text.range])
        guard text.escaped, let source = raw.baseAddress else { return body(raw) }
        // Runs between escapes copied whole; the reader let a backslash through only before "/", and
        // nothing else that stops the scan.
        let unescaped = [UInt8](unsafeUninitializedCapacity: raw.count) { out, count in
            var from = 0
            count = 0
            while from < raw.count {
                let stop = StrictJSON.nextSpecialByte(in: raw, from: from)
                (out.baseAddress! + count).initialize(from: source + from, count: stop - from)
                count += stop - from
                guard stop < raw.count else { break }
                out[count] = UInt8(ascii: "/")
                count += 1
                from = stop + 2
            }
        }
        return unescaped.withUnsafeBufferPointer(body)
    }

    func string(_ text: Text) -> String { withContent(text) { String(decoding: $0, as: UTF8.self) } }

    func base64(_ text: Text) -> [UInt8]? { withContent(text) { Base64.decodeStrict(utf8: $0) } }

    // MARK: - Syntax

    mutating func skipWhitespace() {
        while offset < input.count {
            switch input[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (after whitespace) if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard offset < input.count, input[offset] == byte else { return false }
        offset += 1
        return true
    }

    /// A string value stored into `slot`, which must be empty (a member named twice is refused).
    mutating func stringOnce(_ slot: inout Text?) -> Bool {
        guard slot == nil, let text = string() else { return false }
        slot = text
        return true
    }

    /// A string of ASCII (0x20–0x7F) without escapes other than `\/`, scanned like the strict
    /// parser's strings (several bytes at a time up to the next quote, backslash or other byte).
    mutating func string() -> Text? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = offset
        var escaped = false
        while true {
            offset = StrictJSON.nextSpecialByte(in: input, from: offset)
            guard offset < input.count else { return nil }
            switch input[offset] {
            case UInt8(ascii: "\""):
                offset += 1
                return Text(range: start..<(offset - 1), escaped: escaped)
            case UInt8(ascii: "\\"):
                guard offset + 1 < input.count, input[offset + 1] == UInt8(ascii: "/") else { return nil }
                escaped = true
                offset += 2
            default:
                // A control character or a byte of 0x80 and above.
                return nil
            }
        }
    }

    /// An object whose member names are plain ASCII; `member` reads each value and returns false to
    /// give up (an unknown or repeated name). An empty object is refused.
    mutating func object(_ member: (String, inout UsualTokenReader) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        repeat {
            guard let name = string(), !name.escaped, consume(UInt8(ascii: ":")) else { return false }
            let text = String(decoding: UnsafeBufferPointer(rebasing: input[name.range]), as: UTF8.self)
            guard member(text, &self) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }
}
