import Testing
import VerificationCore
import WalletIdentity

/// An in-app request names PassKit elements, never strings: every docType, namespace and element
/// identifier they stand for has the ISO/IEC 18013-5 data identifier form the web requests are held to.
@Suite struct IdentityIdentifierFormTests {
    @Test func everyNameAnInAppRequestStandsForIsADataIdentifier() {
        for document in IdentityRequestDescriptor.DocumentKind.allCases {
            for docType in document.docTypes { #expect(DataIdentifier.isValid(docType), "\(docType)") }
            for element in IdentityElement.allCases {
                for (nameSpace, identifier) in element.identifiers(for: document) {
                    #expect(DataIdentifier.isValid(nameSpace) && DataIdentifier.isValid(identifier), "\(nameSpace)/\(identifier)")
                }
            }
        }
    }
}
