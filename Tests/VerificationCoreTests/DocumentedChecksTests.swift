import Foundation
import Testing

/// Every check id and reason code the sources declare or return is documented in docs/checks.md,
/// docs/applepay.md or docs/googlepay.md, so a reader of a report can always look its id and reason up.
@Suite struct DocumentedChecksTests {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    static func sources() throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var files: [(String, String)] = []
        for case let path as String in walker where path.hasSuffix(".swift") {
            // Test fixtures and benchmarks make no verdicts.
            if path.hasPrefix("WalletVerifierTestSupport/") || path.hasPrefix("wallet-verifier-bench/") { continue }
            files.append((path, try String(contentsOf: base.appendingPathComponent(path), encoding: .utf8)))
        }
        return files
    }

    static func matches(_ pattern: String, in text: String) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// Every string literal made only of letters inside the reason argument of a check outcome —
    /// `.failed(`, `.error(`, `.skipped(`, `reason:` of a `CheckOutcome` or `CheckResult`, a `ReasonCode` declaration or
    /// `ReasonCode = …` — wherever it stands in that expression: `"x"`, `a ? "x" : "y"`, `(b ? "x" : "y")`.
    static func reasonLiterals(in text: String) throws -> [String] {
        // The reason is the first argument: everything up to the first comma or the closing
        // parenthesis, nested parentheses included (a ReasonCode variable ends at the line's end).
        let expressions =
            try matches(#"\.(?:failed|error|skipped)\(((?:[^,()]|\([^()]*\))*)"#, in: text)
            + matches(#"(?:CheckOutcome|CheckResult)\([^)]*?reason:((?:[^,()]|\([^()]*\))*)"#, in: text)
            + matches(#"ReasonCode\s*=([^,\n]*)"#, in: text)
        return try expressions.flatMap { try matches(#""([A-Za-z]+)""#, in: $0) }
    }

    @Test func ternaryReasonLiteralsAreFound() throws {
        let sample = """
            let reason: ReasonCode = !a ? "digestMismatch" : (!b ? "digestMissing" : "duplicateDigestID")
            return .failed(
                time < start ? "certificateNotYetValid" : "certificateExpired", "Certificate \\(n) is not valid.")
            return .failed(.constant, "Message")
            """
        #expect(
            try Set(Self.reasonLiterals(in: sample))
                == ["digestMismatch", "digestMissing", "duplicateDigestID", "certificateNotYetValid", "certificateExpired"])
    }

    @Test func everyCheckIDAndReasonCodeIsDocumented() throws {
        let docs = try ["docs/checks.md", "docs/applepay.md", "docs/googlepay.md"].map {
            try String(contentsOf: Self.root.appendingPathComponent($0), encoding: .utf8)
        }
        .joined()
        var ids: [String: String] = [:], reasons: [String: String] = [:]
        for (path, text) in try Self.sources() {
            for id in try Self.matches(#"CheckID\s*=\s*"([^"]+)""#, in: text) { ids[id] = path }
            for pattern in [
                #"ReasonCode\s*=\s*"([^"]+)""#, #"\.(?:failed|error)\(\s*"([A-Za-z]+)""#, #"CheckOutcome\([^)]*reason:\s*"([A-Za-z]+)""#,
                #"RevocationFailure\(\s*"([A-Za-z]+)""#,
            ] {
                for reason in try Self.matches(pattern, in: text) { reasons[reason] = path }
            }
            for reason in try Self.reasonLiterals(in: text) { reasons[reason] = path }
        }
        #expect(ids.count > 50 && reasons.count > 100, "the scan found \(ids.count) ids and \(reasons.count) reasons")
        for (id, path) in ids.sorted(by: { $0.key < $1.key }) {
            #expect(docs.contains("`\(id)`"), "check id \(id) (\(path)) is not in docs/checks.md, docs/applepay.md or docs/googlepay.md")
        }
        for (reason, path) in reasons.sorted(by: { $0.key < $1.key }) {
            #expect(docs.contains("`\(reason)`"), "reason code \(reason) (\(path)) is not in docs/checks.md, docs/applepay.md or docs/googlepay.md")
        }
    }

    /// Reason codes are constants beside each module's check ids (`MdocCheckIDs.swift`,
    /// `IdentityCheckIDs.swift`, `WebCheckIDs.swift`, `ApplePayCheckIDs.swift`, `GooglePayCheckIDs.swift`, `CheckID.swift`), never string
    /// literals where a check returns them: one name per code, found from any use in one hop.
    @Test func reasonCodesAreConstants() throws {
        var literals: [String] = []
        for (path, text) in try Self.sources() {
            for pattern in [
                #"\.(?:failed|error|skipped)\(\s*"([A-Za-z]+)""#, #"RevocationFailure\(\s*"([A-Za-z]+)""#, #"ReasonCode\(\s*"([A-Za-z]+)""#,
            ] {
                literals += try Self.matches(pattern, in: text).map { "\(path): \($0)" }
            }
            // A declaration `static let x: ReasonCode = "x"` is the constant itself.
            let uses = text.split(separator: "\n").filter { !$0.contains("static let ") }.joined(separator: "\n")
            let inExpressions = try Self.reasonLiterals(in: uses)
            literals += inExpressions.map { "\(path): \($0)" }
        }
        #expect(literals.isEmpty, "reason codes written as string literals: \(literals.joined(separator: ", "))")
    }

    /// Check messages are sentences for people: they start with a capital letter, or with the name of
    /// what they are about as written in the data (`x5chain`, `header.transactionId`, `age(atLeast: 21)`).
    @Test func checkMessagesStartAsSentences() throws {
        let identifiersAsWords: Set<String> = ["data", "header", "version"]
        var lowercase: [String] = []
        for (path, text) in try Self.sources() where !path.hasPrefix("VerifierServer/") && !path.hasPrefix("WalletVerifierCommands/") {
            for pattern in [
                #"\.(?:failed|error|skipped)\(\s*\.[A-Za-z]+\s*,\s*"([a-z]+) "#, #"\.(?:passed|notApplicable)\(\s*"([a-z]+) "#,
                #"(?:ApplePayTokenError|DecryptionError|OperationalError|RevocationFailure)\(\s*\.[A-Za-z]+\s*,\s*"([a-z]+) "#,
            ] {
                lowercase += try Self.matches(pattern, in: text).filter { !identifiersAsWords.contains($0) }.map { "\(path): \($0) …" }
            }
        }
        #expect(lowercase.isEmpty, "check messages that start in lower case: \(lowercase.joined(separator: ", "))")
    }
}
