import ArgumentParser
import TailorApp

/// `tailor`: the server of tailor-made view models. `serve` is the default.
@main
struct TailorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tailor",
        abstract: "Serves tailor-made JSON view models and pushes their changes over Server-Sent Events.",
        version: TailorVersion.number,
        subcommands: [ServeCommand.self, BackupCommand.self, UsersCommand.self, ReadyCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
