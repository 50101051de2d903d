import X509

/// The country and state (or province) an issuer's distinguished name carries (`C` and `ST`), so a
/// message can say which issuing authority's root is missing in words of its own ("issued in
/// California (ST), US (C)") rather than only inside a distinguished name.
public struct IssuerPlace: Sendable, Equatable {
    /// The `countryName` (C), when present.
    public let country: String?
    /// The `stateOrProvinceName` (ST), when present.
    public let state: String?

    /// The place named by `name`'s C and ST attributes.
    public init(_ name: DistinguishedName) {
        var country: String?, state: String?
        for rdn in name {
            for attribute in rdn {
                if attribute.type == .RDNAttributeType.countryName, country == nil { country = String(describing: attribute.value) }
                if attribute.type == .RDNAttributeType.stateOrProvinceName, state == nil { state = String(describing: attribute.value) }
            }
        }
        self.country = country
        self.state = state
    }

    /// "Its issuer is in the state or province California, country US: add that issuing
    /// authority's IACA root." — or, without either, that the issuer names no country or state.
    public var sentence: String {
        switch (country, state) {
        case (let country?, let state?):
            return "Its issuer is in the state or province \(state), country \(country): add that issuing authority's IACA root."
        case (let country?, nil):
            return "Its issuer is in the country \(country) (it names no state or province): add that issuing authority's IACA root."
        case (nil, let state?):
            return "Its issuer is in the state or province \(state) (it names no country): add that issuing authority's IACA root."
        case (nil, nil):
            return "Its issuer names neither a country nor a state or province."
        }
    }
}
