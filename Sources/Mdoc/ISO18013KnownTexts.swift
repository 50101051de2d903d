import WalletCBOR

extension CBORKnownTexts {
    /// Long map keys and names that recur in every ISO/IEC 18013-5 response (IssuerSignedItem,
    /// namespaces, the MSO, DeviceAuthentication): the mdoc decoders read them without allocating.
    public static let iso18013_5 = CBORKnownTexts([
        "elementIdentifier", "org.iso.18013.5.1", "org.iso.18013.5.1.mDL", "keyAuthorizations",
        "MobileSecurityObject", "DeviceAuthentication", "org.iso.23220.photoid.1", "org.iso.23220.1",
    ])
}
