import PushKitFreeCore

/// What a registry kept in a file can do beyond `RegistryStore` (a database cannot): tell its
/// path, keep a journal for a long-running writer, check that a write would fit, and convert the
/// replaced scripts' flat map. A store offers it through `RegistryStore.file`, so callers ask for
/// the capability instead of casting to a concrete store.
package protocol RegistryFile: Sendable {
    /// The state file's path.
    var path: String { get }
    /// Where a flat map is kept when `convertToVersionOne` rewrites it.
    var legacyBackupPath: String { get }
    /// Whether write batches go to the journal (`register-apns serve` with a large file).
    var appendsToJournal: Bool { get }
    /// The journal beside the state file.
    var journalPath: String { get }

    /// Reads the file before the server listens, giving a large one its journal base.
    func prepareJournal()
    /// Folds the journal into the state file; whether there was anything to fold.
    func foldJournal() throws(RegistryError) -> Bool
    /// Whether a write would succeed now (space on the file system, a writable directory).
    func checkWritable() throws(RegistryError)
    /// Rewrites a flat map as version 1, keeping the flat map at `legacyBackupPath`; the number of
    /// devices converted, or `nil` when the file was not a flat map.
    func convertToVersionOne() throws -> Int?
}

extension RegistryStore {
    /// The file this registry is kept in; `nil` for a database.
    package var file: (any RegistryFile)? { nil }
}

extension StateFileRegistry: RegistryFile {
    /// Itself: this registry is kept in a file.
    package var file: (any RegistryFile)? { self }
}

/// What a registry kept in a database can do beyond `RegistryStore`: bring its schema up to date
/// (`register-apns db migrate`). A store offers it through `RegistryStore.schema`.
package protocol RegistrySchema: Sendable {
    /// Brings the schema to the current version; the version before and after.
    func migrate() throws(RegistryError) -> (from: Int, to: Int)
}

extension RegistryStore {
    /// The database schema this registry keeps; `nil` for a file.
    package var schema: (any RegistrySchema)? { nil }
}

extension PostgresRegistry: RegistrySchema {
    /// Itself: this registry is kept in a database.
    package var schema: (any RegistrySchema)? { self }
}
