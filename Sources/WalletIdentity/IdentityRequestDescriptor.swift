import Foundation
import VerificationCore

/// What the app asked Wallet for, mirroring PassKit's descriptors (`PKIdentityDriversLicenseDescriptor`,
/// `PKIdentityNationalIDCardDescriptor`, the photo ID descriptor) and elements. JSON:
/// `{"document": "driversLicense", "elements": [{"element": "age", "atLeast": 21, "intentToStore": "willNotStore"}, ...]}`.
public struct IdentityRequestDescriptor: Sendable, Hashable, Codable {
    /// The kind of identity document requested, matching PassKit's descriptor classes.
    public enum DocumentKind: String, Sendable, Hashable, Codable, CaseIterable {
        case driversLicense, nationalIDCard, photoID

        /// The mdoc docTypes a response to this descriptor may carry.
        public var docTypes: Set<String> {
            Set(profiles.map(\.docType))
        }

        /// The data-element layouts (one per docType) a response to this descriptor may follow.
        public var profiles: [IdentityElement.Profile] {
            switch self {
            case .driversLicense: return [.mobileDrivingLicence]
            case .nationalIDCard: return [.mobileDrivingLicence, .japanMyNumberCard]
            case .photoID: return [.photoID]
            }
        }
    }

    /// Whether the app may keep a returned element, and for how long, as declared to the user in the Wallet sheet.
    /// JSON: `"willNotStore"`, `"mayStore"` or `{"mayStoreDays": N}`.
    public enum IntentToStore: Sendable, Hashable, Codable, CustomStringConvertible {
        case willNotStore
        case mayStore
        case mayStoreDays(Int)

