import Foundation
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletJSON

/// Reading the files people pass: binary, hex text or base64 text, detected automatically.
public enum InputFiles {
    /// Largest input file accepted (tokens and responses are a few kilobytes; portraits are small).
    public static let maxFileSize = 8 * 1024 * 1024

    /// The bytes of the file at `path`, at most ``maxFileSize``; the error names the path when it is missing, too large or unreadable.
    public static func readFile(_ path: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: path)
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw CLIInputError("cannot read \(path): no such file or not readable")
        }
        if let size = attributes[.size] as? Int, size > maxFileSize {
            throw CLIInputError("\(path) is \(size) bytes; the limit is \(maxFileSize)")
        }
        guard let data = try? Data(contentsOf: url) else {
            throw CLIInputError("cannot read \(path)")
        }
        return [UInt8](data)
    }

    /// How a CBOR input file was written: raw bytes, hex text or base64 text.
    public enum Encoding: String, Sendable { case binary, hex, base64 }

    /// Decodes file contents that hold CBOR as binary, hex text or base64 (standard or URL-safe)
    /// text. A text form is used only if it decodes to well-formed CBOR; otherwise the bytes are
    /// taken as binary.
    public static func cborBytes(fromFileContents raw: [UInt8]) -> (bytes: [UInt8], encoding: Encoding) {
        let text = String(decoding: raw, as: UTF8.self)
        if let hex = Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)), !hex.isEmpty, (try? CBORDecoder.decode(hex)) != nil {
            return (hex, .hex)
        }
        if let b64 = Base64.decodeWrapped(text), !b64.isEmpty, (try? CBORDecoder.decode(b64)) != nil {
            return (b64, .base64)
        }
        return (raw, .binary)
    }

    /// The CBOR bytes of a file written as binary, hex or base64 (line breaks allowed), and which of the three it was.
    public static func readCBORFile(_ path: String) throws -> (bytes: [UInt8], encoding: Encoding) {
        cborBytes(fromFileContents: try readFile(path))
    }
}
