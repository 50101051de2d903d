import WalletCBOR
import WalletCOSE

/// Why an mdoc structure could not be decoded. `code` is stable and used as the reason code of the
/// check that needed the structure.
public struct MdocDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of error this is: one of the constants here, or the code of the CBOR or COSE error
    /// that stopped decoding. Extensible; compare with the constants.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        /// The code as written in reports and logs.
        public let rawValue: String
        /// A code with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code of the CBOR error that stopped decoding.
        public init(_ code: CBORError.Code) { self.rawValue = code.rawValue }
        /// The code of the COSE error that stopped decoding.
        public init(_ code: COSEError.Code) { self.rawValue = code.rawValue }
        /// The raw value.
        public var description: String { rawValue }

        /// A structure lacks a member it must have.
        public static let missingField = Code(rawValue: "missingField")
        /// A structure has the wrong shape (wrong number of items, members that exclude each other).
        public static let malformedStructure = Code(rawValue: "malformedStructure")
    }

    /// Stable code, such as ``Code/missingField`` or a CBOR or COSE error code; checks report it as their reason code.
    public let code: Code
    /// What was wrong and in which structure, for people reading reports.
    public let message: String

    /// An error with this code and message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: CBORError, in structure: String) {
        self.code = Code(error.code)
        self.message =
            "\(structure): \(error.message.isEmpty ? error.code.rawValue : error.message)" + (error.offset.map { " (at byte \($0))" } ?? "")
    }

    init(_ error: COSEError, in structure: String) {
        self.code = Code(error.code)
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
