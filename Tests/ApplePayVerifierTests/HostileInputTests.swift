import ApplePayVerifier
import Foundation
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// Malformed and hostile tokens: each ends in a failed check with a clear reason, never a crash,
/// never payment data.
@Suite struct HostileInputTests {
    static func structureFailure(_ json: [UInt8], _ reason: ReasonCode, field: String? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let result = try await Fixture.verify(json: json)
        result.expectRejected(.applePayTokenStructure, reason, sourceLocation: sourceLocation)
        if let field {
            #expect(result.report.check(.applePayTokenStructure)?.details["field"] == field, sourceLocation: sourceLocation)
        }
        // Everything else is recorded, as skipped.
        #expect(result.report.checks.count == CheckID.applePayChecks.count, sourceLocation: sourceLocation)
        #expect(result.summary == nil, sourceLocation: sourceLocation)
    }

    static func mutated(_ merchant: ApplePayFixtureMerchant = Fixture.ecMerchant, _ change: (inout [String: Any]) -> Void) throws -> [UInt8] {
        var object = try Fixture.builder(merchant).build().paymentDataObject()
        change(&object)
        return [UInt8](try JSONSerialization.data(withJSONObject: object))
    }

    static func mutatedHeader(_ merchant: ApplePayFixtureMerchant = Fixture.ecMerchant, _ change: @escaping (inout [String: String]) -> Void) throws
        -> [UInt8]
    {
        try mutated(merchant) { object in
            var header = object["header"] as! [String: String]
            change(&header)
            object["header"] = header
        }
    }

    @Test func notATokenAtAll() async throws {
        for input in ["", "   ", "not json", "[1,2,3]", "\"EC_v1\"", "{", "{}", "null", "{\"paymentData\": 5}"] {
            let result = try await Fixture.verify(json: Array(input.utf8))
            #expect(result.verdict == .rejected, "\(input)")
            #expect(result.status(.applePayTokenStructure) == .failed, "\(input)")
            #expect(result.payment == nil)
        }
        try await Self.structureFailure(
            Array("{\"version\": \"EC_v1\", \"data\": \"".utf8) + [UInt8](repeating: 0x41, count: 300_000), .inputTooLarge)
        try await Self.structureFailure([0xFF, 0xFE, 0x00, 0x7B], .malformedJSON)
    }

    @Test func unknownOrMistypedVersion() async throws {
        try await Self.structureFailure(try Self.mutated { $0["version"] = "EC_v2" }, .unsupportedVersion, field: "version")
        try await Self.structureFailure(try Self.mutated { $0["version"] = 1 }, .malformedJSON, field: "version")
        try await Self.structureFailure(try Self.mutated { $0["version"] = "ec_v1" }, .unsupportedVersion)
    }

    @Test(arguments: ["version", "data", "signature", "header"])
    func missingTopLevelField(field: String) async throws {
        let json = try Self.mutated { $0.removeValue(forKey: field) }
        let result = try await Fixture.verify(json: json)
        result.expectRejected(.applePayTokenStructure, .missingField)
    }

    @Test(arguments: [
        ("EC_v1", "ephemeralPublicKey"), ("EC_v1", "publicKeyHash"), ("EC_v1", "transactionId"),
        ("RSA_v1", "wrappedKey"), ("RSA_v1", "publicKeyHash"), ("RSA_v1", "transactionId"),
    ])
    func missingHeaderField(version: String, field: String) async throws {
        let merchant = version == "EC_v1" ? Fixture.ecMerchant : Fixture.rsaMerchant
        try await Self.structureFailure(try Self.mutatedHeader(merchant) { $0.removeValue(forKey: field) }, .missingField, field: "header.\(field)")
    }

    @Test func headerOfTheWrongShape() async throws {
        try await Self.structureFailure(try Self.mutated { $0["header"] = "header" }, .malformedJSON, field: "header")
        try await Self.structureFailure(try Self.mutated { $0["header"] = ["publicKeyHash": 5] }, .missingField)
        try await Self.structureFailure(try Self.mutatedHeader { $0["wrappedKey"] = "AAAA" }, .unexpectedField, field: "header.wrappedKey")
        try await Self.structureFailure(try Self.mutatedHeader(Fixture.rsaMerchant) { $0["ephemeralPublicKey"] = "AAAA" }, .unexpectedField)
    }

