import Foundation
import NIOCore
import NIOPosix

/// Why PostgreSQL does not answer at start, in words an operator can act on: the store's own error
/// only says that an operation did not finish in time (its client keeps retrying the connection), so
/// a plain TCP connection to the URL's host and port tells a stopped server, a wrong port, a name that
/// does not resolve and a silent network apart. Never shows the URL's user or password.
enum PostgresReachability {
    /// The host and port of a `postgres://` URL (5432 by default), or nil.
    static func endpoint(of url: String) -> (host: String, port: Int)? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
        return (host, components.port ?? 5432)
    }

    /// One sentence on what a TCP connection to the URL's host and port found, within `timeout`.
    static func diagnose(url: String, timeout: TimeAmount = .seconds(2)) async -> String {
        guard let (host, port) = endpoint(of: url) else { return "the URL names no host" }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(timeout)
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            try? await channel.close()
            return
                "a TCP connection to \(host):\(port) opens, so the server there did not complete PostgreSQL's start-up: check that it is PostgreSQL, its logs, the database, the user, the password and sslmode"
        } catch {
            return "\(host):\(port) cannot be reached (\(reason(error))): " + advice(error, host: host)
        }
    }

    static func reason(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("refused") || text.contains("errno: 111") { return "connection refused" }
        if text.contains("connectTimeout") || text.contains("timed out") { return "no answer in time" }
        if text.contains("dns") || text.contains("resolve") || text.contains("getaddrinfo") { return "the name does not resolve" }
        return "connection failed"
    }

    static func advice(_ error: any Error, host: String) -> String {
        switch reason(error) {
        case "connection refused": return "is PostgreSQL running and listening on that address and port?"
        case "no answer in time": return "a firewall, or a wrong address?"
        case "the name does not resolve": return "is \(host) the right host name?"
        default: return "check the host, the port and the network"
        }
    }
}
