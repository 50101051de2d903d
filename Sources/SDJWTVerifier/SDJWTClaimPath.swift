import WalletJSON

/// A claim path of a DCQL query (OpenID4VP 1.0 §7): object member names, array positions, and
/// `null` for every element of an array — `["address", "locality"]`, `["nationalities", null]`,
/// `["age_equal_or_over", "18"]`.
public struct SDJWTClaimPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Element: Sendable, Hashable {
        /// An object member.
        case name(String)
        /// An array position.
        case index(Int)
        /// Every element of an array.
        case all
    }

    /// The steps, from the top level.
    public let elements: [Element]

    /// A path of these steps.
    public init(_ elements: [Element]) { self.elements = elements }

    /// A path of member names only.
    public init(names: [String]) { elements = names.map { .name($0) } }

    /// The path as dotted text (`*` for every element).
    public var description: String {
        elements.map {
            switch $0 {
            case .name(let name): name
            case .index(let index): String(index)
            case .all: "*"
            }
        }.joined(separator: ".")
    }

    /// Whether a disclosed claim at `path` (names and positions as text) lies on this path: on it
    /// (a parent disclosed to reach the claim asked for) or below it (a member of the claim asked for).
    func covers(_ path: [String]) -> Bool {
        for (step, segment) in zip(elements, path) {
            switch step {
            case .name(let name): if name != segment { return false }
            case .index(let index): if String(index) != segment { return false }
            case .all: if Int(segment) == nil { return false }
            }
        }
        return true
    }

    /// The parts of `value` (the claims, from the top) on `paths`: objects keep the members a path
    /// names, arrays the positions a path names (all of them for `null`), and a path's end keeps
    /// everything below it.
    static func select(_ value: StrictJSON.Value, paths: [[Element]]) -> StrictJSON.Value? {
        if paths.contains(where: \.isEmpty) { return value }
        if let object = value.object {
            var kept = StrictJSON.Object()
            for member in object.members {
                let below = paths.compactMap { path -> [Element]? in
                    if case .name(let name) = path[0], name == member.name { return Array(path.dropFirst()) }
                    return nil
                }
                if !below.isEmpty, let selected = select(member.value, paths: below) { _ = kept.insert(member.name, selected) }
            }
            return kept.count == 0 ? nil : .object(kept)
        }
        if let array = value.array {
            var kept: [StrictJSON.Value] = []
            for (position, element) in array.enumerated() {
                let below = paths.compactMap { path -> [Element]? in
                    switch path[0] {
                    case .all: return Array(path.dropFirst())
                    case .index(let index) where index == position: return Array(path.dropFirst())
                    default: return nil
                    }
                }
                if !below.isEmpty, let selected = select(element, paths: below) { kept.append(selected) }
            }
            return kept.isEmpty ? nil : .array(kept)
        }
        return nil
    }
}
