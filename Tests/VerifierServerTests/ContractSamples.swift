import Foundation
import NIOCore
import NIOFoundationEssentialsCompat

/// Accepted answers of the service, kept for the contract test: when `WALLET_VERIFIER_CONTRACT_SAMPLES`
/// names a directory (scripts/test sets it), each is written there as `SCHEMA.NAME.json`, and
/// scripts/api-contract validates it against the OpenAPI document's response schema `SCHEMA`.
/// Generated requests never reach an accepted verdict (it takes a response a wallet signed); these
/// come from fixtures signed in code (own IACA, own Apple Pay root) through the real router.
enum ContractSamples {
    static func record(_ body: ByteBuffer, schema: String, name: String) {
        guard let directory = ProcessInfo.processInfo.environment["WALLET_VERIFIER_CONTRACT_SAMPLES"], !directory.isEmpty else { return }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/\(schema).\(name).json", contents: Data(buffer: body))
    }
}
