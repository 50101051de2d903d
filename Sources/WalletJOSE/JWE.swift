import Crypto
import WalletJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The content encryption algorithms accepted (RFC 7518 §5.3).
public enum JWEContentEncryption: String, Sendable, Hashable, CaseIterable {
    /// AES-GCM with a 128-bit key.
    case a128gcm = "A128GCM"
    /// AES-GCM with a 256-bit key.
    case a256gcm = "A256GCM"

    /// The key length in bits (the Concat KDF's SuppPubInfo).
    public var keyBitCount: Int { self == .a128gcm ? 128 : 256 }

    /// The accepted values, for messages: `A128GCM, A256GCM`.
    public static var supportedList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// A JWE in compact serialization (RFC 7516 §7.1) with `alg` `ECDH-ES` (direct key agreement,
/// RFC 7518 §4.6) on P-256 and `enc` `A128GCM` or `A256GCM`. Anything else is refused when read:
/// another `alg` or `enc`, `zip`, `crit`, a non-empty encrypted key, a part count other than 5,
/// text that is not unpadded base64url, an `epk` that is not a P-256 point, duplicate header
/// members, input over ``maximumCompactLength``.
public struct JWE: Sendable {
    /// The largest compact JWE read, in bytes (a DeviceResponse with portraits fits many times over).
    public static let maximumCompactLength = 8 << 20

    /// The protected header as received (base64url text): the AEAD's additional authenticated data.
    public let protectedHeaderText: String
    /// The protected header, parsed strictly.
    public let header: StrictJSON.Object
    /// `enc`.
    public let encryption: JWEContentEncryption
    /// `kid`, if present.
    public let keyID: String?
    /// `epk`: the sender's ephemeral public key.
    public let ephemeralKey: P256.KeyAgreement.PublicKey
    /// `apu` (decoded), empty when absent.
    public let agreementPartyUInfo: [UInt8]
    /// `apv` (decoded), empty when absent.
    public let agreementPartyVInfo: [UInt8]
    /// The 96-bit initialization vector.
    public let iv: [UInt8]
    /// The ciphertext.
    public let ciphertext: [UInt8]
    /// The 128-bit authentication tag.
    public let tag: [UInt8]

    /// The dot-separated parts of a compact serialization (at most 6: a sixth means "more than 5"),
    /// split on the UTF-8 bytes: splitting the `String` would walk it by grapheme, which costs more
    /// than decrypting a response of a few kilobytes.
    static func compactParts(_ compact: String) -> [Substring] {
        var text = compact
        let parts = text.withUTF8 { partRanges(of: $0) }
        let utf8 = compact.utf8
        return parts.map { range in
            Substring(utf8[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)])
        }
    }

