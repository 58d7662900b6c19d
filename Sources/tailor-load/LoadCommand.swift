import ArgumentParser

/// `tailor-load`: measures a running Tailor from the outside, over loopback.
@main
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tailor-load",
        abstract: "Measures a running Tailor server.",
        subcommands: [ScenarioCommand.self, FanOutCommand.self],
        defaultSubcommand: ScenarioCommand.self
    )
}
