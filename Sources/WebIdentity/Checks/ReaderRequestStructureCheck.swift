import VerificationCore

/// `reader.request.structure`: the DeviceRequest decodes, is version 1.x (1.1 when it carries
/// readerAuthAll or deviceRequestInfo), and carries reader authentication (readerAuth on every
/// DocRequest, or readerAuthAll).
struct ReaderRequestStructureCheck: VerificationCheck {
    /// The encoded DeviceRequest as received; the decoded request when the check passed.
    struct State {
        let bytes: [UInt8]
        var request: ReceivedDeviceRequest?
    }

    var id: CheckID { .readerRequestStructure }

    func evaluate(_ state: inout State, context: VerificationContext) async throws -> CheckOutcome {
        let decoded: ReceivedDeviceRequest
        do { decoded = try ReceivedDeviceRequest(cborBytes: state.bytes) } catch {
            return .failed(.malformedInput, "The DeviceRequest could not be read: \(error).")
        }
        let unsigned = decoded.docRequests.enumerated().filter { $0.element.readerAuth == nil }.map(\.offset)
        if decoded.readerAuthAll.isEmpty && !unsigned.isEmpty {
            return .failed(
                .readerAuthMissing,
                "DocRequest \(unsigned.map(String.init).joined(separator: ", ")) carries no readerAuth and the request has no readerAuthAll: the reader is not authenticated."
            )
        }
        // readerAuthAll and deviceRequestInfo are DeviceRequest 1.1 (second edition); a 1.0 reader
        // would ignore them, so a 1.0 request carrying them is refused rather than half-read.
        let parts = decoded.version.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "1", let minor = Int(parts[1]), parts[1].allSatisfy(\.isASCII) else {
            return .failed(
                .unsupportedVersion,
                "The DeviceRequest version is \"\(decoded.version.prefix(16))\"; versions 1.x are read (1.0, or 1.1 for readerAuthAll).")
        }
        if minor < 1 && (!decoded.readerAuthAll.isEmpty || decoded.deviceRequestInfoBytes != nil) {
            return .failed(
                .unsupportedVersion,
                "The DeviceRequest says version \(decoded.version) but carries \(decoded.readerAuthAll.isEmpty ? "deviceRequestInfo" : "readerAuthAll"), which needs version 1.1 (ISO/IEC 18013-5 second edition); a first-edition wallet ignores it. Send version 1.1."
            )
        }
        state.request = decoded
        let form =
            decoded.readerAuthAll.isEmpty
            ? "readerAuth on each of \(decoded.docRequests.count) DocRequest(s)" : "readerAuthAll (\(decoded.readerAuthAll.count) signature(s))"
        let version = decoded.version
        return .passed("DeviceRequest version \(version) with \(form).")
    }
}