    /// The byte ranges of the dot-separated parts of `bytes` (at most 6: a sixth is everything after
    /// the fifth dot). The dots are found with `memchr`, which reads the bytes a vector at a time (a
    /// response is a few kilobytes, and the dots are near its start and end).
    static func partRanges(of bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        parts.reserveCapacity(6)
        var start = 0
        if let base = bytes.baseAddress {
            while parts.count < 5, start < bytes.count, let dot = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start) {
                let offset = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(dot))
                parts.append(start..<offset)
                start = offset + 1
            }
        }
        parts.append(start..<bytes.count)
        return parts
    }

    /// Reads a compact JWE; throws ``JOSEError`` naming the first problem.
    public init(compact: String) throws(JOSEError) {
        guard compact.utf8.count <= Self.maximumCompactLength else {
            throw JOSEError(.malformedCompact, "The JWE is larger than \(Self.maximumCompactLength) bytes.")
        }
        // The parts are read where the text is: no substring, no copy before decoding.
        var text = compact
        let parts = text.withUTF8 { Self.partRanges(of: $0) }
        guard parts.count == 5 else {
            throw JOSEError(
                .malformedCompact,
                "A compact JWE has 5 dot-separated parts (header.encryptedKey.iv.ciphertext.tag); this one has \(parts.count > 5 ? "more than 5" : String(parts.count))."
            )
        }
        func decode(_ index: Int, _ part: @autoclosure () -> String) throws(JOSEError) -> [UInt8] {
            let range = parts[index]
            let decoded: Result<[UInt8], JOSEError> = text.withUTF8 { utf8 in
                do throws(JOSEError) {
                    return .success(try Base64URLStrict.decode(UnsafeBufferPointer(rebasing: utf8[range]), part: part()))
                } catch {
                    return .failure(error)
                }
            }
            return try decoded.get()
        }
        let headerBytes = try decode(0, "JWE protected header")
        let header = try JOSEHeader.parse(headerBytes, what: "JWE protected header")
        guard let alg = header["alg"]?.string else { throw JOSEError(.malformedHeader, "The JWE protected header has no alg string.") }
        guard alg == "ECDH-ES" else {
            throw JOSEError(
                .unsupportedAlgorithm,
                "The JWE alg is \"\(JOSEHeader.printable(alg))\"; only ECDH-ES (direct key agreement, RFC 7518 §4.6) is accepted.")
        }
        guard let encText = header["enc"]?.string else { throw JOSEError(.malformedHeader, "The JWE protected header has no enc string.") }
        guard let encryption = JWEContentEncryption(rawValue: encText) else {
            throw JOSEError(
                .unsupportedEncryption,
                "The JWE enc is \"\(JOSEHeader.printable(encText))\"; the supported values are \(JWEContentEncryption.supportedList).")
        }
        guard header["zip"] == nil else {
            throw JOSEError(.unsupportedHeader, "The JWE protected header has zip; compressed plaintext is refused, encrypt it uncompressed.")
        }
        var keyID: String?
        if let kid = header["kid"] {
            guard let text = kid.string else { throw JOSEError(.malformedHeader, "The JWE kid is \(kid.typeName), not a string.") }
            keyID = text
        }
        guard let epkObject = header["epk"]?.object else {
            throw JOSEError(.malformedHeader, "The JWE protected header has no epk object (the sender's ephemeral P-256 public key).")
        }
        let epk = try JWK(object: epkObject, name: "the JWE epk")
        func info(_ name: String) throws(JOSEError) -> [UInt8] {
            guard let value = header[name] else { return [] }
            guard let text = value.string else { throw JOSEError(.malformedHeader, "The JWE \(name) is \(value.typeName), not a string.") }
            return try Base64URLStrict.decode(Substring(text), part: "JWE \(name) header member")
        }
        let apu = try info("apu")
        let apv = try info("apv")
        guard parts[1].isEmpty else {
            throw JOSEError(.unsupportedHeader, "The JWE has an encrypted key; with ECDH-ES (direct key agreement) that part must be empty.")
        }
        let iv = try decode(2, "JWE initialization vector")
        guard iv.count == 12 else { throw JOSEError(.invalidBase64URL, "The JWE initialization vector is \(iv.count) bytes; AES-GCM uses 12.") }
        let ciphertext = try decode(3, "JWE ciphertext")
        let tag = try decode(4, "JWE authentication tag")
        guard tag.count == 16 else { throw JOSEError(.invalidBase64URL, "The JWE authentication tag is \(tag.count) bytes; AES-GCM uses 16.") }
        // Base64url, so ASCII: the header's text as received.
        self.protectedHeaderText = text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[parts[0]]), as: UTF8.self) }
        self.header = header
        self.encryption = encryption
        self.keyID = keyID
        self.ephemeralKey = epk.publicKey
        self.agreementPartyUInfo = apu
        self.agreementPartyVInfo = apv
        self.iv = iv
        self.ciphertext = ciphertext
        self.tag = tag
    }

    /// Decrypts with the recipient's private key: ECDH with `epk`, Concat KDF (AlgorithmID = enc,
    /// apu, apv, key length), AES-GCM with the protected header's base64url text as the AAD.
    public func decrypt(with key: P256.KeyAgreement.PrivateKey) throws(JOSEError) -> [UInt8] {
        let cek = Self.contentKey(
            privateKey: key, publicKey: ephemeralKey, encryption: encryption, apu: agreementPartyUInfo, apv: agreementPartyVInfo)
        do {
            let box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag)
            return Array(try AES.GCM.open(box, using: SymmetricKey(data: cek), authenticating: Array(protectedHeaderText.utf8)))
        } catch {
            throw JOSEError(
                .decryptionFailed,
                "AES-GCM (\(encryption.rawValue)) did not authenticate the JWE: it was altered, or encrypted to another key than this one.")
        }
    }

    /// Encrypts for tests and fixtures: ECDH-ES to `recipient` with a fresh (or the given) ephemeral
    /// key. The header holds `alg`, `enc`, then `kid`, `epk`, `apu`, `apv` when set.
    public static func encrypt(
        _ plaintext: [UInt8], to recipient: P256.KeyAgreement.PublicKey, encryption: JWEContentEncryption = .a128gcm, keyID: String? = nil,
        apu: [UInt8]? = nil, apv: [UInt8]? = nil, ephemeralKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()
    ) throws(JOSEError) -> String {
        var header = JSONWriter(capacity: 300)
        header.raw("{")
        header.key("alg")
        header.string("ECDH-ES")
        header.raw(",")
        header.key("enc")
        header.string(encryption.rawValue)
        if let keyID {
            header.raw(",")
            header.key("kid")
            header.string(keyID)
        }
        header.raw(",")
        header.key("epk")
        JWK(publicKey: ephemeralKey.publicKey).write(to: &header)
        for (name, value) in [("apu", apu), ("apv", apv)] {
            guard let value else { continue }
            header.raw(",")
            header.key(name)
            header.string(Base64URLStrict.encode(value))
        }
        header.raw("}")
        let protectedText = Base64URLStrict.encode(header.bytes)
        let cek = contentKey(privateKey: ephemeralKey, publicKey: recipient, encryption: encryption, apu: apu ?? [], apv: apv ?? [])
        do {
            let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: cek), authenticating: Array(protectedText.utf8))
            return [protectedText, "", Base64URLStrict.encode(box.nonce), Base64URLStrict.encode(box.ciphertext), Base64URLStrict.encode(box.tag)]
                .joined(separator: ".")
        } catch {
            throw JOSEError(.operationFailed, "AES-GCM encryption failed.")
        }
    }

    static func contentKey(
        privateKey: P256.KeyAgreement.PrivateKey, publicKey: P256.KeyAgreement.PublicKey, encryption: JWEContentEncryption, apu: [UInt8],
        apv: [UInt8]
    ) -> [UInt8] {
        // swift-crypto validated both keys on construction, so the agreement cannot fail; an error would
        // give an all-zero secret that no genuine JWE authenticates under.
        let z =
            (try? privateKey.sharedSecretFromKeyAgreement(with: publicKey)).map { $0.withUnsafeBytes { Array($0) } } ?? Array(repeating: 0, count: 32)
        return ConcatKDF.derive(
            sharedSecret: z, algorithmID: Array(encryption.rawValue.utf8), partyUInfo: apu, partyVInfo: apv, keyBitCount: encryption.keyBitCount)
    }
}

