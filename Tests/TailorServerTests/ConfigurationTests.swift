import Foundation
import TailorTestSupport
import Testing

/// Every flag of `tailor serve` also from `TAILOR_*` in the environment, the
/// flag winning, as `--print-config` shows with each value's source.
@Suite struct ConfigurationTests {
    /// Runs `tailor serve ARGUMENTS` with `environment` added; its exit status, output and errors.
    private func serve(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = ShutdownTests.executable
        process.arguments = ["serve"] + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TAILOR_") }.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try SpawnGate.run(process)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// The line of `--print-config` for `flag`.
    private func line(_ flag: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("--\(flag) ") }.map { String($0).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    }

    @Test func theEnvironmentSetsWhatNoFlagDoesAndTheFlagWins() throws {
        let run = try serve(["--print-config", "--port", "7001", "--max-body", "2048"],
                            environment: ["TAILOR_PORT": "9001", "TAILOR_HEARTBEAT": "5", "TAILOR_DEMO": "yes", "TAILOR_TIME_ZONE": "Europe/Berlin"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(line("port", in: run.output) == "--port 7001 (flag)")
        #expect(line("max-body", in: run.output) == "--max-body 2048 (flag)")
        #expect(line("heartbeat", in: run.output) == "--heartbeat 5.0 (environment)")
        #expect(line("demo", in: run.output) == "--demo true (environment)")
        #expect(line("time-zone", in: run.output) == "--time-zone Europe/Berlin (environment)")
        #expect(line("idle-timeout", in: run.output) == "--idle-timeout 60.0 (default)")
        #expect(line("threads", in: run.output)?.hasSuffix("(default)") == true)
    }

    @Test func aPasswordIsMaskedWhereverTheURLComesFrom() throws {
        for (arguments, environment) in [(["--db", "postgres://tailor:s3cret@db.example/tailor"], [:]),
                                         ([], ["TAILOR_DB": "postgresql://tailor:s3cret@db.example/tailor?password=s3cret"])] {
            let run = try serve(["--print-config"] + arguments, environment: environment)
            #expect(run.status == 0, "\(run.errors)")
            #expect(!run.output.contains("s3cret"))
            #expect(line("db", in: run.output)?.contains("tailor:***@db.example") == true, "\(run.output)")
        }
    }

    @Test func aBadValueFromTheEnvironmentIsRefusedWithItsName() throws {
        for (variable, value) in [("TAILOR_PORT", "eighty"), ("TAILOR_HEARTBEAT", "inf"), ("TAILOR_DEMO", "perhaps"), ("TAILOR_MAX_BODY", "-1")] {
            let run = try serve(["--print-config"], environment: [variable: value])
            #expect(run.status != 0)
            let flag = "--" + variable.dropFirst("TAILOR_".count).lowercased().replacingOccurrences(of: "_", with: "-")
            #expect(run.errors.contains(variable) || run.errors.contains(flag), "\(run.errors)")
        }
    }
}
