import Testing

@testable import VerifierServer

/// `serve --explain-device-failures`: off by default, on from the flag, the environment or the config file.
@Suite struct ExplainDeviceFailuresSettingTests {
    @Test func offByDefaultAndOnWhenAsked() throws {
        #expect(try ServerSettings.resolve(flags: [:], environment: [:], configFile: nil).explainDeviceFailures == false)
        #expect(try ServerSettings.resolve(flags: ["explainDeviceFailures": ["true"]], environment: [:], configFile: nil).explainDeviceFailures)
        #expect(
            try ServerSettings.resolve(flags: [:], environment: ["WALLET_VERIFIER_EXPLAIN_DEVICE_FAILURES": "true"], configFile: nil)
                .explainDeviceFailures)
        #expect(throws: SettingsError.self) {
            try ServerSettings.resolve(flags: ["explainDeviceFailures": ["maybe"]], environment: [:], configFile: nil)
        }
    }
}