    @Test func fieldsThatAreNotBase64OrHex() async throws {
        try await Self.structureFailure(try Self.mutated { $0["data"] = "%%%not base64%%%" }, .invalidBase64, field: "data")
        try await Self.structureFailure(try Self.mutated { $0["signature"] = "MIAGCSqGSIb3DQEHAqCAMIACAQEx*" }, .invalidBase64, field: "signature")
        try await Self.structureFailure(try Self.mutated { $0["data"] = "" }, .invalidBase64)
        try await Self.structureFailure(
            try Self.mutatedHeader { $0["ephemeralPublicKey"] = "MFkw EwYH" }, .invalidBase64, field: "header.ephemeralPublicKey")
        try await Self.structureFailure(try Self.mutatedHeader(Fixture.rsaMerchant) { $0["wrappedKey"] = "@@" }, .invalidBase64)
        try await Self.structureFailure(try Self.mutatedHeader { $0["publicKeyHash"] = "not-base64!" }, .invalidBase64, field: "header.publicKeyHash")
        try await Self.structureFailure(try Self.mutatedHeader { $0["publicKeyHash"] = "AAAA" }, .invalidBase64, field: "header.publicKeyHash")
        try await Self.structureFailure(try Self.mutatedHeader { $0["transactionId"] = "xyz" }, .invalidHex, field: "header.transactionId")
        try await Self.structureFailure(try Self.mutatedHeader { $0["transactionId"] = "abc" }, .invalidHex)
        try await Self.structureFailure(try Self.mutatedHeader { $0["transactionId"] = "" }, .invalidHex)
        try await Self.structureFailure(try Self.mutatedHeader { $0["applicationData"] = "zz" }, .invalidHex, field: "header.applicationData")
        // Shorter than a GCM tag.
        try await Self.structureFailure(try Self.mutated { $0["data"] = "AAAA" }, .invalidBase64, field: "data")
    }

    @Test func truncatedAndGarbageSignatures() async throws {
        let token = try Fixture.builder().build()
        let signature = try #require(Data(base64Encoded: token.signature))
        for length in [0, 1, 2, 10, 100, signature.count / 2, signature.count - 3, signature.count - 1] where length > 0 {
            var copy = token
            copy.signature = signature.prefix(length).base64EncodedString()
            let result = try await Fixture.verify(copy)
            result.expectRejected(.applePaySignatureCMS, .malformedCMS)
        }
        var garbage = token
        garbage.signature = Data("this is not a CMS structure".utf8).base64EncodedString()
        try await Fixture.verify(garbage).expectRejected(.applePaySignatureCMS, .malformedCMS)
        // Deep nesting and a huge declared length.
        var deep = token
        deep.signature = Data([UInt8](repeating: 0x30, count: 2000).flatMap { [$0, 0x80] }).base64EncodedString()
        try await Fixture.verify(deep).expectRejected(.applePaySignatureCMS, .malformedCMS)
        var huge = token
        huge.signature = Data([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x02, 0x01, 0x01]).base64EncodedString()
        try await Fixture.verify(huge).expectRejected(.applePaySignatureCMS, .malformedCMS)
        // A well-formed ContentInfo that is not SignedData.
        var other = token
        other.signature = Data([0x30, 0x0B, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]).base64EncodedString()
        try await Fixture.verify(other).expectRejected(.applePaySignatureCMS, .notSignedData)
    }

    /// Random byte flips and truncations of good tokens (fixed seed): no crash, and nothing is
    /// accepted unless it decrypts to the original payment data.
    @Test(arguments: ["EC_v1", "RSA_v1"])
    func randomMutationsNeverYieldForeignPaymentData(version: String) async throws {
        let merchant = version == "EC_v1" ? Fixture.ecMerchant : Fixture.rsaMerchant
        let token = try Fixture.builder(merchant).build()
        let json = token.json()
        let signature = [UInt8](try #require(Data(base64Encoded: token.signature)))
        var random = SplitMix64(seed: version == "EC_v1" ? 0x5EED : 0xBEEF)
        var accepted = 0
        for round in 0..<300 {
            let verifier = try Fixture.verifier([merchant])
            var input: [UInt8]
            switch round % 3 {
            case 0:
                input = json
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    let index = Int(random.next() % UInt64(input.count))
                    input[index] ^= UInt8(1 << (random.next() % 8))
                }
            case 1:
                input = Array(json.prefix(Int(random.next() % UInt64(json.count))))
            default:
                var bytes = signature
                let index = Int(random.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: random.next())
                var copy = token
                copy.signature = Data(bytes).base64EncodedString()
                input = copy.json()
            }
            let result = await verifier.verify(input, context: VerificationContext(time: Fixture.verificationTime))
            if result.verdict == .accepted {
                accepted += 1
                #expect(result.payment?.rawJSON == token.plaintext)
            } else {
                #expect(result.payment == nil)
            }
        }
        // Nearly every mutation is rejected (a flipped bit in an unchecked integer may survive).
        #expect(accepted < 30)
    }
}

/// A small seeded generator, so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
