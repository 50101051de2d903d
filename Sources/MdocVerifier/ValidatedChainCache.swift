import Crypto
import Foundation
import X509

/// Validated DS → IACA chains, so that one document signer (which signs many documents) is
/// validated once. An entry is reused only at verification times inside every certificate's
/// validity period; the cache belongs to one verifier (one trust store).
actor ValidatedChainCache {
    struct Entry {
        let chain: [Certificate]
        let notBefore: Date
        let notAfter: Date
    }

    private var entries: [Key: Entry] = [:]
    private let capacity: Int

    struct Key: Hashable {
        let digest: SHA256Digest
        let docType: String
    }

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    static func key(certificates ders: [[UInt8]], docType: String) -> Key {
        var hasher = SHA256()
        for der in ders {
            hasher.update(data: withUnsafeBytes(of: UInt32(der.count).bigEndian) { Array($0) })
            hasher.update(data: der)
        }
        return Key(digest: hasher.finalize(), docType: docType)
    }

    func chain(for key: Key, at time: Date) -> [Certificate]? {
        guard let entry = entries[key], entry.notBefore <= time, time <= entry.notAfter else { return nil }
        return entry.chain
    }

    func store(_ chain: [Certificate], for key: Key) {
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        let notBefore = chain.map(\.notValidBefore).max() ?? .distantPast
        let notAfter = chain.map(\.notValidAfter).min() ?? .distantFuture
        entries[key] = Entry(chain: chain, notBefore: notBefore, notAfter: notAfter)
    }
}
