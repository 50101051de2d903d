import Foundation

extension ApplePayPaymentData {
    /// Reads the usual decrypted payment data in place (see ``InPlaceJSONReader``): an object of
    /// `applicationPrimaryAccountNumber`, `applicationExpirationDate`, `currencyCode`,
    /// `transactionAmount` (a whole number), `paymentDataType` and `paymentData` (an object of
    /// `onlinePaymentCryptogram`, `eciIndicator`, `emvData`, `encryptedPINData`), with optionally
    /// `cardholderName`, `deviceManufacturerIdentifier` and `merchantTokenIdentifier`; every string
    /// ASCII.
    ///
    /// Nil for anything else (another member such as `authenticationResponses`, a null, a name with
    /// non-ASCII letters, an amount with a fraction): ``init(json:)`` then reads it, and decides. What
    /// both read, they read the same (`ApplePayPaymentDataInPlaceTests` compares them).
    static func readUsual(_ bytes: [UInt8]) -> ApplePayPaymentData? {
        let fields: Fields? = bytes.withUnsafeBufferPointer { input in
            var reader = InPlaceJSONReader(input: input)
            return reader.paymentDataFields()
        }
        guard let fields else { return nil }
        return ApplePayPaymentData(fields, rawJSON: bytes)
    }

    /// What ``readUsual(_:)`` read.
    struct Fields {
        var pan: String, expiration: String, currency: String, amountText: String, type: String
        var cardholderName: String?, deviceManufacturerIdentifier: String?, merchantTokenIdentifier: String?
        var cryptogram: String?, eci: String?, emvData: String?, encryptedPINData: String?
    }

    private init?(_ fields: Fields, rawJSON: [UInt8]) {
        guard let amount = Int64(fields.amountText) else { return nil }
        self.applicationPrimaryAccountNumber = fields.pan
        self.applicationExpirationDate = fields.expiration
        self.currencyCode = fields.currency
        self.transactionAmount = Decimal(amount)
        // Digits only, at most 18, no leading zero: the text a Decimal writes for it.
        self.transactionAmountWholeText = fields.amountText
        self.cardholderName = fields.cardholderName
        self.deviceManufacturerIdentifier = fields.deviceManufacturerIdentifier
        self.paymentDataType = fields.type
        self.details = Details(
            onlinePaymentCryptogram: fields.cryptogram, eciIndicator: fields.eci, emvData: fields.emvData, encryptedPINData: fields.encryptedPINData)
        self.rawJSON = rawJSON
        self.merchantTokenIdentifier = fields.merchantTokenIdentifier
        self.merchantTokenMetadataJSON = nil
        self.authenticationResponsesJSON = nil
        self.authenticationResponses = []
    }
}

extension InPlaceJSONReader {
    /// The fields of ``ApplePayPaymentData/readUsual(_:)``.
    mutating func paymentDataFields() -> ApplePayPaymentData.Fields? {
        var pan: Text?, expiration: Text?, currency: Text?, type: Text?
        var cardholderName: Text?, manufacturer: Text?, merchantToken: Text?
        var cryptogram: Text?, eci: Text?, emvData: Text?, pinData: Text?
        var amount: String?
        var sawDetails = false
        let read = object { name, reader in
            switch name {
            case "applicationPrimaryAccountNumber": return reader.stringOnce(&pan)
            case "applicationExpirationDate": return reader.stringOnce(&expiration)
            case "currencyCode": return reader.stringOnce(&currency)
            case "paymentDataType": return reader.stringOnce(&type)
            case "cardholderName": return reader.stringOnce(&cardholderName)
            case "deviceManufacturerIdentifier": return reader.stringOnce(&manufacturer)
            case "merchantTokenIdentifier": return reader.stringOnce(&merchantToken)
            case "transactionAmount":
                guard amount == nil, let text = reader.wholeNumber() else { return false }
                amount = text
                return true
            case "paymentData":
                guard !sawDetails else { return false }
                sawDetails = true
                return reader.object { name, reader in
                    switch name {
                    case "onlinePaymentCryptogram": return reader.stringOnce(&cryptogram)
                    case "eciIndicator": return reader.stringOnce(&eci)
                    case "emvData": return reader.stringOnce(&emvData)
                    case "encryptedPINData": return reader.stringOnce(&pinData)
                    default: return false
                    }
                }
            default: return false
            }
        }
        guard read, atEnd(), sawDetails, let pan, let expiration, let currency, let type, let amount else { return nil }
        return ApplePayPaymentData.Fields(
            pan: string(pan), expiration: string(expiration), currency: string(currency), amountText: amount, type: string(type),
            cardholderName: cardholderName.map(string), deviceManufacturerIdentifier: manufacturer.map(string),
            merchantTokenIdentifier: merchantToken.map(string), cryptogram: cryptogram.map(string), eci: eci.map(string),
            emvData: emvData.map(string), encryptedPINData: pinData.map(string))
    }
}
