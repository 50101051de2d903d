import WalletCBOR
import WalletCOSE

/// Why an mdoc structure could not be decoded. `code` is stable and used as the reason code of the
/// check that needed the structure.
public struct MdocDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable code, such as `missingField` or a CBOR or COSE error code; checks report it as their reason code.
    public let code: String
    /// What was wrong and in which structure, for people reading reports.
    public let message: String

    /// An error with this code and message.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: CBORError, in structure: String) {
        self.code = error.code.rawValue
        self.message =
            "\(structure): \(error.message.isEmpty ? error.code.rawValue : error.message)" + (error.offset.map { " (at byte \($0))" } ?? "")
    }

    init(_ error: COSEError, in structure: String) {
        self.code = error.code.rawValue
        self.message = "\(structure): \(error.message)"
    }

    /// `MdocDecodingError.<code>: <message>`.
    public var description: String { "MdocDecodingError.\(code): \(message)" }

    /// Equal when the codes are; messages are not compared.
    public static func == (lhs: MdocDecodingError, rhs: MdocDecodingError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only, as equality compares only the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Runs a CBOR decoding step and labels its errors with the structure being decoded.
@inline(__always)
func decoding<T>(_ structure: @autoclosure () -> String, _ body: () throws(CBORError) -> T) throws(MdocDecodingError) -> T {
    // The label is built only when decoding fails.
    do { return try body() } catch { throw MdocDecodingError(error, in: structure()) }
}
