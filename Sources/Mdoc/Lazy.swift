import Synchronization

/// A value computed at most once, on first use, and shared by every copy of the structure that
/// holds it (safe to use from several tasks at once).
final class Lazy<Value: Sendable>: Sendable {
    private let state: Mutex<Value?>

    /// Nothing yet: the first ``value(_:)`` computes it.
    init() { state = Mutex(nil) }

    /// Already known.
    init(_ value: Value) { state = Mutex(value) }

    /// The value, computed by `make` if this is the first use.
    func value(_ make: () -> Value) -> Value {
        state.withLock { stored in
            if let stored { return stored }
            let made = make()
            stored = made
            return made
        }
    }
}
