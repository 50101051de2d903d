import Foundation
import Testing
import WalletEncoding

@testable import ApplePayVerifier

/// The base64 decoder for token fields agrees with Foundation's on what Apple sends.
@Suite struct Base64Tests {
    @Test func agreesWithFoundation() {
        var random = SplitMix64(seed: 42)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let text = Data(bytes).base64EncodedString()
            if length == 0 {
                #expect(Base64.decodeStrict(text) == nil)
            } else {
                #expect(Base64.decodeStrict(text) == bytes)
            }
        }
    }

    @Test(arguments: ["A", "AB", "ABC", "AB=C", "A===", "====", "AB C", "AB\nCD==", "ABC-", "ABC_", "AAA=AAAA", "é123"])
    func rejects(text: String) {
        #expect(Base64.decodeStrict(text) == nil)
    }
}
