import Crypto
import Foundation
import Testing
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletVerifierTestSupport

@testable import Mdoc

/// `DeviceResponse(cborBytes:)` reads the usual response in place; it must give exactly what the
/// generic decoder followed by `DeviceResponse(cbor:)` gives: the same model, or the same error.
@Suite struct DeviceResponseFastPathTests {
    /// Everything the model holds, written out (bytes as hex), or the error.
    static func outcome(_ run: () throws(MdocDecodingError) -> DeviceResponse) -> String {
        do {
            let response = try run()
            var lines = [
                "version \(response.version) status \(response.status) bytes \(response.encodedBytes.startIndex)..<\(response.encodedBytes.endIndex)",
                "documentErrors \(response.documentErrors.sorted { $0.key < $1.key })",
            ]
            for result in response.documentResults {
                switch result {
                case .failure(let error): lines.append("document error \(error.code) \(error.message)")
                case .success(let document):
                    lines.append(
                        "document \(document.docType) errors \(document.errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.sorted { $0.key < $1.key })" })"
                    )
                    lines.append("  bytes \(document.encodedBytes.startIndex)..<\(document.encodedBytes.endIndex)")
                    for space in document.issuerSigned.nameSpaces {
                        lines.append("  namespace \(space.name)")
                        for item in space.items {
                            lines.append(
                                "    item \(item.taggedBytes.startIndex)..<\(item.taggedBytes.endIndex) inner \(item.innerBytes.startIndex)..<\(item.innerBytes.endIndex) node \(Hex.encode(Array(item.node.encodedBytes))) \(item.value.digestID) \(item.value.elementIdentifier) \(Hex.encode(Array(item.value.random))) \(Hex.encode(Array(item.value.elementValue.encodedBytes)))"
                            )
                            if case .tagged(24, let content) = item.node.value, case .byteString(let inner) = content.value {
                                lines.append(
                                    "      node content \(content.encodedBytes.startIndex)..<\(content.encodedBytes.endIndex) inner \(inner.startIndex)"
                                )
                            } else {
                                lines.append("      node is not tag 24")
                            }
                        }
                    }
                    // The table the verifier reads: the same elements, values and item bytes.
                    let table = document.issuerSigned.elements
                    lines.append("  table namespaces \(table.nameSpaces)")
                    for element in table.elements {
                        var value = ""
                        dump(element.value, to: &value)
                        lines.append(
                            "    element \(element.nameSpace) \(element.digestID) \(element.identifier) \(Hex.encode(Array(table.taggedBytes(of: element)))) \(value)"
                        )
                    }
                    let auth = document.issuerSigned.issuerAuth
                    lines.append("  issuerAuth \(Hex.encode(Array(auth.node.encodedBytes))) at \(auth.node.offset)")
                    if let device = document.deviceSigned {
                        lines.append(
                            "  deviceSigned \(Hex.encode(Array(device.nameSpacesBytes.encodedBytes))) \(device.nameSpaces.map { "\($0.name): \($0.elements.map(\.identifier))" })"
                        )
                        switch device.deviceAuth {
                        case .signature(let s): lines.append("  deviceSignature \(Hex.encode(Array(s.node.encodedBytes)))")
                        case .mac(let m): lines.append("  deviceMac \(Hex.encode(Array(m.node.encodedBytes)))")
                        }
                    } else {
                        lines.append("  no deviceSigned")
                    }
                }
            }
            return lines.joined(separator: "\n")
        } catch {
            return "error \(error.code) \(error.message)"
        }
    }

    static func compare(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = outcome { () throws(MdocDecodingError) in try DeviceResponse(cborBytes: bytes) }
        let generic = outcome { () throws(MdocDecodingError) in
            let node: CBORNode
            do throws(CBORError) { node = try CBORDecoder.decode(bytes) } catch { throw MdocDecodingError(error, in: "DeviceResponse") }
            return try DeviceResponse(cbor: node)
        }
        #expect(fast == generic, "input \(Hex.encode(bytes))", sourceLocation: sourceLocation)
    }

    /// Whether the in-place reader takes the input (rather than leaving it to the generic decoder).
    static func readsInPlace(_ bytes: [UInt8]) -> Bool {
        CBORDecoder().read(bytes[...]) { DeviceResponse(reading: &$0) != nil }
    }

    static func vectorResponses() throws -> [(String, [UInt8])] {
        let folder = TestVectors.url("mdoc")
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        var responses = try files.filter { $0.lastPathComponent.hasSuffix("device_response.cbor") }
            .sorted { $0.path < $1.path }
            .map { ($0.path, [UInt8](try Data(contentsOf: $0))) }
        // Apple's in-app sample: the DeviceResponse inside the decrypted plaintext.
        let topics = try CBORDecoder.decode(try TestVectors.hex("mdoc/apple-verify-with-wallet-sample/sample/plaintext_topics.cbor"))
        responses.append(("apple", Array(try topics.map("plaintext").required("identity").encodedBytes)))
        return responses
    }

    @Test func everyVectorAgreesAndTheUsualOnesReadInPlace() throws {
        let responses = try Self.vectorResponses()
        #expect(responses.count >= 10)
        var inPlace = 0
        for (name, bytes) in responses {
            Self.compare(bytes)
            if Self.readsInPlace(bytes) { inPlace += 1 } else { print("generic path: \(name)") }
        }
        // Annex D, the owf examples and Apple's sample have no documentErrors and decode in place.
        #expect(Self.readsInPlace(try TestVectors.data("mdoc/iso18013-5-annex-d/device_response.cbor")))
        #expect(Self.readsInPlace(try Self.vectorResponses().first { $0.0 == "apple" }!.1))
        #expect(inPlace >= 6)
    }

    @Test func fixturesAgree() throws {
        let pki = try MdocPKI()
        let transcript = try SessionTranscript(bytes: CBORNode.array([.null, .null, .text("fast path")]).encodedBytes.map { $0 })
        let changes: [(inout MdocFixture) -> Void] = [
            { _ in },
            { $0.deviceSignedElements = [.init(MdocFixture.isoNameSpace, "given_name", .text("Erika"))] },
            { $0.tamperedElement = "given_name" },
            { $0.duplicateDigestID = true },
            { $0.wrapMSOInTag24 = false },
            { $0.simulatorStyle = true },
            { $0.includeX5Chain = false },
            { $0.elements = [] },
            { $0.macReaderKey = P256.KeyAgreement.PrivateKey().publicKey },
        ]
        let variants = changes.map { change in
            var fixture = MdocFixture()
            change(&fixture)
            return fixture
        }
        for fixture in variants {
            let bytes = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
            Self.compare(bytes)
            #expect(Self.readsInPlace(bytes))
        }
    }

    @Test func unusualShapesAgreeAndGoTheGenericWay() throws {
        let pki = try MdocPKI()
        let transcript = try SessionTranscript(bytes: CBORNode.array([.null, .null, .text("fast path")]).encodedBytes.map { $0 })
        let good = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let response = try CBORDecoder.decode(good).map("response")
        func rebuilt(_ change: (inout [(CBORNode, CBORNode)]) throws -> Void) throws -> [UInt8] {
            var entries = response.entries.map { ($0.key, $0.value) }
            try change(&entries)
            return Array(try CBORNode.map(entries).encodedBytes)
        }
        let document = try #require(try response.required("documents").array().first)
        let unusual: [[UInt8]] = [
            try rebuilt { $0.append((.text("documentErrors"), .array([try .map([(.text("org.iso.18013.5.1.mDL"), .int(0))])]))) },
            try rebuilt { $0.removeAll { (try? $0.0.text()) == "version" } },
            try rebuilt { $0.removeAll { (try? $0.0.text()) == "status" } },
            try rebuilt { $0.removeAll { (try? $0.0.text()) == "documents" } },
            try rebuilt { entries in entries = entries.map { (try? $0.0.text()) == "documents" ? ($0.0, .array([document, .int(7)])) : $0 } },
            try rebuilt { entries in entries = entries.map { (try? $0.0.text()) == "status" ? ($0.0, .int(-1)) : $0 } },
            try rebuilt { $0.append((.int(1), .int(2))) },
            try rebuilt { $0.append((.text("extension"), try .map([(.text("a"), .bytes([1, 2]))]))) },
        ]
        // DeviceSigned and DeviceAuth shapes the in-place reader leaves to the generic decoder.
        let deviceSigned = try document.map().required("deviceSigned")
        let deviceAuth = try deviceSigned.map().required("deviceAuth")
        let signature = try deviceAuth.map().required("deviceSignature")
        func withDeviceSigned(_ replacement: CBORNode) throws -> [UInt8] {
            let changed = try CBORNode.map(
                try document.map().entries.map { (try? $0.key.text()) == "deviceSigned" ? ($0.key, replacement) : ($0.key, $0.value) })
            return try rebuilt { entries in entries = entries.map { (try? $0.0.text()) == "documents" ? ($0.0, .array([changed])) : $0 } }
        }
        let nameSpaces = try deviceSigned.map().required("nameSpaces")
        let unusualDevice: [[UInt8]] = [
            try withDeviceSigned(try .map([(.text("nameSpaces"), nameSpaces)])),
            try withDeviceSigned(try .map([(.text("deviceAuth"), deviceAuth)])),
            try withDeviceSigned(try .map([(.text("nameSpaces"), nameSpaces), (.text("deviceAuth"), try .map([]))])),
            try withDeviceSigned(
                try .map([
                    (.text("nameSpaces"), nameSpaces),
                    (.text("deviceAuth"), try .map([(.text("deviceSignature"), signature), (.text("deviceMac"), signature)])),
                ])),
            try withDeviceSigned(try .map([(.text("nameSpaces"), .bytes([0xa0])), (.text("deviceAuth"), deviceAuth)])),
            try withDeviceSigned(try .map([(.text("nameSpaces"), .embedded(.array([]))), (.text("deviceAuth"), deviceAuth)])),
            try withDeviceSigned(
                try .map([(.text("nameSpaces"), nameSpaces), (.text("deviceAuth"), try .map([(.text("deviceSignature"), .int(1))]))])),
            try withDeviceSigned(try .map([(.text("nameSpaces"), nameSpaces), (.text("deviceAuth"), deviceAuth), (.int(1), .int(2))])),
            // Other members are ignored by both readers.
            try withDeviceSigned(
                try .map([
                    (.text("nameSpaces"), nameSpaces), (.text("deviceAuth"), try .map([(.text("deviceSignature"), signature), (.text("x"), .null)])),
                    (.text("y"), .null),
                ])),
        ]
        for bytes in unusualDevice { Self.compare(bytes) }
        #expect(unusualDevice.dropLast().allSatisfy { !Self.readsInPlace($0) })
        #expect(Self.readsInPlace(unusualDevice.last!))

        for bytes in unusual { Self.compare(bytes) }
        #expect(!Self.readsInPlace(unusual[0]))
        #expect(Self.readsInPlace(unusual[7]))
        // Trailing bytes and truncation.
        Self.compare(good + [0x00])
        Self.compare(Array(good.dropLast()))
    }

    /// Mutations of a response with device-signed elements, of the usual one (none) and of one
    /// authenticated with deviceMac: every one decodes to the same model, or fails the same way.
    @Test(arguments: ["deviceSignedElements", "usual", "deviceMac"])
    func mutatedResponsesAgree(_ variant: String) throws {
        let pki = try MdocPKI()
        let transcript = try SessionTranscript(bytes: CBORNode.array([.null, .null, .text("fast path")]).encodedBytes.map { $0 })
        var fixture = MdocFixture()
        switch variant {
        case "deviceSignedElements": fixture.deviceSignedElements = [.init(MdocFixture.isoNameSpace, "given_name", .text("Erika"))]
        case "deviceMac": fixture.macReaderKey = P256.KeyAgreement.PrivateKey().publicKey
        default: break
        }
        let good = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        #expect(Self.readsInPlace(good))
        var random = MutationGenerator(state: 18_013_7)
        for _ in 0..<3_000 {
            var bytes = good
            for _ in 0..<(1 + Int(random.next() % 3)) {
                random.mutate(&bytes)
                if bytes.isEmpty { bytes = [0xa0] }
            }
            Self.compare(bytes)
        }
    }

    @Test func limitsStillApply() throws {
        let bytes = try TestVectors.data("mdoc/iso18013-5-annex-d/device_response.cbor")
        // A response deeper than the limit or with more items than allowed is not read in place.
        for depth in 1...6 {
            #expect(!CBORDecoder(limits: .init(maxDepth: depth)).read(bytes[...]) { DeviceResponse(reading: &$0) != nil })
        }
        #expect(!CBORDecoder(limits: .init(maxItems: 20)).read(bytes[...]) { DeviceResponse(reading: &$0) != nil })
        #expect(!CBORDecoder(limits: .init(maxInputSize: bytes.count - 1)).read(bytes[...]) { DeviceResponse(reading: &$0) != nil })
        // And the generic decoder agrees these limits are broken.
        #expect(throws: CBORError.self) { try CBORDecoder(limits: .init(maxItems: 20)).decode(bytes) }
    }
}
