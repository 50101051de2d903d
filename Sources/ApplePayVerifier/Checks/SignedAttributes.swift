import VerificationCore

/// Reads one single-valued signed attribute, turning every way it can be wrong into a check outcome.
enum SignedAttributes {
    enum Lookup {
        /// The value's whole element, as received.
        case value(ArraySlice<UInt8>)
        case problem(CheckOutcome)
    }

    static func single(_ type: RawOID, name: String, in signer: CMSSignerInfo) -> Lookup {
        guard signer.signedAttributesReceived != nil else {
            return .problem(
                .failed(.missingSignedAttributes, "The SignerInfo has no signed attributes; Apple signs contentType, signingTime and messageDigest"))
        }
        // The first attribute of this type and how many there are, without collecting them.
        var first: CMSAttribute?
        var count = 0
        for attribute in signer.signedAttributes where attribute.type == type {
            if count == 0 { first = attribute }
            count += 1
        }
        guard let attribute = first else {
            return .problem(.failed(.missingAttribute, "The signed attributes have no \(name) attribute"))
        }
        guard count == 1 else {
            return .problem(.failed(.duplicateAttribute, "The signed attributes have \(count) \(name) attributes; exactly one is allowed"))
        }
        guard attribute.values.count == 1, let value = attribute.values.first else {
            return .problem(.failed(.malformedAttribute, "The \(name) attribute has \(attribute.values.count) values; exactly one is allowed"))
        }
        return .value(value)
    }
}
