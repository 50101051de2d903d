extension CheckRunner {
    /// A runner that continues a finished report: its checks and warnings are recorded first, so
    /// checks added afterwards can name them as prerequisites (revocation after an in-app or web
    /// verification, for example). `prefix` results (a trust list's checks) come before them.
    public static func resuming(
        _ report: VerificationReport, policy: VerificationPolicy, context: VerificationContext, prefix: [CheckResult] = [],
        prefixWarnings: [ReportWarning] = []
    ) -> CheckRunner {
        var runner = CheckRunner(policy: policy, context: context)
        for result in prefix { runner.record(result) }
        for warning in prefixWarnings { runner.warn(warning.code, warning.message, scope: warning.scope) }
        for result in report.checks { runner.record(result) }
        for warning in report.warnings { runner.warn(warning.code, warning.message, scope: warning.scope) }
        return runner
    }
}
