import Foundation
import Testing
import TrustDocuments
import VerificationCore
import WalletVerifierTestSupport

/// The one transport of every trust document speaks of documents, not of one kind of them, and
/// keeps its guarantees (error statuses, no redirects, the byte cap) for all.
@Suite struct TrustDocumentTransportTests {
    static func failure(_ url: String, maximumSize: Int = 1024) async -> TrustDocumentFetchFailure? {
        do {
            _ = try await HTTPTrustDocumentTransport(timeout: 5).fetchDocument(
                URL(string: url)!, maximumSize: maximumSize, accept: "application/json")
            return nil
        } catch { return error as? TrustDocumentFetchFailure }
    }

    @Test func failuresNameTheURLAndNoKindOfDocument() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.set("/big", .init(body: [UInt8](repeating: 0x41, count: 4096)))
        server.set("/moved", .init(status: 302, headers: [("Location", server.url("/big"))]))
        server.set("/keys.json", .init(body: Array(#"{"keys":[]}"#.utf8), headers: [("Cache-Control", "public, max-age=3600")]))
        let missing = try #require(await Self.failure(server.url("/missing")))
        #expect(missing.kind == .unavailable && missing.retryable && missing.message.contains("answered HTTP 404"))
        let moved = try #require(await Self.failure(server.url("/moved")))
        #expect(moved.kind == .unavailable && !moved.retryable && moved.message.contains("redirects are not followed"))
        let big = try #require(await Self.failure(server.url("/big")))
        #expect(big.kind == .tooLarge)
        let down = try #require(await Self.failure(LocalHTTPServer.unreachableURL("/x")))
        #expect(down.kind == .unavailable && down.message.contains("could not be reached"))
        for failure in [missing, moved, big, down] {
            #expect(!failure.message.lowercased().contains("revocation") && !failure.message.lowercased().contains("key list"), "\(failure)")
        }
        let document = try await HTTPTrustDocumentTransport(timeout: 5).fetchDocument(
            URL(string: server.url("/keys.json"))!, maximumSize: 1024, accept: "application/json")
        #expect(document.maxAge == 3600 && document.body == Array(#"{"keys":[]}"#.utf8))
    }

    @Test func durationsAndStaleness() {
        #expect(TrustSourceStatus.parseDuration("7d") == TimeInterval(7 * 86_400))
        #expect(TrustSourceStatus.parseDuration("36h") == TimeInterval(36 * 3_600))
        #expect(TrustSourceStatus.parseDuration("90m") == 5_400)
        #expect(TrustSourceStatus.parseDuration("3600") == 3_600)
        for bad in ["", "d", "-1d", "0h", "7w", "1.5d", "٧d"] { #expect(TrustSourceStatus.parseDuration(bad) == nil, "\(bad)") }
        let nextUpdate = Date(timeIntervalSince1970: 1_700_000_000)
        let source = TrustSourceStatus(kind: .vical, location: "https://vical.example/vical", roots: 3, nextUpdate: nextUpdate)
        let margin: TimeInterval = 7 * 86_400
        #expect(!source.isStale(at: nextUpdate.addingTimeInterval(margin), margin: margin))
        #expect(source.isStale(at: nextUpdate.addingTimeInterval(margin + 1), margin: margin))
        #expect(source.staleness(at: nextUpdate.addingTimeInterval(9 * 86_400), margin: margin)?.contains("by 9 days (more than 7 days)") == true)
        #expect(source.label == "vical:https://vical.example/vical")
        // A file says nothing of its next update: never stale.
        #expect(!TrustSourceStatus(kind: .file, location: "/roots", roots: 1).isStale(at: .distantFuture, margin: 0))
    }
}
