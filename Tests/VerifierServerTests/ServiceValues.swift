import ApplePayVerifier
import Logging
import MdocVerifier
import VerificationCore
import VerifierServer
import WalletIdentity
import WalletVerifierTestSupport

extension ServiceFixture {
    /// The fixture's keys, IACA and merchant as values (``ServiceMaterial``), without its files.
    func material(applePay: Bool = true) throws -> ServiceMaterial {
        var identityKeys = IdentityKeyRing()
        identityKeys.add(identityKey, label: "identity-key")
        return ServiceMaterial(
            identityKeys: identityKeys, trust: IACATrustStore(certificates: [mdocPKI.iaca]),
            applePayKeys: applePay ? [try merchant.merchantKey()] : [],
            applePayRoot: applePay ? try ApplePayTrustAnchor(certificateDER: ApplePayFixturePKI.der(ApplePayFixturePKI.standard.root)) : nil,
            webKeys: [webKey])
    }
}

extension RouterTests {
    /// The service composed from values (``ServiceFixture/material(applePay:)``): no key, certificate
    /// or trust file is written or read; `change` adjusts the settings (limits, modes) first.
    static func servicesFromValues(
        _ fixture: ServiceFixture, applePay: Bool = true, clock: any VerificationClock = FixedClock(ServiceFixture.time),
        _ change: (inout ServerSettings) -> Void = { _ in }
    ) async throws -> VerifierServices {
        var settings = try ServerSettings.resolve(
            flags: ["store": ["memory"], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID], "webOrigins": [fixture.webOrigin]],
            environment: [:], configFile: nil)
        change(&settings)
        return try await VerifierServices.make(
            settings: settings, material: try fixture.material(applePay: applePay), logger: Logger(label: "test"), clock: clock)
    }
}
