import Foundation
import SwiftASN1
import WalletEncoding

/// PEM files as people have them (``PEM``), with the errors of merchant keys.
struct PEMBlocks {
    typealias Block = PEM.Block

    var blocks: [Block]

    /// Parses every `-----BEGIN X-----` … `-----END X-----` block. Returns nil if there is none.
    init?(text: String) throws(MerchantKeyError) {
        let blocks: [Block]
        do {
            blocks = try PEM.blocks(in: text)
        } catch {
            throw MerchantKeyError(.unreadableKey, error.message)
        }
        if blocks.isEmpty { return nil }
        self.blocks = blocks
    }

    /// The DER of the first CERTIFICATE block, or of the file itself when it is DER.
    static func certificateDER(fromFileContents contents: [UInt8], what: String) throws(MerchantKeyError) -> [UInt8] {
        if let first = contents.first, first == 0x30 { return contents }
        let text = String(decoding: contents, as: UTF8.self)
        guard let pem = try PEMBlocks(text: text) else {
            throw MerchantKeyError(.unreadableCertificate, "\(what) is neither PEM nor DER")
        }
        guard
            let block = pem.blocks.first(where: { $0.label == "CERTIFICATE" || $0.label == "X509 CERTIFICATE" || $0.label == "TRUSTED CERTIFICATE" })
        else {
            let labels = pem.blocks.map(\.label).joined(separator: ", ")
            throw MerchantKeyError(.unreadableCertificate, "\(what) has no CERTIFICATE block (found: \(labels))")
        }
        return block.der
    }
}

/// Recognizes a PKCS#12 keystore (PFX): SEQUENCE { INTEGER 3, ContentInfo { id-data | id-signedData … } … }.
enum PKCS12Detector {
    static func isPKCS12(_ der: [UInt8]) -> Bool {
        guard der.first == 0x30, let node = try? BER.parse(der), case .constructed(let children) = node.content else { return false }
        var iterator = children.makeIterator()
        guard let version = iterator.next(), version.identifier == .integer, case .primitive(let v) = version.content, v.elementsEqual([3]) else {
            return false
        }
        guard let authSafe = iterator.next(), authSafe.identifier == .sequence, case .constructed(let inner) = authSafe.content,
            let oidNode = inner.first(where: { _ in true }), let oid = try? ASN1ObjectIdentifier(berEncoded: oidNode)
        else { return false }
        return oid == [1, 2, 840, 113549, 1, 7, 1] || oid == [1, 2, 840, 113549, 1, 7, 2]
    }
}
