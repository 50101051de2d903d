import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listener that could not be opened, in words that name the address and the flag to change.
public enum ListenFailure {
    /// What to tell the operator when `error` is a listener's bind failure on `host:port` (the port in
    /// use, an address not of this machine, a privileged port); nil for any other error. `flag` is the
    /// flag that chooses the address (`--port`, `--ui-listen`).
    public static func describe(_ error: any Error, host: String, port: Int, flag: String) -> String? {
        guard let error = error as? IOError else { return nil }
        let address = "cannot listen on \(host):\(port)"
        switch error.errnoCode {
        case EADDRINUSE: return "\(address): the port is already in use; stop what listens there or choose another with \(flag)"
        case EADDRNOTAVAIL: return "\(address): \(host) is not an address of this machine; choose another with \(flag == "--port" ? "--host" : flag)"
        case EACCES: return "\(address): permission denied (ports below 1024 need privileges); choose another with \(flag)"
        default: return nil
        }
    }
}
