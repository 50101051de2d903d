/// The merchant's payment-processing keys, any number of them (rotation), looked up by
/// `header.publicKeyHash` before anything is decrypted. Build it once and share it.
public struct MerchantKeyRing: Sendable, CustomStringConvertible {
    /// The keys, in the order given.
    public let keys: [MerchantKey]
    private let byHash: [String: Int]

    /// Two keys with the same publicKeyHash are a configuration error.
    public init(_ keys: [MerchantKey]) throws(MerchantKeyError) {
        var byHash: [String: Int] = [:]
        for (index, key) in keys.enumerated() {
            if byHash[key.publicKeyHash] != nil {
                throw MerchantKeyError(.duplicateKey, "two merchant keys have publicKeyHash \(key.publicKeyHash)")
            }
            byHash[key.publicKeyHash] = index
        }
        self.keys = keys
        self.byHash = byHash
    }

    /// A ring without keys: tokens can be verified (signature, signing time) but not decrypted.
    public static let empty: MerchantKeyRing = {
        guard let ring = try? MerchantKeyRing([]) else { preconditionFailure("an empty key ring is always valid") }
        return ring
    }()

    /// The key whose ``MerchantKey/publicKeyHash`` is `hash` (base64, compared exactly), or nil.
    public func key(forPublicKeyHash hash: String) -> MerchantKey? {
        byHash[hash].map { keys[$0] }
    }

    /// The keys' hashes, in order, for messages.
    public var publicKeyHashes: [String] { keys.map(\.publicKeyHash) }

    /// The number of keys and their hashes; never key material.
    public var description: String { "MerchantKeyRing(\(keys.count) keys: \(publicKeyHashes.joined(separator: ", ")))" }
}
