import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR

/// Comparing a response with the request that produced it.
enum RequestMatching {
    /// The (namespace, identifier) pairs the request allows in a response of the given docType.
    static func allowed(_ request: IdentityRequestDescriptor, docType: String) -> Set<String> {
        var allowed = Set<String>()
        for element in request.elements {
            for pair in element.element.identifiers(for: request.document, docType: docType) {
                allowed.insert("\(pair.nameSpace)/\(pair.identifier)")
            }
            if element.atLeast != nil {
                // PassKit answers age(atLeast:) with age_over_NN, or falls back to the age element.
                let ns = IdentityElement.ageNameSpace(docType: docType)
                allowed.insert("\(ns)/age_in_years")
                allowed.insert("\(ns)/birth_date")
            }
        }
        return allowed
    }

    static func isAgeOver(_ identifier: String) -> Int? {
        guard identifier.hasPrefix("age_over_"), let n = Int(identifier.dropFirst("age_over_".count)), identifier.count == "age_over_".count + 2
        else { return nil }
        return n
    }

    static func elementsOutcome(document: VerifiedDocument, request: IdentityRequestDescriptor) -> CheckOutcome {
        guard request.document.docTypes.contains(document.docType) else {
            return .failed(
                .unexpectedDocType,
                "The response is a \(document.docType); the request asked for a \(request.document.rawValue) (\(request.document.docTypes.sorted().joined(separator: " or ")))."
            )
        }
        let allowed = allowed(request, docType: document.docType)
        let ageNameSpace = IdentityElement.ageNameSpace(docType: document.docType)
        let ageRequested = request.elements.contains { $0.atLeast != nil }
        var unrequested: [String] = []
        // Issuer-signed and device-signed elements alike: whatever the response discloses must have
        // been asked for.
        for (signedBy, spaces) in [("", document.issuerSigned), ("device-signed ", document.deviceSigned)] {
            for space in spaces {
                for element in space.elements {
                    let name = "\(space.name)/\(element.identifier)"
                    if allowed.contains(name) { continue }
                    if ageRequested, isAgeOver(element.identifier) != nil, space.name == ageNameSpace { continue }
                    unrequested.append(signedBy + name)
                }
            }
        }
        guard unrequested.isEmpty else {
            return .failed(
                .unrequestedElement, "The response carries elements that were not requested: \(unrequested.joined(separator: ", ")).",
                details: ["unrequested": unrequested.joined(separator: ",")])
        }
        let count = document.issuerSigned.reduce(0) { $0 + $1.elements.count }
        return .passed("All \(count) returned elements were requested.")
    }

    /// How age(atLeast: N) was answered.
    struct AgeAnswer {
        let value: Bool?
        let source: String
    }

    static func age(document: VerifiedDocument, nameSpace: String, minimum: Int, at time: Date? = nil) -> AgeAnswer {
        guard let space = document.issuerSigned.first(where: { $0.name == nameSpace }) else {
            return AgeAnswer(value: nil, source: "none")
        }
        if let exact = space["age_over_\(minimum < 10 ? "0" : "")\(minimum)"], case .bool(let value) = exact {
            return AgeAnswer(value: value, source: "age_over_\(minimum < 10 ? "0" : "")\(minimum)")
        }
        // Another age_over_NN can still decide: true for M ≥ N, false for M ≤ N.
        for element in space.elements {
            guard let m = isAgeOver(element.identifier), case .bool(let value) = element.value else { continue }
            if value && m >= minimum { return AgeAnswer(value: true, source: element.identifier) }
            if !value && m <= minimum { return AgeAnswer(value: false, source: element.identifier) }
        }
        if let years = space["age_in_years"]?.integerValue {
            return AgeAnswer(value: years >= minimum, source: "age_in_years")
        }
        if let birth = space["birth_date"].flatMap(BirthDate.fullDate), let time {
            let today = RFC3339Civil.date(time)
            var age = today.year - birth.year
            if (today.month, today.day) < (birth.month, birth.day) { age -= 1 }
            return AgeAnswer(value: age >= minimum, source: "birth_date")
        }
        return AgeAnswer(value: nil, source: "none")
    }

    /// `identity.request.age`: passes only when the response answers age(atLeast: N) with "yes". A "no"
    /// is a failed check (`ageBelowMinimum`): a caller that reads only the verdict must not admit the
    /// holder. The claims still carry the answer. A `birth_date` answer is computed at the verification
    /// time.
    static func ageOutcome(document: VerifiedDocument, request: IdentityRequestDescriptor, minimum: Int, at time: Date) -> CheckOutcome {
        let answer = age(document: document, nameSpace: IdentityElement.ageNameSpace(docType: document.docType), minimum: minimum, at: time)
        switch answer.value {
        case nil:
            return .failed(
                .ageNotAnswered,
                "age(atLeast: \(minimum)) was requested but the response carries no age_over_NN, age_in_years or birth_date that decides it.")
        case false?:
            return .failed(
                .ageBelowMinimum,
                "The response answers age(atLeast: \(minimum)) with \"no\" (from \(answer.source)): the holder is younger than \(minimum). Do not admit the holder.",
                details: ["source": answer.source])
        case true?:
            return .passed("age(atLeast: \(minimum)) is answered \"yes\" by \(answer.source).", details: ["source": answer.source])
        }
    }
}

/// `birth_date` as ISO 18013-5 sends it (a full-date) or as ISO/IEC 23220-2 does for the photo ID
/// and passports: a map `{"birth_date": full-date, ? "approximate_mask": tstr}`.
enum BirthDate {
    static func fullDate(_ value: ElementValue) -> CBORFullDate? {
        if let date = value.fullDateValue { return date }
        if case .map(let entries) = value, let inner = entries.first(where: { $0.key == "birth_date" })?.value {
            return inner.fullDateValue
        }
        return nil
    }
}
