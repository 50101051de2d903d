import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR

/// Comparing a response with the request that produced it.
enum RequestMatching {
    /// A returned element's namespace and identifier, as a set member: no `namespace/identifier`
    /// text is built for the elements that were requested.
    struct ElementKey: Hashable {
        let nameSpace: String
        let identifier: String
    }

    /// The (namespace, identifier) pairs the request allows in a response of the given docType.
    static func allowed(_ request: IdentityRequestDescriptor, docType: String) -> Set<ElementKey> {
        var allowed = Set<ElementKey>()
        for element in request.elements {
            for pair in element.element.identifiers(for: request.document, docType: docType) {
                allowed.insert(ElementKey(nameSpace: pair.nameSpace, identifier: pair.identifier))
            }
            if element.atLeast != nil {
                // PassKit answers age(atLeast:) with age_over_NN, or falls back to the age element.
                let ns = IdentityElement.ageNameSpace(docType: docType)
                allowed.insert(ElementKey(nameSpace: ns, identifier: "age_in_years"))
                allowed.insert(ElementKey(nameSpace: ns, identifier: "birth_date"))
                allowed.insert(ElementKey(nameSpace: ns, identifier: "age_birth_year"))
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
                    if allowed.contains(ElementKey(nameSpace: space.name, identifier: element.identifier)) { continue }
                    if ageRequested, isAgeOver(element.identifier) != nil, space.name == ageNameSpace { continue }
                    unrequested.append(signedBy + "\(space.name)/\(element.identifier)")
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
        guard let time else { return AgeAnswer(value: nil, source: "none") }
        let today = RFC3339Civil.date(time)
        let birthYear = space["age_birth_year"]?.integerValue.flatMap { (0...9999).contains($0) ? Int($0) : nil }
        // A birth date decides only when every date its approximate_mask allows gives the same answer.
        if let birth = space["birth_date"], let bounds = BirthDate.bounds(birth, birthYear: birthYear) {
            let source = bounds.yearFromAgeBirthYear ? "birth_date+age_birth_year" : "birth_date"
            if let answer = decide(today: today, earliest: bounds.earliest, latest: bounds.latest, minimum: minimum) {
                return AgeAnswer(value: answer, source: source)
            }
        }
        // age_birth_year alone: the holder is today.year − Y or one less.
        if let birthYear, let answer = decide(today: today, earliest: (birthYear, 1, 1), latest: (birthYear, 12, 31), minimum: minimum) {
            return AgeAnswer(value: answer, source: "age_birth_year")
        }
        return AgeAnswer(value: nil, source: "none")
    }

    /// Whether someone born between `earliest` and `latest` (year, month, day) is at least `minimum`
    /// years old on `today`: true or false when every date in the range gives that answer, nil otherwise.
    static func decide(
        today: (year: Int, month: Int, day: Int), earliest: (Int, Int, Int), latest: (Int, Int, Int), minimum: Int
    ) -> Bool? {
        func age(_ birth: (Int, Int, Int)) -> Int {
            today.year - birth.0 - ((today.month, today.day) < (birth.1, birth.2) ? 1 : 0)
        }
        if age(latest) >= minimum { return true }
        if age(earliest) < minimum { return false }
        return nil
    }

    /// `identity.request.age`: passes only when the response answers age(atLeast: N) with "yes". A "no"
    /// is a failed check (`ageBelowMinimum`): a caller that reads only the verdict must not admit the
    /// holder. The claims still carry the answer. A `birth_date` answer is computed at the verification
    /// time, and only when its approximate_mask (ISO/IEC 23220-2) leaves the answer certain;
    /// `age_birth_year` answers when it settles the question.
    static func ageOutcome(document: VerifiedDocument, request: IdentityRequestDescriptor, minimum: Int, at time: Date) -> CheckOutcome {
        let answer = age(document: document, nameSpace: IdentityElement.ageNameSpace(docType: document.docType), minimum: minimum, at: time)
        switch answer.value {
        case nil:
            return .failed(
                .ageNotAnswered,
                "age(atLeast: \(minimum)) was requested but the response carries no age_over_NN, age_in_years, birth_date or age_birth_year that decides it"
                    + (BirthDate.isApproximate(document, nameSpace: IdentityElement.ageNameSpace(docType: document.docType))
                        ? " (the birth date is approximate: its approximate_mask leaves the answer open)." : "."))
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
/// and passports: a map `{"birth_date": full-date, ? "approximate_mask": tstr}`. The mask has 8
/// characters, '0' or '1', one per digit of the date written YYYYMMDD; '1' marks a digit that is
/// approximate (unknown), e.g. "00001111" for a date of which only the year is known.
enum BirthDate {
    static func fullDate(_ value: ElementValue) -> CBORFullDate? {
        if let date = value.fullDateValue { return date }
        if case .map(let entries) = value, let inner = entries.first(where: { $0.key == "birth_date" })?.value {
            return inner.fullDateValue
        }
        return nil
    }

    /// The approximate_mask of a nested birth_date, as sent (text); nil when absent or not text.
    static func approximateMask(_ value: ElementValue) -> String? {
        guard case .map(let entries) = value else { return nil }
        return entries.first(where: { $0.key == "approximate_mask" })?.value.stringValue
    }

    /// Whether the namespace's birth_date carries an approximate_mask with an approximate digit (or
    /// one that cannot be read).
    static func isApproximate(_ document: VerifiedDocument, nameSpace: String) -> Bool {
        guard let space = document.issuerSigned.first(where: { $0.name == nameSpace }), let value = space["birth_date"],
            case .map(let entries) = value, let mask = entries.first(where: { $0.key == "approximate_mask" })?.value
        else { return false }
        return mask.stringValue?.contains("1") ?? true
    }

    /// The earliest and latest (year, month, day) a birth_date allows. An approximate year digit
    /// ranges over 0–9; an approximate month digit makes the month any of the year's, an approximate
    /// day digit any day of the month (bounds wider than the truth only leave more answers open).
    /// `birthYear` (age_birth_year) settles an approximate year when it lies in the allowed range.
    /// Nil when there is no date, or the mask is not 8 '0'/'1' characters (nothing can be decided).
    static func bounds(_ value: ElementValue, birthYear: Int?) -> (
        earliest: (Int, Int, Int), latest: (Int, Int, Int), yearFromAgeBirthYear: Bool
    )? {
        guard let date = fullDate(value), (0...9999).contains(date.year) else { return nil }
        var approximate = [Bool](repeating: false, count: 8)
        if case .map(let entries) = value, let maskValue = entries.first(where: { $0.key == "approximate_mask" })?.value {
            guard let mask = maskValue.stringValue, mask.utf8.count == 8, mask.utf8.allSatisfy({ $0 == 0x30 || $0 == 0x31 }) else {
                return nil
            }
            approximate = mask.utf8.map { $0 == 0x31 }
        }
        var (minYear, maxYear) = (0, 0)
        var divisor = 1000
        for position in 0..<4 {
            let digit = (date.year / divisor) % 10
            minYear = minYear * 10 + (approximate[position] ? 0 : digit)
            maxYear = maxYear * 10 + (approximate[position] ? 9 : digit)
            divisor /= 10
        }
        var fromBirthYear = false
        if minYear != maxYear, let birthYear, (minYear...maxYear).contains(birthYear) {
            (minYear, maxYear) = (birthYear, birthYear)
            fromBirthYear = true
        }
        let months = approximate[4] || approximate[5] ? (1, 12) : (date.month, date.month)
        let days = approximate[6] || approximate[7] ? (1, 31) : (date.day, date.day)
        return ((minYear, months.0, days.0), (maxYear, months.1, days.1), fromBirthYear)
    }
}
