import ArgumentParser
import Foundation
import Testing
import VerifierServer

@testable import WalletVerifierCommands

/// Every command and flag the user docs show exists: the command lines (`wallet-verifier …` in code
/// blocks and code spans, and code spans that start with a command group such as `web request`)
/// name real subcommands with their own flags, and a flag shown alone (`--fetch-timeout`) is a flag
/// of some command. Reads README.md, CONTRIBUTING.md and docs/*.md.
@Suite struct DocumentedCommandsTests {
    /// A command of the CLI: its flags (from its help, hidden ones included) and its subcommands.
    struct Command {
        var flags: Set<String>
        var subcommands: [String: Command]
    }

    static func command(_ type: any ParsableCommand.Type) -> Command {
        let help = WalletVerifierCommand.helpMessage(for: type, includeHidden: true, columns: 100_000)
        var subcommands: [String: Command] = [:]
        for sub in type.configuration.subcommands {
            subcommands[sub._commandName] = command(sub)
        }
        return Command(flags: flags(in: help).union(["--help", "-h"]), subcommands: subcommands)
    }

    static let root = command(WalletVerifierCommand.self)

    static var allFlags: Set<String> {
        var all: Set<String> = []
        func visit(_ command: Command) {
            all.formUnion(command.flags)
            command.subcommands.values.forEach(visit)
        }
        visit(root)
        return all
    }

    /// `--name` tokens of a text (not `---`, not inside a longer word).
    static func flags(in text: String) -> Set<String> {
        var found: Set<String> = []
        let pattern = try! NSRegularExpression(pattern: #"(?<![A-Za-z0-9_-])--[a-z][a-z0-9-]*"#)
        let range = NSRange(text.startIndex..., in: text)
        for match in pattern.matches(in: text, range: range) {
            if let span = Range(match.range, in: text) { found.insert(String(text[span])) }
        }
        return found
    }

    /// The documents users read.
    static func documents() throws -> [(name: String, text: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var names = ["README.md", "CONTRIBUTING.md"]
        let docs = root.appendingPathComponent("docs")
        names += try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try names.map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// Command lines of a document: each line of a fenced block from `wallet-verifier` on (with the
    /// indented lines that continue it), and each code span that starts with `wallet-verifier ` or with
    /// a command group and a space.
    static func commandLines(_ text: String) -> [String] {
        var lines: [String] = []
        var inBlock = false
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let done = current { lines.append(done) }
                current = nil
                inBlock.toggle()
                continue
            }
            if inBlock {
                if let open = current, line.hasPrefix(" ") || line.hasPrefix("\t") || open.hasSuffix("\\") {
                    current = open + " " + line
                    continue
                }
                if let done = current { lines.append(done) }
                current = nil
                if let range = line.range(of: "wallet-verifier ") {
                    let before = line[..<range.lowerBound]
                    // `swift run wallet-verifier …`, `$ wallet-verifier …`, but not a path or a word ending in it.
                    if before.isEmpty || before.hasSuffix(" ") { current = String(line[range.lowerBound...]) }
                }
                continue
            }
            for span in codeSpans(line) {
                if span.hasPrefix("wallet-verifier ") {
                    lines.append(span)
                } else if let first = span.split(separator: " ").first, span.contains(" "), root.subcommands[String(first)] != nil {
                    lines.append("wallet-verifier " + span)
                }
            }
        }
        if let done = current { lines.append(done) }
        return lines
    }

    static func codeSpans(_ line: String) -> [String] {
        let parts = line.split(separator: "`", omittingEmptySubsequences: false)
        return stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
    }

    /// The problems of one command line: an unknown subcommand, or a flag its command does not have.
    static func problems(_ line: String) -> [String] {
        // Words up to the first that is not a subcommand name; a comment ends the line.
        let text = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? line
        var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init).dropFirst()
        var command = root
        var path = "wallet-verifier"
        while let word = words.first, let sub = command.subcommands[word] {
            command = sub
            path += " " + word
            words = words.dropFirst()
        }
        var found: [String] = []
        // A group (the root included) takes no arguments of its own: a next word that looks like a command is not one.
        if !command.subcommands.isEmpty, let word = words.first, word.range(of: #"^[a-z][a-z0-9-]*$"#, options: .regularExpression) != nil {
            found.append("`\(path) \(word)`: \(word) is not a subcommand of \(path)")
        }
        for flag in flags(in: text) where !command.flags.contains(flag) {
            found.append("`\(path)` has no flag \(flag)")
        }
        return found
    }

    @Test func everyDocumentedCommandLineExists() throws {
        var checked = 0
        for (name, text) in try Self.documents() {
            for line in Self.commandLines(text) {
                checked += 1
                for problem in Self.problems(line) {
                    Issue.record("\(name): \(problem) (in: \(line.prefix(160)))")
                }
            }
        }
        // The docs show dozens of command lines; finding none means the reader broke.
        #expect(checked > 40, "\(checked) command lines read")
    }

