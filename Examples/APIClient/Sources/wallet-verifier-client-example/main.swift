import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
import WalletVerifierClient

// Drives every verification operation of a running `serve` through the generated client:
//   wallet-verifier-client-example http://127.0.0.1:8080 PATH/TO/TestVectors
// The real vectors' certificates have expired and Apple's identity sample answers a fixed nonce, so
// against a live clock every verdict here is a rejection; what is checked is that each typed request
// is accepted by the server and each typed answer decodes, with the check that decided it.

@main struct Example {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let url = URL(string: arguments[1]) else {
            FileHandle.standardError.write(Data("usage: wallet-verifier-client-example BASE_URL TEST_VECTORS_DIR\n".utf8))
            exit(2)
        }
        let vectors = URL(fileURLWithPath: arguments[2])
        func vector(_ path: String) throws -> Data { try Data(contentsOf: vectors.appendingPathComponent(path)) }
        var failures = 0
        func expect(_ condition: Bool, _ what: String) {
            print((condition ? "ok    " : "FAILED ") + what)
            if !condition { failures += 1 }
        }
        func failedCheck(_ report: Components.Schemas.Report) -> String {
            report.checks.first { $0.status == .failed }.map { "\($0.id) (\($0.reason))" } ?? "none"
        }

        let client = Client(serverURL: url, configuration: .walletVerifier, transport: URLSessionTransport())

        // 1. An identity request, then Apple's sample response for it: the sample answers another nonce.
        let created = try await client.createIdentityRequest(body: .json(.init(descriptor: .init(
            document: .driversLicense,
            elements: [.init(element: .age, atLeast: 21, intentToStore: .case1(.willNotStore)),
                       .init(element: .givenName, intentToStore: .case2(.init(mayStoreDays: 30)))]))))
        let request = try created.created.body.json
        expect(Data(base64Encoded: request.nonce)?.count == 32, "createIdentityRequest: request \(request.requestId), a 32-byte nonce")
        let hex = String(decoding: try vector("mdoc/apple-verify-with-wallet-sample/sample/hpke_envelope.cbor"), as: UTF8.self).filter(\.isHexDigit)
        let envelope = Data(stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! })
        let identity = try await client.verifyIdentity(body: .json(.init(requestId: request.requestId, encryptedData: envelope.base64EncodedString())))
        let identityResult = try identity.ok.body.json
        expect(identityResult.value1.verdict == .rejected && failedCheck(identityResult.value1).hasPrefix("identity.envelope"),
               "verifyIdentity: \(identityResult.value1.verdict.rawValue), decided by \(failedCheck(identityResult.value1))")

        // 2. A web request offering Annex C and OpenID4VP, then the real Chrome capture (Annex C): it
        // was encrypted for another request.
        let web = try await client.createWebRequest(body: .json(.init(docType: "org.iso.18013.5.1.mDL", origin: "https://shop.example",
                                                                      elements: ["org.iso.18013.5.1/age_over_21", "org.iso.18013.5.1/given_name:retain"],
                                                                      protocols: [.orgIsoMdoc, .openid4vpV1Unsigned])))
        let webRequest = try web.created.body.json
        let argument = webRequest.navigatorCredentialsGetArgument.digital.requests
        var annexC = false, openID4VPNonce: String?
        for request in argument {
            switch request {
            case .AnnexCRequest(let annex): annexC = !annex.data.encryptionInfo.isEmpty
            case .OpenID4VPUnsignedRequest(let unsigned):
                openID4VPNonce = unsigned.data.nonce
                expect(unsigned.data.clientMetadata.jwks.keys.first?.alg == .ecdhEs && unsigned.data.responseMode == .dcApi_jwt,
                       "createWebRequest: the OpenID4VP request encrypts its response (dc_api.jwt) to an ECDH-ES key")
            case .OpenID4VPSignedRequest: break
            }
        }
        expect(argument.count == 2 && annexC && openID4VPNonce != nil && webRequest.protocols == [.orgIsoMdoc, .openid4vpV1Unsigned],
               "createWebRequest: request \(webRequest.requestId), an org-iso-mdoc and an openid4vp-v1-unsigned request")
        let credential = try JSONDecoder().decode(Components.Schemas.DigitalCredential.self,
                                                  from: try vector("mdoc/dcapi-annex-c-chrome-android-jmandel/response/wallet-response.digital-credential.json"))
        let webAnswer = try await client.verifyWeb(body: .json(.case1(.init(requestId: webRequest.requestId, credential: credential))))
        let webResult = try webAnswer.ok.body.json
        expect(webResult.value1.verdict == .rejected, "verifyWeb: \(webResult.value1.verdict.rawValue), decided by \(failedCheck(webResult.value1))")
        // An OpenID4VP credential whose JWE no key here opens (five base64url parts, typed as the page posts it).
        let jwe = Components.Schemas.OpenID4VPCredential(_protocol: .openid4vpV1Unsigned, data: .init(response: "e30..AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA"))
        let openAnswer = try await client.verifyWeb(body: .json(.case1(.init(requestId: webRequest.requestId, credential: .OpenID4VPCredential(jwe)))))
        let openResult = try openAnswer.ok.body.json
        expect(openResult.value1.verdict == .rejected && failedCheck(openResult.value1).hasPrefix("web.openid4vp.response"),
               "verifyWeb (OpenID4VP): \(openResult.value1.verdict.rawValue), decided by \(failedCheck(openResult.value1))")

        // 3. Apple's 2014 Apple Pay token: its signature is Apple's, its signing time long past.
        // The vector is the token's paymentData alone (version, data, signature, header).
        let paymentData = try JSONDecoder().decode(Components.Schemas.PaymentData.self, from: try vector("applepay/seatgeek-2014-ec/token.json"))
        // The currency and the amount charged are required (1.00 USD, in minor units).
        let decrypted = try await client.decryptApplePay(body: .json(.case2(.init(paymentData: paymentData, expect: .init(currency: "840", amount: .case1(100))))))
        let payment = try decrypted.ok.body.json
        expect(payment.value1.verdict == .rejected && payment.value2.payment == nil && payment.value2.token?.version == .ecV1,
               "decryptApplePay: \(payment.value1.verdict.rawValue), decided by \(failedCheck(payment.value1)), token \(payment.value2.token?.transactionId.prefix(12) ?? "?")…")

        // 4. ISO/IEC 18013-5 Annex D through /v1/mdoc/verify: its issuer is not a trusted root here.
        let annexD = try await client.verifyMdoc(body: .json(.init(
            deviceResponse: try vector("mdoc/iso18013-5-annex-d/device_response.cbor").base64EncodedString(),
            sessionTranscript: try vector("mdoc/iso18013-5-annex-d/session_transcript_bytes.cbor").base64EncodedString())))
        let mdoc = try annexD.ok.body.json
        expect(mdoc.value1.verdict == .rejected && mdoc.value2.documents?.first?.docType == "org.iso.18013.5.1.mDL",
               "verifyMdoc: \(mdoc.value1.verdict.rawValue), decided by \(failedCheck(mdoc.value1))")

        print(failures == 0 ? "every typed call answered as expected" : "\(failures) failed")
        exit(failures == 0 ? 0 : 1)
    }
}
