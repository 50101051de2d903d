import WalletEncoding
import WalletJSON

extension VerificationReport {
    /// The report's JSON contract (the same members as its `Encodable` form, keys sorted), written
    /// directly: it is on every HTTP answer, where a general-purpose encoder costs more than the
    /// verification. `extra` members are appended after the report's own, their values as given
    /// (for example the decrypted payment exactly as received, or the documents).
    public func json(extra: [(key: String, rawJSON: String)] = []) -> String {
        String(decoding: jsonBytes(extra: extra), as: UTF8.self)
    }

    /// ``json(extra:)`` as UTF-8 bytes, what an HTTP body carries (no `String` is made and read back).
    public func jsonBytes(extra: [(key: String, rawJSON: String)] = []) -> [UInt8] {
        var writer = JSONWriter(capacity: 512 + checks.count * 256)
        writeJSON(into: &writer) { writer in
            for member in extra {
                writer.raw(UInt8(ascii: ","))
                writer.key(member.key)
                writer.raw(member.rawJSON)
            }
        }
        return writer.bytes
    }

    /// As ``jsonBytes(extra:)``, for members held as bytes, each left out when nil: a payment
    /// result's `token` (its non-secret facts) and `payment` (as decrypted).
    public func jsonBytes(appending members: [(name: String, json: [UInt8]?)]) -> [UInt8] {
        var writer = JSONWriter(capacity: 512 + checks.count * 256 + members.reduce(0) { $0 + ($1.json?.count ?? 0) })
        writeJSON(into: &writer) { writer in
            for (name, json) in members {
                guard let json else { continue }
                writer.raw(UInt8(ascii: ","))
                writer.key(name)
                writer.raw(bytes: json)
            }
        }
        return writer.bytes
    }

    /// Writes the report's JSON object into `writer`. `members` may add members after the report's
    /// own, each as `,"key":value` (a result's documents or payment, written straight into the same
    /// buffer).
    public func writeJSON(into writer: inout JSONWriter, members: (inout JSONWriter) -> Void) {
        writer.raw("{\"checks\":[")
        for (offset, check) in checks.enumerated() {
            if offset > 0 { writer.raw(UInt8(ascii: ",")) }
            check.writeJSON(into: &writer)
        }
        writer.raw("],\"evaluatedAt\":")
        writer.string(RFC3339.format(evaluatedAt))
        writer.raw(",\"flow\":")
        writer.string(flow)
        writer.raw(",\"policy\":")
        writer.string(policy)
        writer.raw(",\"testOnly\":")
        writer.bool(testOnly)
        writer.raw(",\"verdict\":")
        writer.string(verdict.rawValue)
        writer.raw(",\"warnings\":[")
        for (offset, warning) in warnings.enumerated() {
            if offset > 0 { writer.raw(UInt8(ascii: ",")) }
            writer.raw("{\"code\":")
            writer.string(warning.code.rawValue)
            writer.raw(",\"message\":")
            writer.string(warning.message)
            if let scope = warning.scope {
                writer.raw(",\"scope\":")
                writer.string(scope)
            }
            writer.raw(UInt8(ascii: "}"))
        }
        writer.raw(UInt8(ascii: "]"))
        members(&writer)
        writer.raw(UInt8(ascii: "}"))
    }
}

extension CheckResult {
    func writeJSON(into writer: inout JSONWriter) {
        // One run of a writer that gives both.
        let (message, details) = text.messageAndDetails
        writer.raw(UInt8(ascii: "{"))
        if !details.isEmpty {
            writer.raw("\"details\":")
            writer.sortedStringObject(details)
            writer.raw(UInt8(ascii: ","))
        }
        writer.raw("\"id\":")
        writer.string(id.rawValue)
        writer.raw(",\"message\":")
        writer.string(message)
        writer.raw(",\"reason\":")
        writer.string(reason.rawValue)
        writer.raw(",\"requirement\":")
        writer.string(requirement.rawValue)
        if let retryable {
            writer.raw(",\"retryable\":")
            writer.bool(retryable)
        }
        if let scope {
            writer.raw(",\"scope\":")
            writer.string(scope)
        }
        writer.raw(",\"status\":")
        writer.string(status.rawValue)
        writer.raw(UInt8(ascii: "}"))
    }
}
