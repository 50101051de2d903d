/// A seeded generator (64-bit LCG) for reproducible mutation tests of the fast decoding paths, and the
/// one mutation step they share.
struct MutationGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state
    }

    /// One random change to non-empty `bytes`: a byte replaced, a bit flipped, the tail cut off at a
    /// random index, or a byte inserted.
    mutating func mutate(_ bytes: inout [UInt8]) {
        let index = Int(next() % UInt64(bytes.count))
        switch next() % 4 {
        case 0: bytes[index] = UInt8(truncatingIfNeeded: next())
        case 1: bytes[index] ^= UInt8(1) << (next() % 8)
        case 2: bytes.removeSubrange(index...)
        default: bytes.insert(UInt8(truncatingIfNeeded: next()), at: index)
        }
    }
}