        /// Decodes the JSON form; throws `DecodingError` for any other shape or a day count outside 1...36500.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                switch text {
                case "willNotStore": self = .willNotStore
                case "mayStore": self = .mayStore
                default:
                    throw DecodingError.dataCorruptedError(
                        in: container,
                        debugDescription: "intentToStore must be \"willNotStore\", \"mayStore\" or {\"mayStoreDays\": N}, found \"\(text)\"")
                }
                return
            }
            struct Days: Codable { var mayStoreDays: Int }
            guard let days = try? container.decode(Days.self) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "intentToStore must be \"willNotStore\", \"mayStore\" or {\"mayStoreDays\": N}")
            }
            guard (1...36_500).contains(days.mayStoreDays) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "mayStoreDays must be from 1 to 36500 (100 years)")
            }
            self = .mayStoreDays(days.mayStoreDays)
        }

        /// Encodes the JSON form that ``init(from:)`` reads.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .willNotStore: try container.encode("willNotStore")
            case .mayStore: try container.encode("mayStore")
            case .mayStoreDays(let days): try container.encode(["mayStoreDays": days])
            }
        }

        /// A short readable form, such as `mayStore(days: 30)`.
        public var description: String {
            switch self {
            case .willNotStore: return "willNotStore"
            case .mayStore: return "mayStore"
            case .mayStoreDays(let days): return "mayStore(days: \(days))"
            }
        }

        /// The JSON text of the value, as embedded in the claims JSON.
        public var json: String {
            switch self {
            case .willNotStore: return "\"willNotStore\""
            case .mayStore: return "\"mayStore\""
            case .mayStoreDays(let days): return "{\"mayStoreDays\":\(days)}"
            }
        }
    }

    /// One requested data element with its storage intent.
    public struct Element: Sendable, Hashable, Codable {
        /// The element asked for.
        public var element: IdentityElement
        /// For `age`: request `age(atLeast:)` (1...125).
        public var atLeast: Int?
        /// What the app declared it will do with the value.
        public var intentToStore: IntentToStore

        /// Creates an element request; `atLeast` is only valid with `.age` (checked by ``IdentityRequestDescriptor/validate()``).
        public init(_ element: IdentityElement, atLeast: Int? = nil, intentToStore: IntentToStore) {
            self.element = element
            self.atLeast = atLeast
            self.intentToStore = intentToStore
        }
    }

    /// The document type the request targets.
    public var document: DocumentKind
    /// The requested elements, in request order.
    public var elements: [Element]
    /// Whether a physical document past its `expiry_date` (at the verification time) fails the
    /// verification. Off by default: `identity.document.expiry` is then advisory (a warning), since an
    /// expired licence may still prove age. JSON `"requireUnexpired": true`.
    public var requireUnexpired: Bool

    /// Creates a descriptor; call ``validate()`` to check it against PassKit's rules.
    public init(document: DocumentKind, elements: [Element], requireUnexpired: Bool = false) {
        self.document = document
        self.elements = elements
        self.requireUnexpired = requireUnexpired
    }

    private enum CodingKeys: String, CodingKey {
        case document, elements, requireUnexpired
    }

    /// Decodes the JSON form; a missing `requireUnexpired` means `false`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        document = try container.decode(DocumentKind.self, forKey: .document)
        elements = try container.decode([Element].self, forKey: .elements)
        requireUnexpired = try container.decodeIfPresent(Bool.self, forKey: .requireUnexpired) ?? false
    }

    /// Encodes the JSON form; `requireUnexpired` is written only when `true`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(document, forKey: .document)
        try container.encode(elements, forKey: .elements)
        if requireUnexpired { try container.encode(true, forKey: .requireUnexpired) }
    }

    /// PassKit's rules: at least one element; `age(atLeast:)` only for 1...125; never both `age` and
    /// `age(atLeast:)`; `atLeast` only on `age`.
    public func validate() throws {
        guard !elements.isEmpty else { throw DescriptorError("the request names no element") }
        for element in elements {
            if let atLeast = element.atLeast {
                guard element.element == .age else {
                    throw DescriptorError("atLeast is only allowed on the age element, not on \(element.element.rawValue)")
                }
                guard (1...125).contains(atLeast) else { throw DescriptorError("age(atLeast: \(atLeast)) is outside 1...125") }
            }
        }
        let plainAge = elements.contains { $0.element == .age && $0.atLeast == nil }
        let ageAtLeast = elements.contains { $0.element == .age && $0.atLeast != nil }
        if plainAge && ageAtLeast { throw DescriptorError("a request cannot contain both age and age(atLeast:)") }
        if elements.filter({ $0.atLeast != nil }).count > 1 { throw DescriptorError("a request can contain one age(atLeast:) element") }
        let unsupported = elements.filter { $0.element.identifiers(for: document).isEmpty }.map(\.element.rawValue)
        if !unsupported.isEmpty {
            throw DescriptorError("\(unsupported.joined(separator: ", ")) cannot be requested from a \(document.rawValue)")
        }
    }

    /// Decodes and validates the JSON form; errors name the problem.
    public static func decode(json data: Data) throws -> IdentityRequestDescriptor {
        let descriptor: IdentityRequestDescriptor
        do {
            descriptor = try JSONDecoder().decode(IdentityRequestDescriptor.self, from: data)
        } catch let error as DecodingError {
            throw DescriptorError(Self.describe(error))
        }
        try descriptor.validate()
        return descriptor
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let components = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return components.isEmpty ? "the request" : String(components.drop { $0 == "." })
        }
        switch error {
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context): return "\(path(context)): missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "the request is not valid JSON of the expected shape"
        }
    }
}

/// A descriptor that fails decoding or PassKit's rules; the description names the problem.
public typealias DescriptorError = CodedError<DescriptorErrorDomain>

/// The domain of ``DescriptorError``: identity request descriptors.
public enum DescriptorErrorDomain: ErrorDomain {
    /// `DescriptorError`.
    public static let name = "DescriptorError"
    /// ``ErrorCode/invalidRequest``.
    public static let defaultCode = ErrorCode.invalidRequest
}