/// The Concat KDF of NIST SP 800-56A §5.8.1 with SHA-256, as RFC 7518 §4.6.2 uses it:
/// `SHA-256(counter ‖ Z ‖ OtherInfo)` for counter 1, 2, …, where OtherInfo =
/// `len(AlgorithmID) ‖ AlgorithmID ‖ len(apu) ‖ apu ‖ len(apv) ‖ apv ‖ keydatalen` (32-bit big-endian lengths).
public enum ConcatKDF {
    /// Derives `keyBitCount` bits (a multiple of 8) from the shared secret `Z`.
    public static func derive(sharedSecret: [UInt8], algorithmID: [UInt8], partyUInfo: [UInt8], partyVInfo: [UInt8], keyBitCount: Int) -> [UInt8] {
        // One buffer, `counter ‖ Z ‖ OtherInfo`, written once; each round rewrites the counter and
        // hashes it (a verification derives one key: the pieces as arrays of their own cost more
        // allocations than the hashing).
        var input: [UInt8] = []
        input.reserveCapacity(4 + sharedSecret.count + 16 + algorithmID.count + partyUInfo.count + partyVInfo.count)
        func appendBigEndian32(_ value: Int) {
            input.append(UInt8(truncatingIfNeeded: value >> 24))
            input.append(UInt8(truncatingIfNeeded: value >> 16))
            input.append(UInt8(truncatingIfNeeded: value >> 8))
            input.append(UInt8(truncatingIfNeeded: value))
        }
        appendBigEndian32(1)
        input.append(contentsOf: sharedSecret)
        for field in 0..<3 {
            let bytes = field == 0 ? algorithmID : field == 1 ? partyUInfo : partyVInfo
            appendBigEndian32(bytes.count)
            input.append(contentsOf: bytes)
        }
        appendBigEndian32(keyBitCount)
        let byteCount = max(0, keyBitCount / 8)
        var output: [UInt8] = []
        output.reserveCapacity(byteCount + 32)
        var counter = 1
        while output.count < byteCount {
            input[0] = UInt8(truncatingIfNeeded: counter >> 24)
            input[1] = UInt8(truncatingIfNeeded: counter >> 16)
            input[2] = UInt8(truncatingIfNeeded: counter >> 8)
            input[3] = UInt8(truncatingIfNeeded: counter)
            SHA256.hash(data: input).withUnsafeBytes { output.append(contentsOf: $0) }
            counter += 1
        }
        output.removeLast(output.count - byteCount)
        return output
    }
}
