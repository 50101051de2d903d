import Foundation
import MdocVerifier
import Testing
import TrustDocuments
import VerificationCore
import WalletVerifierTestSupport
import X509

/// Pinned downloads of single roots (`--trust https://host/path#sha256=HEX`): fetched from a real
/// loopback server, checked against the pin, kept in the store; every way to be wrong refused with
/// the URL and both fingerprints named.
@Suite struct PinnedRootTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func pem(_ certificate: Certificate) throws -> [UInt8] { TrustRootFixtures.pem(certificate) }

    @Test func anEntryMustCarryAWellFormedPinAndAFetchableURL() throws {
        let pin = String(repeating: "ab", count: 32)
        let parsed = try PinnedRoot.parse("https://dmv.example/iaca.pem#sha256=\(pin.uppercased())")
        #expect(parsed == PinnedRoot(url: "https://dmv.example/iaca.pem", pin: pin))
        for (value, saying) in [
            ("https://dmv.example/iaca.pem", "needs its SHA-256 pin"),
            ("https://dmv.example/iaca.pem#sha1=\(pin)", "must be sha256=HEX"),
            ("https://dmv.example/iaca.pem#sha256=abcd", "not 64 hex digits"),
            ("https://dmv.example/iaca.pem#sha256=\(String(repeating: "zz", count: 32))", "not 64 hex digits"),
            ("http://dmv.example/iaca.pem#sha256=\(pin)", "only https"),
        ] {
            #expect {
                try PinnedRoot.parse(value)
            } throws: { error in
                guard let failure = error as? PinnedRootFailure else { return false }
                return failure.kind == .invalidEntry && failure.description.contains(saying)
            }
        }
        // In --trust-doctype, the docTypes come first and the pinned URL after the first "=".
        let entries = try TrustRootEntry.parse(trust: [], scoped: ["org.iso.18013.5.1.mDL=https://dmv.example/iaca.pem#sha256=\(pin)"])
        #expect(entries.first?.pinned?.pin == pin && entries.first?.docTypes == ["org.iso.18013.5.1.mDL"])
        #expect(throws: PinnedRootFailure.self) { try TrustRootEntry.parse(trust: ["https://dmv.example/iaca.pem"], scoped: []) }
    }

    @Test func aPinnedRootIsFetchedCheckedAndKeptInTheStore() async throws {
        let pki = try MdocPKI()
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.set("/iaca.pem", .init(body: try Self.pem(pki.iaca)))
        let root = PinnedRoot(url: server.url("/iaca.pem"), pin: IACATrustStore.sha256(pki.iaca))
        let store = InMemoryDocumentCache()
        let source = PinnedRootSource(transport: HTTPTrustDocumentTransport(timeout: 5))
        let loaded = try await source.load(root, store: store, now: Self.now)
        #expect(loaded.certificate == pki.iaca && !loaded.fromStore)
        #expect(loaded.provenance == .url(root.url, pin: root.pin, fetchedAt: Self.now))
        #expect(try await store.cachedDocument(root.cacheKey) != nil)

        // The same process again (a reload): its own copy, no fetch.
        #expect(try await source.load(root, store: store, now: Self.now).certificate == pki.iaca)
        #expect(server.requestedPaths == ["/iaca.pem"])
        // Another instance on the same store while the publisher is down: the kept copy, no fetch.
        server.stop()
        let again = try await PinnedRootSource(transport: HTTPTrustDocumentTransport(timeout: 5)).load(
            root, store: store, now: Self.now.addingTimeInterval(3600))
        #expect(again.fromStore && again.certificate == pki.iaca && again.provenance.fetchedAt == Self.now)
        // Without the store, the same outage is `unavailable` (the service starts without the root).
        await #expect {
            try await PinnedRootSource(transport: HTTPTrustDocumentTransport(timeout: 5)).load(root, store: InMemoryDocumentCache(), now: Self.now)
        } throws: { error in
            (error as? PinnedRootFailure)?.kind == .unavailable && "\(error)".contains(root.url)
        }
    }

    @Test func aWrongPinIsRefusedNamingBothFingerprints() async throws {
        let pki = try MdocPKI(), other = try MdocPKI()
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.set("/iaca.pem", .init(body: try Self.pem(pki.iaca)))
        let wrongPin = IACATrustStore.sha256(other.iaca)
        let root = PinnedRoot(url: server.url("/iaca.pem"), pin: wrongPin)
        let store = InMemoryDocumentCache()
        await #expect {
            try await PinnedRootSource(transport: HTTPTrustDocumentTransport(timeout: 5)).load(root, store: store, now: Self.now)
        } throws: { error in
            guard let failure = error as? PinnedRootFailure else { return false }
            return failure.kind == .invalidRoot && failure.description.contains(root.url) && failure.description.contains(wrongPin)
                && failure.description.contains(IACATrustStore.sha256(pki.iaca))
        }
        // Nothing refused is kept.
        #expect(try await store.cachedDocument(root.cacheKey) == nil)
    }

    @Test func onlyOneSelfSignedCACertificateIsARoot() throws {
        let pki = try MdocPKI()
        // The document signer: right pin, but not self-signed.
        let signer = PinnedRoot(url: "https://dmv.example/ds.pem", pin: IACATrustStore.sha256(pki.ds))
        #expect {
            try PinnedRootSource.verify(try Self.pem(pki.ds), against: signer, at: Self.now)
        } throws: { error in
            (error as? PinnedRootFailure)?.kind == .invalidRoot && "\(error)".contains("not self-signed")
        }
        // Two certificates in the file.
        let both = PinnedRoot(url: "https://dmv.example/both.pem", pin: IACATrustStore.sha256(pki.iaca))
        #expect {
            try PinnedRootSource.verify(try Self.pem(pki.iaca) + Self.pem(pki.ds), against: both, at: Self.now)
        } throws: { error in
            "\(error)".contains("serves 2 certificates")
        }
        // Not a certificate at all.
        #expect(throws: PinnedRootFailure.self) {
            try PinnedRootSource.verify(Array("<html>moved</html>".utf8), against: both, at: Self.now)
        }
        // The right one, in DER too.
        #expect(try PinnedRootSource.verify(TrustRootFixtures.der(pki.iaca), against: both, at: Self.now) == pki.iaca)
    }

    @Test func aSelfSignedCertificateThatIsNotACAIsRefused() throws {
        let leaf = try TrustRootFixtures.selfSignedLeaf()
        let root = PinnedRoot(url: "https://dmv.example/leaf.pem", pin: IACATrustStore.sha256(leaf))
        #expect {
            try PinnedRootSource.verify(try Self.pem(leaf), against: root, at: Self.now)
        } throws: { error in
            (error as? PinnedRootFailure)?.kind == .invalidRoot && "\(error)".contains("not a CA certificate")
        }
    }

    @Test func urlEntriesLoadIntoTheTrustStoreWithTheirProvenance() async throws {
        let pki = try MdocPKI()
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.set("/iaca.pem", .init(body: try Self.pem(pki.iaca)))
        let pin = IACATrustStore.sha256(pki.iaca)
        let entries = try TrustRootEntry.parse(
            trust: [server.url("/iaca.pem") + "#sha256=" + pin, LocalHTTPServer.unreachableURL("/gone.pem") + "#sha256=" + pin],
            scoped: ["org.iso.23220.photoid.1=\(server.url("/iaca.pem"))#sha256=\(pin)"])
        var store = IACATrustStore()
        let statuses = try await TrustRootEntry.loadURLs(
            entries, into: &store, source: PinnedRootSource(transport: HTTPTrustDocumentTransport(timeout: 5)), documentStore: nil, now: Self.now)
        #expect(store.anchors.count == 2)
        #expect(store.anchors.map(\.docTypes) == [nil, ["org.iso.23220.photoid.1"]])
        #expect(store.anchors.allSatisfy { $0.provenance.kind == .url && $0.provenance.pin == pin && $0.sha256 == pin })
        #expect(statuses.map(\.roots) == [1, 0, 1])
        #expect(statuses[1].problem?.contains("could not be fetched") == true)
    }
}
