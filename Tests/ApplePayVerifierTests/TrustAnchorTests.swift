import Crypto
import Foundation
import Testing

@testable import ApplePayVerifier

@Suite struct TrustAnchorTests {
    /// The resource is found next to the test executable, and the compiled-in copy (used when it
    /// is not) is the same certificate.
    @Test func resourceIsFoundAndMatchesTheCompiledInCopy() throws {
        let resource = try #require(ApplePayTrustAnchor.resourcePEM())
        let fromResource = try ApplePayTrustAnchor(fileContents: Array(resource.utf8))
        let embedded = try ApplePayTrustAnchor(fileContents: Array(embeddedAppleRootCAG3PEM.utf8))
        #expect(fromResource.fingerprint == ApplePayTrustAnchor.appleRootCAG3Fingerprint)
        #expect(embedded.fingerprint == ApplePayTrustAnchor.appleRootCAG3Fingerprint)
        #expect(fromResource.isAppleRootCAG3 && embedded.isAppleRootCAG3)
    }

    @Test func aDifferentCertificateIsNotApplesRoot() throws {
        var pem = embeddedAppleRootCAG3PEM
        // Same structure, one byte of the signature changed: a different fingerprint.
        pem = pem.replacingOccurrences(of: "6BgD56KyKA==", with: "6BgD56KyKQ==")
        let anchor = try ApplePayTrustAnchor(fileContents: Array(pem.utf8))
        #expect(!anchor.isAppleRootCAG3)
    }
}
