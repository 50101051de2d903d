import Testing
import VerificationCore
import WalletVerifierCommands

/// The documented exit codes (``CLIExit``) are the ones the commands return for each verdict.
@Suite struct ExitCodeTests {
    @Test func verdictExitCodesAreTheDocumentedOnes() {
        #expect(Verdict.accepted.exitCode == CLIExit.accepted)
        #expect(Verdict.rejected.exitCode == CLIExit.rejected)
        #expect(Verdict.indeterminate.exitCode == CLIExit.indeterminate)
        #expect(Set([CLIExit.accepted, CLIExit.rejected, CLIExit.usage, CLIExit.indeterminate]).count == 4)
    }
}
