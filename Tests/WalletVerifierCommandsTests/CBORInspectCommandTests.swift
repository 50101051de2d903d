import Foundation
import Testing
import WalletCBOR
import WalletVerifierCommands
import WalletVerifierTestSupport

private let sample = "mdoc/apple-verify-with-wallet-sample/sample/"

private func temporaryFile(_ bytes: [UInt8]) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("wv-\(UUID().uuidString)").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite struct CBORInspectCommandTests {
    @Test func envelopeShowsTheAlgorithm() async throws {
        let result = await WalletVerifierCommand.runCapturing(["cbor", "inspect", TestVectors.path(sample + "hpke_envelope.cbor")])
        #expect(result.code == 0)
        #expect(result.stdout.contains(#""algorithm": "APPLE-HPKE-v1""#))
        #expect(result.stdout.contains(#""mode": 0"#))
    }

    @Test func deviceResponseShowsTag24ItemsDecoded() async throws {
        let result = await WalletVerifierCommand.runCapturing(["cbor", "inspect", TestVectors.path(sample + "plaintext_topics.cbor")])
        #expect(result.code == 0)
        let out = result.stdout
        #expect(out.contains(#""identity": {"#))
        #expect(out.contains(#""docType": "org.iso.18013.5.1.mDL""#))
        #expect(out.contains("24(<< {"))
        #expect(out.contains(#""elementIdentifier": "family_name""#))
        #expect(out.contains(#""elementValue": "Doe""#))
        // The MSO inside issuerAuth is shown decoded too.
        #expect(out.contains(#""digestAlgorithm": "SHA-256""#))
        #expect(out.contains(#"1004("1976-04-01")"#))
        #expect(out.contains("<< {\n"))
        #expect(out.contains("<< {1: -7} >>") || out.contains("<< {\n"))

        let raw = await WalletVerifierCommand.runCapturing(["cbor", "inspect", "--raw", TestVectors.path(sample + "plaintext_topics.cbor")])
        #expect(raw.code == 0)
        #expect(raw.stdout.contains("24(h'"))
        #expect(!raw.stdout.contains("elementIdentifier"))
    }

    @Test func binaryHexAndBase64InputsAreDetected() async throws {
        let bytes = try TestVectors.hex(sample + "hpke_envelope.cbor")
        let binary = try temporaryFile(bytes)
        let base64 = try temporaryFile(Array(Data(bytes).base64EncodedString().utf8))
        defer {
            try? FileManager.default.removeItem(atPath: binary)
            try? FileManager.default.removeItem(atPath: base64)
        }
        for path in [binary, base64] {
            let result = await WalletVerifierCommand.runCapturing(["cbor", "inspect", "--compact", path])
            #expect(result.code == 0)
            #expect(result.stdout.contains(#""algorithm": "APPLE-HPKE-v1""#))
            #expect(!result.stdout.contains("\n  "))
        }
    }

    /// Wrapped lines, the URL-safe alphabet and missing padding are all read as base64.
    @Test func wrappedURLSafeBase64IsRead() throws {
        let bytes = try TestVectors.hex(sample + "hpke_envelope.cbor")
        let url = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        var wrapped = ""
        for (index, character) in url.enumerated() {
            if index > 0, index % 76 == 0 { wrapped += "\r\n" }
            wrapped.append(character)
        }
        let read = InputFiles.cborBytes(fromFileContents: Array((wrapped + "\n").utf8))
        #expect(read.encoding == .base64)
        #expect(read.bytes == bytes)
        #expect(InputFiles.cborBytes(fromFileContents: Array("AB=C".utf8)).encoding == .binary)
    }

    @Test func unreadableInputExitsWithTwo() async throws {
        let missing = await WalletVerifierCommand.runCapturing(["cbor", "inspect", "/nonexistent/file.cbor"])
        #expect(missing.code == 2)
        #expect(missing.stderr.contains("cannot read"))
        let garbage = try temporaryFile([0x82, 0x01])
        defer { try? FileManager.default.removeItem(atPath: garbage) }
        let broken = await WalletVerifierCommand.runCapturing(["cbor", "inspect", garbage])
        #expect(broken.code == 2)
        #expect(broken.stderr.contains("not well-formed CBOR"))
        #expect(broken.stderr.contains("lengthExceedsInput"))
    }

    @Test func usageErrorsExitWithTwoAndHelpWithZero() async throws {
        let unknown = await WalletVerifierCommand.runCapturing(["cbor", "inspect", "--bogus", "x"])
        #expect(unknown.code == 2)
        let missing = await WalletVerifierCommand.runCapturing(["cbor", "inspect"])
        #expect(missing.code == 2)
        let noSuchCommand = await WalletVerifierCommand.runCapturing(["frobnicate"])
        #expect(noSuchCommand.code == 2)
        for arguments in [["--help"], ["cbor", "--help"], ["cbor", "inspect", "--help"], ["applepay", "--help"]] {
            let help = await WalletVerifierCommand.runCapturing(arguments)
            #expect(help.code == 0, "\(arguments)")
            #expect(help.stdout.contains("USAGE"), "\(arguments)")
        }
    }

    @Test func theExecutableHonoursTheExitCodes() throws {
        // The real binary, next to the test bundle.
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wallet-verifier")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            Issue.record("wallet-verifier executable not found at \(binary.path)")
            return
        }
        func run(_ arguments: [String]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = Pipe()
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let ok = try run(["cbor", "inspect", TestVectors.path(sample + "hpke_envelope.cbor")])
        #expect(ok.0 == 0)
        #expect(ok.1.contains("APPLE-HPKE-v1"))
        #expect(try run(["cbor", "inspect"]).0 == 2)
        #expect(try run(["--help"]).0 == 0)
    }
}
