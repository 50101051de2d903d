import Testing
import WalletVerifierTestSupport

@testable import WebIdentity

/// Whether a returned element was requested does not depend on the order elements come in: the
/// in-order shortcut of the request-elements check gives the plain membership answer every time.
@Suite struct RequestedElementsTests {
    @Test func answersDoNotDependOnOrder() {
        let spaces = ["org.iso.18013.5.1", "org.iso.18013.5.1.aamva", "other"]
        let names = ["family_name", "given_name", "birth_date", "portrait", "age_over_21", "issuing_country", "sex"]
        var random = SeededGenerator(seed: 42)
        for _ in 0..<500 {
            var requested: [WebDocumentRequest.Element] = []
            for space in spaces {
                for name in names where random.next() % 2 == 0 { requested.append(.init(nameSpace: space, identifier: name)) }
            }
            let request = WebDocumentRequest(docType: "org.iso.18013.5.1.mDL", elements: requested)
            // Returned: the requested ones in order, shuffled, or mixed with unrequested ones, repeats included.
            var returned: [(String, String)] = requested.map { ($0.nameSpace, $0.identifier) }
            switch random.next() % 3 {
            case 0: break
            case 1: returned.shuffle(using: &random)
            default:
                for _ in 0..<4 {
                    let element = (spaces[Int(random.next() % 3)], names[Int(random.next() % UInt64(names.count))])
                    returned.insert(element, at: Int(random.next() % UInt64(returned.count + 1)))
                }
            }
            var cursor = 0
            for (space, name) in returned {
                let expected = requested.contains { $0.nameSpace == space && $0.identifier == name }
                #expect(request.allows(nameSpace: space, identifier: name, from: &cursor) == expected, "\(space)/\(name)")
                #expect(request.allows(nameSpace: space, identifier: name) == expected)
            }
        }
    }
}
