import Foundation
import Testing

@testable import VerifierServer

/// The Content-Type read byte by byte for ASCII values gives exactly what the general reading
/// (split at `;`, Foundation's whitespace trimming, lowercasing) gives, for every value.
@Suite struct MediaTypeTests {
    static func general(_ value: String) -> String? {
        value.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased()
    }

    @Test(arguments: [
        "application/json", "Application/JSON", "application/json; charset=utf-8", "  application/json  ", "\tapplication/json\t;x",
        "application/json;", ";application/json", ";", ";;", "", " ", " ;x", "text/plain", "APPLICATION/JSON ;charset=UTF-8",
        "application/json\u{A0}", "\u{A0}application/json", "appl\u{130}cation/json", "application/jsön", "a;b;c", "  ;  ;  ", "\r\napplication/json",
    ])
    func sameAsTheGeneralReading(_ value: String) {
        #expect(APIRoutes.mediaType(value) == Self.general(value), "\(value.debugDescription)")
    }

    @Test func randomASCIIValues() {
        let alphabet = Array("aJ/;; \t\r\n-+.=x".utf8)
        var state: UInt64 = 42
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 59)
            var bytes: [UInt8] = []
            for index in 0..<length { bytes.append(alphabet[Int((state >> UInt64(index * 3 % 56)) & 0xF) % alphabet.count]) }
            let value = String(decoding: bytes, as: UTF8.self)
            #expect(APIRoutes.mediaType(value) == Self.general(value), "\(value.debugDescription)")
        }
    }
}
