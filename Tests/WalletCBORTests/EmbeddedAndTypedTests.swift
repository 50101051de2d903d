import Foundation
import Testing
import WalletCBOR
import WalletVerifierTestSupport

@Suite struct EmbeddedCBORTests {
    @Test func tag24KeepsReceivedBytesEvenWhenNotDeterministic() throws {
        // 24(<< {"a": 1} >>) where the inner map uses a non-preferred length for 1 (18 01)
        // and the byte string uses a non-preferred length head (58 05).
        let input = hex("d818 5805 a1 6161 1801")
        let node = try CBORDecoder.decode(input)
        let embedded = try EmbeddedCBOR<CBORNode>(cbor: node)
        #expect(Array(embedded.taggedBytes) == input)
        #expect(Array(embedded.innerBytes) == hex("a161611801"))
        #expect(embedded.value.mapValue?["a"]?.integerValue == 1)
        #expect(try !embedded.innerNode.isDeterministicallyEncoded)
        // Placing the received item inside a built structure keeps its bytes.
        let built = CBORNode.array([.text("x"), embedded.node])
        #expect(Array(built.encodedBytes) == hex("82 6178") + input)
    }

    @Test func embeddingABuiltValueEncodesOnce() throws {
        let inner = try CBORNode.map(["b": .int(2), "a": .int(1)])
        let wrapped = try EmbeddedCBOR<CBORNode>(wrapping: inner)
        #expect(Array(wrapped.taggedBytes) == hex("d818 47 a2 6161 01 6162 02"))
        #expect(wrapped.value == inner)
    }

    @Test func tag24WithNonBytesOrBrokenContentIsAnError() {
        #expect(throws: CBORError(code: .typeMismatch)) { try EmbeddedCBOR<CBORNode>(cborBytes: hex("d818 01")) }
        #expect(throws: CBORError(code: .typeMismatch)) { try EmbeddedCBOR<CBORNode>(cborBytes: hex("d819 41 00")) }
        #expect(throws: CBORError(code: .lengthExceedsInput)) { try EmbeddedCBOR<CBORNode>(cborBytes: hex("d818 41 82")) }
        #expect(throws: CBORError(code: .truncated)) { try EmbeddedCBOR<CBORNode>(cborBytes: hex("d818 41 19")) }
        #expect(throws: CBORError(code: .trailingBytes)) { try EmbeddedCBOR<CBORNode>(cborBytes: hex("d818 42 0101")) }
    }

    @Test func sampleDeviceResponseTag24ItemsAreSlicesOfTheInput() throws {
        let bytes = try TestVectors.hex("mdoc/apple-verify-with-wallet-sample/sample/plaintext_topics.cbor")
        let topics = try CBORDecoder.decode(bytes)
        let response = try topics.map().required("identity")
        let document = try response.map().required("documents").array()[0]
        let issuerSigned = try document.map().required("issuerSigned").map()
        let nameSpaces = try issuerSigned.required("nameSpaces").map()
        var count = 0
        for entry in nameSpaces {
            for item in try entry.value.array() {
                let embedded = try EmbeddedCBOR<CBORNode>(cbor: item)
                // The tagged bytes are exactly the slice of the received buffer.
                #expect(Array(embedded.taggedBytes) == Array(bytes[item.offset..<(item.offset + item.encodedBytes.count)]))
                #expect(embedded.taggedBytes.starts(with: [0xd8, 0x18]))
                _ = try embedded.value.map().required("elementIdentifier").text()
                count += 1
            }
        }
        #expect(count > 15)
    }
}

@Suite struct TypedAccessTests {
    @Test func typeMismatchNamesWhatWasExpected() throws {
        let node = try CBORDecoder.decode(hex("a1 6161 01"))
        do {
            _ = try node.map().required("a").text("a")
            Issue.record("decoded")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.message.contains("expected a text string, found integer"))
        }
        #expect(throws: CBORError(code: .missingField)) { try node.map().required("b") }
    }

    @Test func integerAccessors() throws {
        #expect(try CBORDecoder.decode(hex("3b7fffffffffffffff")).int() == Int64.min)
        #expect(throws: CBORError(code: .invalidValue)) { try CBORDecoder.decode(hex("3bffffffffffffffff")).int() }
        #expect(try CBORDecoder.decode(hex("1bffffffffffffffff")).uint() == UInt64.max)
        #expect(try CBORDecoder.decode(hex("a1 20 01")).map()[-1]?.integerValue == 1)
    }

    @Test func dates() throws {
        let tdate = try CBORDateTime(cborBytes: hex("c074323031332d30332d32315432303a30343a30305a"))
        #expect(tdate.date == Date(timeIntervalSince1970: 1_363_896_240))
        #expect(tdate.rfc3339 == "2013-03-21T20:04:00Z")
        #expect(try CBORDateTime(cborBytes: hex("c11a514b67b0")).date == Date(timeIntervalSince1970: 1_363_896_240))
        #expect(try CBORDateTime(cborBytes: hex("c1fb41d452d9ec200000")).date == Date(timeIntervalSince1970: 1_363_896_240.5))
        let offset = try CBORDateTime(cbor: .tagged(0, .text("2013-03-21T22:04:00+02:00")))
        #expect(offset.date == tdate.date)
        #expect(throws: CBORError(code: .invalidValue)) { try CBORDateTime(cbor: .tagged(0, .text("2013-02-30T00:00:00Z"))) }
        #expect(throws: CBORError(code: .invalidValue)) { try CBORDateTime(cbor: .tagged(0, .text("yesterday"))) }
        #expect(throws: CBORError(code: .typeMismatch)) { try CBORDateTime(cbor: .text("2013-03-21T20:04:00Z")) }
        #expect(Array(CBORDateTime(date: tdate.date).cborNode().encodedBytes) == hex("c074323031332d30332d32315432303a30343a30305a"))

        let fullDate = try CBORFullDate(cbor: .tagged(1004, .text("1976-04-01")))
        #expect(fullDate.description == "1976-04-01")
        #expect(fullDate.tagged)
        #expect(try CBORFullDate(cbor: .text("2024-02-29")).tagged == false)
        #expect(throws: CBORError(code: .invalidValue)) { try CBORFullDate(cbor: .tagged(1004, .text("2023-02-29"))) }
        #expect(throws: CBORError(code: .typeMismatch)) { try CBORFullDate(cbor: .tagged(1005, .text("2023-02-28"))) }
    }

    @Test func descriptionNeverShowsContent() throws {
        let node = CBORNode.text("Jane Doe 4109370251004320")
        #expect(!node.description.contains("Jane"))
        #expect(!node.description.contains("4109"))
    }
}
