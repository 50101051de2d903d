import Foundation
import FuzzSupport
import Mdoc
import WalletCBOR

// The `cbor` target, differential: every input goes through the generic decoder (and diagnostic
// notation) and through each in-place reader (IssuerSignedItem, MobileSecurityObject,
// DeviceResponse), whose documentation promises the generic path's result and errors. Any
// difference — one succeeds where the other fails, other values, other error codes — aborts.

func itemSummary(_ item: IssuerSignedItem) -> String {
    "\(item.digestID)|\(Array(item.random))|\(item.elementIdentifier)|\(Array(item.elementValue.encodedBytes))"
}

func msoSummary(_ mso: MobileSecurityObject) -> String {
    let digests = mso.valueDigests.sorted { $0.key < $1.key }.map { space in
        space.key + ":" + space.value.sorted { $0.key < $1.key }.map { "\($0.key)=\(Array($0.value))" }.joined(separator: ",")
    }
    // The table the verifier reads: every digest of the dictionary found there, with the same bytes.
    let table = mso.digests
    for space in mso.valueDigests {
        for (id, digest) in space.value {
            guard let index = table.nameSpaceIndex(space.key), let range = table.digestRange(nameSpace: index, id: id),
                table.bytes[range].elementsEqual(digest)
            else { fatalError("MobileSecurityObject: the digest table and the dictionary disagree") }
        }
    }
    let authorizations =
        mso.keyAuthorizations.map { "\($0.nameSpaces)|\($0.dataElements.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })" } ?? "-"
    let validity = mso.validityInfo
    return [
        mso.version, mso.digestAlgorithm, mso.docType, digests.joined(separator: ";"), "\(Array(mso.deviceKeyNode.encodedBytes))", authorizations,
        "\(validity.signed.timeIntervalSince1970)|\(validity.validFrom.timeIntervalSince1970)|\(validity.validUntil.timeIntervalSince1970)|\(validity.expectedUpdate?.timeIntervalSince1970 ?? -1)",
        "\(mso.status.map { Array($0.encodedBytes) } ?? [])",
    ].joined(separator: "\n")
}

func documentSummary(_ document: Document) -> String {
    var parts = [
        document.docType, "\(Array(document.encodedBytes))", "\(Array(document.issuerSigned.issuerAuth.node.encodedBytes))",
        "\(document.deviceSigned.map { Array($0.nameSpacesBytes.encodedBytes) } ?? [])",
        "\(document.errors.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.sorted { $0.key < $1.key })" })",
    ]
    for space in document.issuerSigned.nameSpaces {
        parts.append(space.name + ":" + space.items.map { "\(Array($0.taggedBytes))=" + itemSummary($0.value) }.joined(separator: ","))
    }
    // The table the verifier reads: the same items, values and bytes, however they were read.
    let table = document.issuerSigned.elements
    parts.append("\(table.nameSpaces)")
    for element in table.elements {
        parts.append(
            "\(element.nameSpace)|\(element.digestID)|\(element.identifier)|\(kind(element.value))\(element.value.json)|\(Array(table.taggedBytes(of: element)))"
        )
    }
    return parts.joined(separator: "\n")
}

/// The case of a value, which its JSON alone does not show (a full-date and its text render alike).
func kind(_ value: ElementValue) -> String {
    switch value {
    case .text: return "t"
    case .integer: return "i"
    case .bigInteger: return "I"
    case .bool: return "b"
    case .fullDate: return "d"
    case .dateTime: return "D"
    case .bytes: return "x"
    case .float: return "f"
    case .array(let items): return "[" + items.map(kind).joined() + "]"
    case .map(let entries): return "{" + entries.map { kind($0.value) }.joined() + "}"
    case .null: return "n"
    case .other: return "o"
    }
}

func responseSummary(_ response: DeviceResponse) -> String {
    let documents = response.documentResults.map { result -> String in
        switch result {
        case .success(let document): return documentSummary(document)
        case .failure(let error): return "error \(error.code)"
        }
    }
    return
        ([response.version, "\(response.status)", "\(Array(response.encodedBytes))", "\(response.documentErrors.sorted { $0.key < $1.key })"]
        + documents).joined(separator: "\n")
}

func compare<T>(
    _ what: String, _ inPlace: Result<T, some Error>, _ generic: Result<T, some Error>, code: (any Error) -> String, _ summary: (T) -> String
) {
    switch (inPlace, generic) {
    case (.success(let a), .success(let b)):
        guard summary(a) == summary(b) else { fatalError("\(what): the in-place and generic readers decode different values") }
    case (.failure(let a), .failure(let b)):
        guard code(a) == code(b) else { fatalError("\(what): the in-place and generic readers fail differently: \(code(a)) / \(code(b))") }
    case (.success, .failure(let error)):
        fatalError("\(what): the in-place reader accepts what the generic one rejects (\(code(error)))")
    case (.failure(let error), .success):
        fatalError("\(what): the in-place reader rejects what the generic one accepts (\(code(error)))")
    }
}

