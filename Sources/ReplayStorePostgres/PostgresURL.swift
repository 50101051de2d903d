import PostgresNIO
import VerificationCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads `postgres://user:password@host:port/database?sslmode=…` into a client configuration.
/// Error messages name the part that is wrong, never the password.
enum PostgresURL {
    static func parse(_ string: String, operationTimeout: Duration) throws -> (client: PostgresClient.Configuration, schema: String?) {
        func invalid(_ why: String) -> OperationalError {
            OperationalError("invalidConfiguration", "The PostgreSQL URL is not usable: \(why).", retryable: false)
        }
        guard let components = URLComponents(string: Self.trimmed(string)) else {
            throw invalid("it is not a URL (expected postgres://user:password@host:port/database)")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw invalid("it names no host")
        }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else {
            throw invalid("the port is out of range")
        }
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 } ?? "postgres"
        let password = components.password
        var path = components.path
        while path.hasPrefix("/") { path.removeFirst() }
        guard !path.contains("/") else {
            throw invalid("the path must be a single database name")
        }
        let database = path.isEmpty ? nil : path

        var tls: PostgresClient.Configuration.TLS = .prefer(.makeClientConfiguration())
        var applicationName = "wallet-verifier"
        var connectTimeout: Duration?
        var schema: String?
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                switch value {
                case "disable": tls = .disable
                case "allow", "prefer": tls = .prefer(.makeClientConfiguration())
                case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
                default: throw invalid("sslmode must be disable, prefer, require, verify-ca or verify-full")
                }
            case "application_name":
                guard !value.isEmpty, value.count <= 63, !value.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                    throw invalid("application_name must be 1 to 63 printable characters")
                }
                applicationName = value
            case "connect_timeout":
                guard let seconds = Int(value), (1...3_600).contains(seconds) else {
                    throw invalid("connect_timeout must be a number of seconds from 1 to 3600")
                }
                connectTimeout = .seconds(seconds)
            case "schema":
                schema = value
            default:
                throw invalid("the parameter \"\(Self.printable(item.name))\" is not supported (sslmode, application_name, connect_timeout, schema)")
            }
        }

        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: user,
            password: password,
            database: database,
            tls: tls
        )
        configuration.options.connectTimeout = min(connectTimeout ?? operationTimeout, operationTimeout)
        configuration.options.additionalStartupParameters.append(("application_name", applicationName))
        return (configuration, schema)
    }

    private static func trimmed(_ string: String) -> String {
        let scalars = string.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(scalars[first...last])
    }

    /// A parameter name for an error message: at most 40 characters, control characters replaced.
    private static func printable(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
