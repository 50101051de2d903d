import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwiftASN1
import Synchronization
import WalletVerifierTestSupport
import X509

/// A stand-in for Apple's merchant-validation server on 127.0.0.1: TLS that requires a client
/// certificate issued by the CA it is given, HTTP/1.1, one canned answer to every request. It counts
/// the TCP connections it accepts and keeps the request bodies it read.
final class MerchantValidationServer: Sendable {
    /// What the server answers once a request's body has arrived.
    enum Answer: Sendable {
        /// 200 with these bytes as `application/json`.
        case session([UInt8])
        /// This status, with a small JSON body.
        case status(Int)
        /// Nothing, ever: the connection stays open.
        case silent
        /// 200 with this many bytes, chunked (no Content-Length).
        case oversized(Int)
    }

    /// The connections accepted, the request bodies read and the client certificate of each (DER).
    final class Recorder: Sendable {
        private let state = Mutex<(connections: Int, bodies: [[UInt8]], clientCertificates: [[UInt8]])>((0, [], []))
        func connected() { state.withLock { $0.connections += 1 } }
        func read(_ body: [UInt8], clientCertificate: [UInt8]?) {
            state.withLock {
                $0.bodies.append(body)
                $0.clientCertificates.append(clientCertificate ?? [])
            }
        }
        var connections: Int { state.withLock { $0.connections } }
        var bodies: [[UInt8]] { state.withLock { $0.bodies } }
        var clientCertificates: [[UInt8]] { state.withLock { $0.clientCertificates } }
    }

    /// The certificate authority of the server's own certificate (trusted by `--applepay-validation-ca`).
    let serverCA: PortalFixtureCA
    let port: Int
    let recorder = Recorder()
    private let channel: any Channel

    /// TCP connections accepted so far.
    var connections: Int { recorder.connections }
    /// The request bodies read so far, as JSON objects.
    var requests: [[String: Any]] {
        recorder.bodies.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    /// The CA's root in PEM: the file of `--applepay-validation-ca`.
    var caPEM: String { (try? serverCA.root.serializeAsPEM().pemString) ?? "" }

    init(answer: Answer, clientCA: Certificate) async throws {
        let now = Date()
        serverCA = try PortalFixtureCA(now: now)
        let serverKey = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey), notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400), issuer: PortalFixtureCA.rootName,
            subject: try DistinguishedName { CommonName("localhost") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost")])
            },
            issuerPrivateKey: .init(serverCA.rootKey))
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: try PortalFixtureCA.der(certificate), format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)))
        // A client certificate is required, and must chain to `clientCA`.
        tls.certificateVerification = .noHostnameVerification
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: try PortalFixtureCA.der(clientCA), format: .der)])
        let context = try NIOSSLContext(configuration: tls)
        let recorder = self.recorder
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                recorder.connected()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(SessionHandler(answer: answer, recorder: recorder))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Stops listening.
    func stop() async {
        try? await channel.close()
    }

    /// Reads each request whole, records its body and answers it.
    private final class SessionHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let answer: Answer
        let recorder: Recorder
        var body: [UInt8] = []

        init(answer: Answer, recorder: Recorder) {
            self.answer = answer
            self.recorder = recorder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head:
                body = []
            case .body(var buffer):
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                let peer = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate
                recorder.read(body, clientCertificate: peer.flatMap { try? $0.toDERBytes() })
                switch answer {
                case .session(let bytes): write(context, .ok, bytes, declaringLength: true)
                case .status(let code): write(context, .init(statusCode: code), Array(#"{"statusCode":"\#(code)"}"#.utf8), declaringLength: true)
                case .oversized(let count): write(context, .ok, [UInt8](repeating: 0x20, count: count), declaringLength: false)
                case .silent: break
                }
            }
        }

        func write(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ bytes: [UInt8], declaringLength: Bool) {
            var headers = HTTPHeaders([("Content-Type", "application/json")])
            if declaringLength { headers.add(name: "Content-Length", value: String(bytes.count)) }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
