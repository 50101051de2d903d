import Crypto
import Synchronization
import X509

/// Chains a verifier has validated, by the SHA-256 of the `x5c` entries as received and the `vct`:
/// an issuer signs many credentials with one certificate, and its chain need not be built again for
/// each. Every certificate's validity is still checked at each verification's time before the cache
/// is read; the trust store of the verifier owning the cache never changes. At most ``capacity``
/// chains; when full, it starts over.
final class SDJWTChainCache: Sendable {
    static let capacity = 1024
    private let chains = Mutex<[SHA256Digest: [Certificate]]>([:])

    static func key(_ ders: [[UInt8]], vct: String) -> SHA256Digest {
        var hasher = SHA256()
        for der in ders {
            withUnsafeBytes(of: UInt32(der.count).bigEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: der)
        }
        hasher.update(data: Array(vct.utf8))
        return hasher.finalize()
    }

    func chain(for key: SHA256Digest) -> [Certificate]? { chains.withLock { $0[key] } }

    func store(_ chain: [Certificate], for key: SHA256Digest) {
        chains.withLock { chains in
            if chains.count >= Self.capacity { chains.removeAll() }
            chains[key] = chain
        }
    }
}
