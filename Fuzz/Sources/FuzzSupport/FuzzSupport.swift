import Foundation
import MdocVerifier
import VerificationCore

// What every target shares: the bridge from libFuzzer's synchronous callback to async verifiers,
// libFuzzer's driver, the count of accepted inputs, and the acceptance oracle for mdoc results.

/// Runs `body` to completion from libFuzzer's synchronous callback.
public func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// What a target runs on each input.
public enum FuzzBody: Sendable {
    /// Run on libFuzzer's thread; libFuzzer checks for leaks after every input.
    case synchronous(@Sendable ([UInt8]) -> Void)
    /// Run to completion in a Task (the verifiers are async); leaks are checked at exit (scripts/fuzz).
    case asynchronous(@Sendable ([UInt8]) async -> Void)
}

/// The body ``runFuzzer(_:_:writeSeeds:prepare:_:)`` installs before libFuzzer starts.
nonisolated(unsafe) private var installedBody: FuzzBody?

/// libFuzzer's per-input callback, the same for every target: copies the input and runs the
/// installed body on it to completion.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch installedBody {
    case .synchronous(let body): body(bytes)
    case .asynchronous(let body): runBlocking { await body(bytes) }
    case nil: fatalError("fuzz: an input arrived before runFuzzer installed the target's body")
    }
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// Hands control to libFuzzer, which runs `body` on each input. SwiftPM links an executable's entry
/// point as `<Target>_main`; each target defines that symbol and calls this. With FUZZ_WRITE_SEEDS=DIR
/// set, a target that has `writeSeeds` writes its seed corpus to DIR instead and returns. `prepare`
/// computes the seed's result before fuzzing starts. At exit the number of inputs that were accepted
/// (with the seed's result) is printed for `scripts/fuzz`.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, writeSeeds: ((String) -> Void)? = nil,
    prepare: () -> Void = {}, _ body: FuzzBody
) -> CInt {
    if let writeSeeds, let directory = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] {
        writeSeeds(directory)
        return 0
    }
    prepare()
    installedBody = body
    atexit {
        FileHandle.standardError.write(Data("fuzz: accepted executions with the seed's result: \(AcceptedInputs.count)\n".utf8))
    }
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzTestOneInput)
}

/// Executions whose verdict was accepted (each already compared with the seed's result).
public enum AcceptedInputs {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var value = 0
    /// Counts an accepted input; with FUZZ_ACCEPTED_DIR set, also keeps it there (the first 500), so the
    /// mutations that were accepted can be compared with the seeds (docs/fuzzing.md).
    public static func record(_ input: [UInt8]) {
        lock.lock()
        value += 1
        let keep = value <= 500 ? directory : nil
        let name = "accepted-\(value)"
        lock.unlock()
        if let keep { FileManager.default.createFile(atPath: keep + "/" + name, contents: Data(input)) }
    }
    private static let directory = ProcessInfo.processInfo.environment["FUZZ_ACCEPTED_DIR"]
    public static var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// The loaded bytes of a file in TestVectors/, relative to this package.
public func testVector(_ path: String, file: StaticString = #filePath) -> [UInt8] {
    let root = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("../../../TestVectors").standardized
    guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else {
        fatalError("fuzz: cannot read TestVectors/\(path)")
    }
    return [UInt8](data)
}

/// Issuer-signed elements of verified documents: "docType|namespace/identifier" → JSON value.
public func disclosedElements(_ documents: [VerifiedDocument]) -> [String: String] {
    var elements: [String: String] = [:]
    for document in documents {
        for space in document.issuerSigned {
            for element in space.elements { elements["\(document.docType)|\(space.name)/\(element.identifier)"] = element.value.json }
        }
    }
    return elements
}

/// The acceptance oracle of the mdoc flows: an accepted result has the seed's docTypes and discloses
/// only elements the seed discloses, with the seed's values. Fewer elements are allowed: items are
/// disclosed selectively and nothing signs which of them a response carries (docs/fuzzing.md).
public func requireSeedResult(
    _ report: VerificationReport, _ documents: [VerifiedDocument], seedDocTypes: [String], seedElements: [String: String], input: [UInt8]
) {
    guard report.verdict == .accepted else { return }
    guard documents.map(\.docType) == seedDocTypes else {
        fatalError("accepted with other documents than the seed's: \(documents.map(\.docType))")
    }
    for (name, value) in disclosedElements(documents) where seedElements[name] != value {
        fatalError("accepted with an element the seed does not disclose, or another value: \(name)")
    }
    AcceptedInputs.record(input)
}

/// Computes a value once with an async body (a seed's verification result), for a global's initialiser.
public func seedResult<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    nonisolated(unsafe) var value: T?
    runBlocking { value = await body() }
    return value!
}

/// Hex text (either case, whitespace ignored) to bytes, for the seeds of the fuzz targets; nil when
/// it is not hex. The package's own hex reader is not public API.
public func hexBytes(_ text: String) -> [UInt8]? {
    let digits = Array(text.unicodeScalars.filter { !$0.properties.isWhitespace })
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(digits[index]) + String(digits[index + 1]), radix: 16) else { return nil }
        out.append(byte)
    }
    return out
}

/// An RFC 3339 time for the fuzz targets' fixed verification times.
public func fixedTime(_ text: String) -> Date {
    try! Date(text, strategy: .iso8601)
}
