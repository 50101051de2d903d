// Benchmarks: they measure and print; they never pass or fail on time.
// Usage: swift run -c release --package-path Benchmarks wallet-verifier-bench [mdoc|identity|applepay|applepay-stages|googlepay|sdjwt|openid4vp|service|store|mdoc-stages|identity-stages|openid4vp-stages|mdoc-profile|parallel|all] [--seconds N]
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let which = arguments.first { !$0.hasPrefix("--") } ?? "all"
let seconds = arguments.firstIndex(of: "--seconds").flatMap { Double(arguments[safe: $0 + 1] ?? "") } ?? 3

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

switch which {
case "mdoc": try await MdocBenchmark.run(seconds: seconds)
case "identity": try await IdentityBenchmark.run(seconds: seconds)
case "mdoc-stages": try await MdocStages.run(seconds: seconds)
case "identity-stages": try await IdentityStages.run(seconds: seconds)
case "openid4vp": try await OpenID4VPBenchmark.run(seconds: seconds)
case "openid4vp-stages": try await OpenID4VPStages.run(seconds: seconds)
case "mdoc-profile": try await MdocBenchmark.profile(seconds: seconds)
case "applepay": try await ApplePayBenchmark.run(seconds: seconds)
case "applepay-stages": try await ApplePayStages.run(seconds: seconds)
case "googlepay": try await GooglePayBenchmark.run(seconds: seconds)
case "sdjwt": try await SDJWTBenchmark.run(seconds: seconds)
case "service": try await ServiceLoadBenchmark.run(seconds: seconds)
case "store": try await StoreBenchmark.run(seconds: seconds)
case "parallel": try await ParallelBenchmark.run(seconds: seconds)
case "all":
    try await MdocBenchmark.run(seconds: seconds)
    try await IdentityBenchmark.run(seconds: seconds)
    try await ApplePayBenchmark.run(seconds: seconds)
    try await GooglePayBenchmark.run(seconds: seconds)
    try await OpenID4VPBenchmark.run(seconds: seconds)
    try await SDJWTBenchmark.run(seconds: seconds)
default:
    print(
        "unknown benchmark \(which); available: mdoc, identity, applepay, applepay-stages, googlepay, sdjwt, openid4vp, service, store, parallel, mdoc-stages, identity-stages, openid4vp-stages, mdoc-profile, all"
    )
    exit(2)
}