func cborCode(_ error: any Error) -> String { (error as? CBORError).map { $0.code.rawValue } ?? "\(type(of: error))" }

func run(_ bytes: [UInt8]) {
    let generic = Result { () throws(CBORError) in try CBORDecoder().decode(bytes) }
    if case .success(let node) = generic {
        _ = CBORDiagnostic(style: .compact).format(node)
        guard Array(node.encodedBytes) == bytes else { fatalError("a decoded item's encodedBytes are not the bytes received") }
    }
    // IssuerSignedItem.
    compare(
        "IssuerSignedItem",
        Result { () throws(CBORError) in try IssuerSignedItem(embeddedCBOR: bytes[...], limits: .default) },
        generic.flatMap { node in Result { () throws(CBORError) in try IssuerSignedItem(cbor: node) } },
        code: cborCode, itemSummary)
    // MobileSecurityObject.
    compare(
        "MobileSecurityObject",
        Result { () throws(CBORError) in try MobileSecurityObject(embeddedCBOR: bytes[...], limits: .default) },
        generic.flatMap { node in Result { () throws(CBORError) in try MobileSecurityObject(cbor: node) } },
        code: cborCode, msoSummary)
    // DeviceResponse: the in-place reader declines anything unusual (nil); what it reads, the generic
    // path reads the same.
    var inPlace: DeviceResponse?
    if CBORDecoder(knownTexts: .iso18013_5).read(
        bytes[...],
        {
            inPlace = DeviceResponse(reading: &$0)
            return inPlace != nil
        }), let inPlace
    {
        guard case .success(let node) = generic else { fatalError("DeviceResponse: read in place from bytes the generic decoder rejects") }
        guard let response = try? DeviceResponse(cbor: node) else { fatalError("DeviceResponse: read in place, rejected by the generic path") }
        guard responseSummary(inPlace) == responseSummary(response) else {
            fatalError("DeviceResponse: the in-place and generic readers decode different values")
        }
        AcceptedInputs.record(bytes)
    }
    // The public entry point picks one of the two and must agree with the generic path.
    let entry = Result { () throws(MdocDecodingError) in try DeviceResponse(cborBytes: bytes) }
    let genericResponse = generic.mapError { MdocDecodingError(.init($0.code), "") }.flatMap { node in
        Result { () throws(MdocDecodingError) in try DeviceResponse(cbor: node) }
    }
    switch (entry, genericResponse) {
    case (.success(let a), .success(let b)):
        guard responseSummary(a) == responseSummary(b) else { fatalError("DeviceResponse(cborBytes:) and the generic path decode different values") }
    case (.failure, .failure): break
    default: fatalError("DeviceResponse(cborBytes:) and the generic path disagree on whether the input decodes")
    }
}

/// Writes the seed corpus (FUZZ_WRITE_SEEDS=DIR): whole responses, and one item and one MSO from
/// each, as the in-place readers receive them (the content of their tag-24 byte strings). The Chrome
/// capture's response and first item (80 KB, a portrait) are left out: inputs are kept under 32 KiB.
func writeSeeds(to directory: String) {
    for (name, path) in [
        ("annex-d", "mdoc/iso18013-5-annex-d/device_response.cbor"),
        ("chrome", "mdoc/dcapi-annex-c-chrome-android-jmandel/response/device-response.cbor"),
    ] {
        let bytes = testVector(path)
        let document = try! DeviceResponse(cborBytes: bytes).documents[0]
        if bytes.count < 32768 {
            FileManager.default.createFile(atPath: "\(directory)/\(name)-response.cbor", contents: Data(bytes))
            FileManager.default.createFile(
                atPath: "\(directory)/\(name)-item.cbor", contents: Data(document.issuerSigned.nameSpaces[0].items[0].innerBytes))
        }
        let payload = try! CBORDecoder.decode(Array(document.issuerSigned.issuerAuth.payload!))
        guard case .tagged(24, let inner) = payload.value, let mso = inner.bytesValue else { fatalError("the MSO is not a tag-24 item") }
        FileManager.default.createFile(atPath: "\(directory)/\(name)-mso.cbor", contents: Data(mso))
    }
}

@_cdecl("FuzzCBOR_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, writeSeeds: writeSeeds(to:), .synchronous(run))
}
