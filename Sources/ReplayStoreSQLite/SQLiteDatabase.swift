import VaporCSQLite

/// A value bound to a statement parameter.
enum SQLiteValue: Sendable {
    case integer(Int64)
    case blob([UInt8])
    /// UTF-8 text, bound with its length (a NUL inside is kept).
    case text(String)
    case null
}

/// A failure reported by SQLite: its primary result code and the step that failed. SQLite's own
/// messages (which may quote values) are never kept.
struct SQLiteFailure: Error, CustomStringConvertible {
    let code: Int32
    let step: String

    init(_ code: Int32, _ step: String) {
        self.code = code
        self.step = step
    }

    var description: String {
        let name = sqlite_nio_sqlite3_errstr(code).map { String(cString: $0) } ?? "unknown error"
        return "SQLite \(step): \(name) (\(code & 0xff))"
    }
}

/// One SQLite connection, used by one thread at a time (the store's worker thread), with its
/// prepared statements kept for reuse.
final class SQLiteDatabase {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    private var closed = false

    /// Opens (creating when needed) the file at `path`.
    init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            if let handle { sqlite_nio_sqlite3_close_v2(handle) }
            throw SQLiteFailure(code == SQLITE_OK ? SQLITE_CANTOPEN : code, "open")
        }
        self.handle = handle
        sqlite_nio_sqlite3_extended_result_codes(handle, 0)
    }

    deinit { close() }

    /// Finalizes the prepared statements and closes the connection. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements = [:]
        sqlite_nio_sqlite3_close_v2(handle)
    }

    /// Waits up to `milliseconds` for a lock held by another connection before failing with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite_nio_sqlite3_busy_timeout(handle, milliseconds)
    }

    /// True when no transaction is open (also after SQLite rolled one back by itself, e.g. on a full disk).
    var isAutocommit: Bool { sqlite_nio_sqlite3_get_autocommit(handle) != 0 }

    /// Runs `sql` with `values` bound to `?1`, `?2`, …, calling `row` for every row it returns, and
    /// runs it to completion (a `RETURNING` statement's change is complete only then).
    func execute(_ sql: String, _ values: [SQLiteValue] = [], row: (SQLiteRow) throws -> Void = { _ in }) throws {
        let statement = try prepared(sql)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .integer(let integer):
                code = sqlite_nio_sqlite3_bind_int64(statement, index, integer)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    // A zero-length blob needs a non-null pointer to be a blob rather than NULL.
                    sqlite_nio_sqlite3_bind_blob64(
                        statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                        UInt64(buffer.count), sqliteTransient)
                }
            case .text(let text):
                code = Array(text.utf8).withUnsafeBytes { buffer in
                    // Like a blob: an empty text needs a non-null pointer to be text rather than NULL.
                    sqlite_nio_sqlite3_bind_text64(
                        statement, index, (buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1))?.assumingMemoryBound(to: CChar.self),
                        UInt64(buffer.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            case .null:
                code = sqlite_nio_sqlite3_bind_null(statement, index)
            }
            guard code == SQLITE_OK else { throw SQLiteFailure(code, "bind") }
        }
        while true {
            let code = sqlite_nio_sqlite3_step(statement)
            switch code {
            case SQLITE_ROW:
                try row(SQLiteRow(statement: statement))
            case SQLITE_DONE:
                return
            default:
                throw SQLiteFailure(code, "step")
            }
        }
    }

    /// Runs `sql` and returns the first column of its first row as an integer (nil without a row).
    func integer(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int64? {
        var result: Int64?
        try execute(sql, values) { row in
            if result == nil { result = row.integer(0) }
        }
        return result
    }

    /// Runs `sql` and returns the first column of its first row as text (nil without a row).
    func text(_ sql: String) throws -> String? {
        var result: String?
        try execute(sql) { row in
            if result == nil { result = row.text(0) }
        }
        return result
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteFailure(code == SQLITE_OK ? SQLITE_MISUSE : code, "prepare")
        }
        statements[sql] = statement
        return statement
    }
}

/// A row of a statement being stepped; valid only inside the row callback.
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    func isNull(_ column: Int32) -> Bool {
        sqlite_nio_sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    func integer(_ column: Int32) -> Int64 {
        sqlite_nio_sqlite3_column_int64(statement, column)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
        guard count > 0, let base = sqlite_nio_sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The column as UTF-8 text, all of its bytes (nil when NULL).
    func text(_ column: Int32) -> String? {
        // The pointer first, then the length of what it points at (SQLite's documented order).
        guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
    }
}

/// SQLite copies bound values before the call returns.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
