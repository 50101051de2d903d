import WalletEncoding

extension ApplePayToken {
    /// Reads the usual token in place, without a JSON tree or a `String` per field: a `paymentData`
    /// object of exactly `version`, `data`, `signature` and `header` (any order), the header holding
    /// only `ephemeralPublicKey` or `wrappedKey`, `publicKeyHash`, `transactionId` and optionally
    /// `applicationData`, every value a string of ASCII (0x20–0x7F) whose only escape is `\/` (which
    /// serializers write into every base64 field), JSON whitespace between the parts.
    ///
    /// Nil for anything else (another member, a duplicate, another escape, non-ASCII, a number or
    /// null, a PKPaymentToken around it) and for any value ``init(json:parsed:)`` refuses: that
    /// reading then decides, with its precise error. It never accepts a token that reading rejects,
    /// and for one both accept the tokens are equal (`ApplePayTokenInPlaceTests` compares them).
    static func readUsual(_ bytes: [UInt8]) -> ApplePayToken? {
        bytes.withUnsafeBufferPointer { input in
            var reader = InPlaceJSONReader(input: input)
            return reader.token()
        }
    }
}

extension InPlaceJSONReader {
    /// The token of ``ApplePayToken/readUsual(_:)``.
    mutating func token() -> ApplePayToken? {
        var version: Text?, data: Text?, signature: Text?
        var ephemeralPublicKey: Text?, wrappedKey: Text?, publicKeyHash: Text?, transactionId: Text?, applicationData: Text?
        var sawHeader = false
        let read = object { name, reader in
            switch name {
            case "version": return reader.stringOnce(&version)
            case "data": return reader.stringOnce(&data)
            case "signature": return reader.stringOnce(&signature)
            case "header":
                guard !sawHeader else { return false }
                sawHeader = true
                return reader.object { name, reader in
                    switch name {
                    case "ephemeralPublicKey": return reader.stringOnce(&ephemeralPublicKey)
                    case "wrappedKey": return reader.stringOnce(&wrappedKey)
                    case "publicKeyHash": return reader.stringOnce(&publicKeyHash)
                    case "transactionId": return reader.stringOnce(&transactionId)
                    case "applicationData": return reader.stringOnce(&applicationData)
                    default: return false
                    }
                }
            default: return false
            }
        }
        guard read, atEnd(), let version, let data, let signature, let publicKeyHash, let transactionId else { return nil }

        guard let tokenVersion = ApplePayTokenVersion(rawValue: string(version)) else { return nil }
        switch tokenVersion {
        case .ecV1: guard ephemeralPublicKey != nil, wrappedKey == nil else { return nil }
        case .rsaV1: guard wrappedKey != nil, ephemeralPublicKey == nil else { return nil }
        }
        guard let dataBytes = base64(data), dataBytes.count >= 16, let signatureBytes = base64(signature) else { return nil }
        var ephemeralKeyBytes: [UInt8]?
        var wrappedKeyBytes: [UInt8]?
        if let ephemeralPublicKey {
            guard let decoded = base64(ephemeralPublicKey) else { return nil }
            ephemeralKeyBytes = decoded
        }
        if let wrappedKey {
            guard let decoded = base64(wrappedKey) else { return nil }
            wrappedKeyBytes = decoded
        }
        let hashText = string(publicKeyHash)
        guard base64(publicKeyHash)?.count == 32 else { return nil }
        let transactionIdText = string(transactionId)
        guard let transactionIdBytes = Hex.decodeStrict(transactionIdText), !transactionIdBytes.isEmpty else { return nil }
        var applicationDataText: String?
        var applicationDataBytes: [UInt8]?
        if let applicationData {
            let text = string(applicationData)
            guard let decoded = Hex.decodeStrict(text) else { return nil }
            applicationDataText = text
            applicationDataBytes = decoded
        }
        return ApplePayToken(
            version: tokenVersion, data: dataBytes, signature: signatureBytes,
            header: ApplePayToken.Header(
                ephemeralPublicKey: ephemeralKeyBytes, wrappedKey: wrappedKeyBytes, publicKeyHash: hashText, transactionId: transactionIdText,
                transactionIdBytes: transactionIdBytes, applicationData: applicationDataText, applicationDataBytes: applicationDataBytes),
            outerTransactionIdentifier: nil, paymentMethod: nil)
    }
}
