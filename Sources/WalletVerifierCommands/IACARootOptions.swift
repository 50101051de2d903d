import ArgumentParser

/// The IACA roots an mdoc-verifying command trusts: `--trust` roots vouch for any docType,
/// `--trust-doctype` roots only for the docTypes named. Shared by `mdoc verify`, `identity verify` and `web verify`.
struct IACARootOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "A trusted IACA root: a PEM or DER file, a directory, or https://host/path#sha256=HEX (fetched once; must be the self-signed CA certificate with that SHA-256). Repeatable."
    )
    var trust: [String] = []

    @Option(
        name: .long,
        help:
            "DOCTYPE[,DOCTYPE...]=FILE|DIR|URL#sha256=HEX: IACA roots trusted only for these docTypes (e.g. org.iso.23220.photoid.1=passport-roots/). Repeatable."
    )
    var trustDoctype: [String] = []

    /// Fails unless some root is given, here or through a VICAL (`vical`, from ``TrustListOptions``).
    func requireSome(orVICAL vical: String?) throws {
        if trust.isEmpty && trustDoctype.isEmpty && vical == nil {
            throw ValidationError("at least one --trust FILE|DIR, --trust-doctype DOCTYPE=FILE|DIR or --vical FILE is required")
        }
    }
}
