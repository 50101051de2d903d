import WalletJSON

/// A request body: one strict JSON object (duplicate names, invalid UTF-8, trailing content and deep
/// nesting are 400s), with each member's value available parsed or as the bytes received.
struct JSONBody {
    let bytes: [UInt8]
    let object: StrictJSON.Object

    init(bytes: [UInt8]) throws(Problem) {
        let value: StrictJSON.Value
        do {
            value = try StrictJSON.parse(bytes)
        } catch {
            throw Problem.badRequest("the body is not JSON: \(error)")
        }
        guard let object = value.object else { throw Problem.badRequest("the body is not a JSON object") }
        self.bytes = bytes
        self.object = object
    }

    func value(_ name: String) -> StrictJSON.Value? {
        object[name]
    }

    /// The member's value exactly as it was in the body.
    func raw(_ name: String) -> ArraySlice<UInt8>? {
        object.range(of: name).map { bytes[$0] }
    }

    /// Nil when absent (or null); a 400 when present with another type.
    func optionalString(_ name: String) throws(Problem) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.string else { throw Problem.badRequest("/\(name): must be a string") }
        return text
    }
}
