import Foundation
import WalletCBOR
import WalletEncoding

/// Access to the real test data in `TestVectors/` at the repository root.
public enum TestVectors {
    /// The `TestVectors` folder, found relative to this source file.
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // Sources/WalletVerifierTestSupport/TestVectors.swift -> repository root
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("TestVectors")
    }()

    /// The URL of a file under `TestVectors/`, given its path relative to that folder.
    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    /// The file-system path of a file under `TestVectors/`, given its path relative to that folder.
    public static func path(_ relativePath: String) -> String {
        url(relativePath).path
    }

    /// The bytes of a file under `TestVectors/`.
    /// Throws the Foundation error when the file cannot be read.
    public static func data(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }

    /// A file under `TestVectors/` read as UTF-8 text.
    public static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self)
    }

    /// A file holding hex text, decoded.
    public static func hex(_ relativePath: String) throws -> [UInt8] {
        guard let bytes = Hex.decode(try text(relativePath).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw VectorError("\(relativePath) is not hex text")
        }
        return bytes
    }
}

/// An error the test fixtures throw, carrying only a human-readable message.
public struct VectorError: Error, CustomStringConvertible {
    /// The message.
    public let description: String
    /// Creates an error with the given message.
    public init(_ description: String) { self.description = description }
}

/// Hex literal helper for tests: `hex("a1 01 02")`.
public func hex(_ text: String) -> [UInt8] {
    Hex.decode(text)!
}
