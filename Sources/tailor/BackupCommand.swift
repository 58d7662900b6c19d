import ArgumentParser
import TailorApp
import TailorStore

/// `tailor backup`: a consistent copy of a SQLite database, taken while a
/// server uses it.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copies a SQLite database consistently, while a server may be writing to it.",
        discussion: """
            The copy holds everything committed as of one moment, the write-ahead log's \
            commits included, as one compact file, checked with SQLite's integrity_check \
            before it takes the destination's name: after a failure nothing is there. \
            Restore it by stopping the server, moving the database file and its -wal and \
            -shm files away, and putting the copy in the database file's place. For \
            PostgreSQL use pg_dump -Fc.
            """
    )

    @Option(help: "The SQLite file (\(TailorConfiguration().database)); also TAILOR_DB.")
    var db: String?

    @Argument(help: "The new file to write; it must not exist, not even as a symbolic link.")
    var destination: String

    func run() throws {
        var settings = SettingsResolver()
        let database = try settings.value(db, "db", default: TailorConfiguration().database.description)
        guard case .sqlite(let path) = DatabaseLocation(database), path != ":memory:" else {
            throw ValidationError("tailor backup copies a SQLite file; for PostgreSQL use pg_dump -Fc.")
        }
        let version: Int
        do {
            version = try SQLiteBackup.copy(path, to: destination)
        } catch {
            throw ValidationError("no backup was made: \(error)")
        }
        print("backed up \(path) to \(destination) (schema version \(version), integrity checked)")
    }
}
