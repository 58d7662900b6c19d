import ArgumentParser

/// `tailor-load`: measures a running Tailor from the outside, over loopback.
@main
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tailor-load",
        abstract: "Measures a running Tailor server over loopback.",
        subcommands: [FanOutCommand.self]
    )
}
