import ArgumentParser
import Glibc
import TailorApp
import TailorStore

/// `tailor users disable NAME` and `tailor users enable NAME`: an operator
/// stops an account, ending its sessions and streams at once on every server,
/// or lets it in again.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Disables or enables an account while servers run.",
        subcommands: [Disable.self, Enable.self]
    )

    struct Options: ParsableArguments {
        @Option(help: "The database (\(TailorConfiguration().database)); also TAILOR_DB.")
        var db: String?

        @Argument(help: "The account's name (any case).")
        var name: String
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disables an account: it signs in with nothing, and its sessions and streams end at once on every server.")

        @OptionGroup var options: Options

        func run() throws {
            try UsersCommand.setDisabled(true, options)
        }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enables a disabled account again: its token and password sign in.")

        @OptionGroup var options: Options

        func run() throws {
            try UsersCommand.setDisabled(false, options)
        }
    }

    static func setDisabled(_ disabled: Bool, _ options: Options) throws {
        var settings = SettingsResolver()
        let database = try settings.value(options.db, "db", default: TailorConfiguration().database.description)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        do {
            print(try AccountAdministration.setDisabled(disabled, name: options.name, in: DatabaseLocation(database),
                                                        now: now.tv_sec * 1000 + now.tv_nsec / 1_000_000))
        } catch {
            throw ValidationError("nothing was changed: \(error)")
        }
    }
}