    /// Flags of other programs the docs show alone: schemathesis's (docs/api.md) and the benchmarks' (docs/performance.md).
    static let otherPrograms: Set<String> = ["--checks", "--seconds"]

    @Test func everyFlagShownAloneIsAFlagOfSomeCommand() throws {
        let all = Self.allFlags.union(Self.otherPrograms)
        var checked = 0
        for (name, text) in try Self.documents() {
            for line in text.split(separator: "\n").map(String.init) {
                for span in Self.codeSpans(line) where span.hasPrefix("--") {
                    guard let flag = Self.flags(in: span).first, span.hasPrefix(flag) else { continue }
                    checked += 1
                    if !all.contains(flag) { Issue.record("\(name): \(flag) is not a flag of any command (in: \(line.prefix(160)))") }
                }
            }
        }
        #expect(checked > 40, "\(checked) flags read")
    }

    /// `serve --help` and docs/service.md name every environment variable a setting is read from.
    @Test func everyEnvironmentVariableIsNamedInTheHelpAndTheServiceDocs() throws {
        let help = WalletVerifierCommand.helpMessage(for: ServeCommand.self, includeHidden: true, columns: 100_000)
        let service = try #require(try Self.documents().first { $0.name == "docs/service.md" }).text
        #expect(ServerSettings.environmentNames.count > 40)
        for (setting, name) in ServerSettings.environmentNames {
            #expect(help.contains(name), "serve --help does not name \(name) (\(setting))")
            let suffix = "`" + name.dropFirst("WALLET_VERIFIER".count) + "`"
            #expect(service.contains(suffix) || service.contains("`\(name)`"), "docs/service.md does not name \(name) (\(setting))")
        }
    }

    /// `serve --help` and `serve --check` say 501 where the service answers 501 (a flow it is not
    /// configured for), never 503 (which would tell a client to retry).
    @Test func notConfiguredIsSaid501() async throws {
        let help = WalletVerifierCommand.helpMessage(for: ServeCommand.self, includeHidden: true, columns: 100_000)
        #expect(help.contains("without one the web endpoints answer 501 (not configured)"), "\(help)")
        #expect(!help.contains("endpoints answer 503"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let check = await WalletVerifierCommand.runCapturing([
            "serve", "--check", "--store", "memory", "--data-dir", directory.path, "--format", "json",
        ])
        let findings = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [[String: String]], "\(check.stderr)")
        let web = try #require(findings.first { $0["check"] == "web-origin" })
        #expect(web["message"]?.contains("answer 501 (not configured)") == true, "\(web)")
    }

    /// The config file's keys are listed in `serve --help` and docs/service.md, and an unknown key
    /// names the nearest known one.
    @Test func everyConfigKeyIsWrittenDownAndATypoNamesTheKey() throws {
        let help = WalletVerifierCommand.helpMessage(for: ServeCommand.self, includeHidden: true, columns: 100_000)
        let service = try #require(try Self.documents().first { $0.name == "docs/service.md" }).text
        #expect(ServerSettings.configKeys.count == ServerSettings.environmentNames.count)
        for key in ServerSettings.configKeys {
            #expect(help.contains(key), "serve --help does not name the config key \(key)")
            #expect(service.contains("`\(key)`"), "docs/service.md does not name the config key \(key)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (typo, meant) in [("identityKey", "identityKeys"), ("truststaleafter", "trustStaleAfter"), ("webOrigin", "webOrigins")] {
            let path = directory.appendingPathComponent("\(typo).json").path
            try Data(#"{"\#(typo)": "x"}"#.utf8).write(to: URL(fileURLWithPath: path))
            #expect {
                try ServerSettings.resolve(flags: [:], environment: [:], configFile: path)
            } throws: { error in
                "\(error)".contains("unknown setting \"\(typo)\"; did you mean \"\(meant)\"?")
            }
        }
        // Nothing near: no guess, a pointer to the list.
        let far = directory.appendingPathComponent("far.json").path
        try Data(#"{"colour": "blue"}"#.utf8).write(to: URL(fileURLWithPath: far))
        #expect {
            try ServerSettings.resolve(flags: [:], environment: [:], configFile: far)
        } throws: { error in
            "\(error)".contains("unknown setting \"colour\" (serve --help lists the keys)")
        }
    }

    /// The reader itself: it finds what it should, and what is wrong in a made-up page.
    @Test func theReaderFindsWrongCommandsAndFlags() {
        let page = """
            Run `web request --origin https://a.example` or `identity request`, then:
            ```sh
            wallet-verifier serve --port 8080 \\
                --no-such-flag
            wallet-verifier applepay verify token.json
            ```
            """
        let lines = Self.commandLines(page)
        #expect(lines.count == 4, "\(lines)")
        let problems = lines.flatMap(Self.problems)
        #expect(problems.contains { $0.contains("--no-such-flag") }, "\(problems)")
        #expect(problems.contains { $0.contains("identity request") }, "\(problems)")
        #expect(problems.contains { $0.contains("applepay verify") }, "\(problems)")
        #expect(!problems.contains { $0.contains("--origin") || $0.contains("--port") }, "\(problems)")
    }
}
