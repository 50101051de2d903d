import Testing
import VerificationCore

private enum ExampleDomain: ErrorDomain {
    static let name = "ExampleError"
    static let defaultCode = ErrorCode.invalidInput
}

private enum OtherDomain: ErrorDomain {
    static let name = "OtherError"
    static let defaultCode = ErrorCode.invalidInput
}

private typealias ExampleError = CodedError<ExampleDomain>

@Suite struct CodedErrorTests {
    @Test func equalityAndHashingConsiderTheCodeOnly() {
        let one = ExampleError(.invalidKey, "the key file is empty")
        let other = ExampleError(.invalidKey, "another wording")
        #expect(one == other)
        #expect(Set([one, other]).count == 1)
        #expect(one != ExampleError(.invalidCertificate, "the key file is empty"))
    }

    @Test func theDefaultCodeComesFromTheDomain() {
        #expect(ExampleError("unusable").code == .invalidInput)
    }

    @Test func theThrowingLineIsKeptForDiagnosticsButNotShownToUsers() {
        let line: UInt = #line + 1
        let error = ExampleError(.invalidKey, "the key file is empty")
        #expect(error.location.fileID == #fileID)
        #expect(error.location.line == line)
        #expect(error.description == "the key file is empty")
        #expect(error.debugDescription == "ExampleError.invalidKey: the key file is empty (\(#fileID):\(line))")
    }

    @Test func domainsAreDistinctTypes() {
        let error: any Error = ExampleError("unusable")
        #expect(error is ExampleError)
        #expect(!(error is CodedError<OtherDomain>))
    }
}
