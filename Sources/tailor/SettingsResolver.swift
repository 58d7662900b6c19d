import ArgumentParser
import Glibc

/// Each setting of `tailor serve` from, in order: its flag, the environment
/// variable named after the flag (`--max-body` → `TAILOR_MAX_BODY`), or the
/// default, which is the configuration's own (one source for defaults). Every
/// value is noted with where it came from, for `--print-config`.
struct SettingsResolver {
    enum Source: String {
        case flag, environment, `default`
    }

    struct Shown {
        let flag: String
        let value: String
        let source: Source
    }

    private let environment: (String) -> String?
    private(set) var shown: [Shown] = []

    init(environment: @escaping (String) -> String? = { name in getenv(name).map { String(cString: $0) } }) {
        self.environment = environment
    }

    /// `TAILOR_` and the flag's name in capitals, dashes as underscores.
    static func environmentName(of flag: String) -> String {
        "TAILOR_" + flag.uppercased().replacingAll("-", with: "_")
    }

    /// The flag's value, else the environment's (which must read as a `Value`), else `defaultValue`.
    /// `masked` says it as a log line would (a password hidden).
    mutating func value<Value: LosslessStringConvertible>(_ flag: Value?, _ name: String, default defaultValue: Value,
                                                         masked: (Value) -> String = { String(describing: $0) }) throws -> Value {
        let (value, source) = try resolve(flag, name) ?? (defaultValue, .default)
        shown.append(Shown(flag: name, value: masked(value), source: source))
        return value
    }

    /// As `value`, for a setting whose absence means "worked out from others" (`derived` says how).
    mutating func optional<Value: LosslessStringConvertible>(_ flag: Value?, _ name: String, derived: String) throws -> Value? {
        let found = try resolve(flag, name)
        shown.append(Shown(flag: name, value: found.map { String(describing: $0.0) } ?? derived, source: found?.1 ?? .default))
        return found?.0
    }

    /// An on-or-off setting: the environment says `1`, `true`, `yes` or `on` (or their opposites).
    mutating func switchValue(_ flag: Bool?, _ name: String, default defaultValue: Bool) throws -> Bool {
        var result = (flag ?? defaultValue, flag == nil ? Source.default : .flag)
        if flag == nil, let text = environment(Self.environmentName(of: name)) {
            switch text.lowercased() {
            case "1", "true", "yes", "on": result = (true, .environment)
            case "0", "false", "no", "off": result = (false, .environment)
            default: throw ValidationError("\(Self.environmentName(of: name)) must be 1, true, yes or on, or 0, false, no or off; got \(text).")
            }
        }
        shown.append(Shown(flag: name, value: String(result.0), source: result.1))
        return result.0
    }

    private func resolve<Value: LosslessStringConvertible>(_ flag: Value?, _ name: String) throws -> (Value, Source)? {
        if let flag { return (flag, .flag) }
        let variable = Self.environmentName(of: name)
        guard let text = environment(variable) else { return nil }
        guard let value = Value(text) else { throw ValidationError("\(variable) must be a value for --\(name); got \(text).") }
        return (value, .environment)
    }

    /// The table `--print-config` prints.
    var table: String {
        let width = (shown.map(\.flag.count).max() ?? 0) + 2
        return shown.map { setting in
            "--" + setting.flag + String(repeating: " ", count: width - setting.flag.count) + setting.value + "  (" + setting.source.rawValue + ")"
        }.joined(separator: "\n")
    }
}

private extension String {
    func replacingAll(_ character: Character, with replacement: Character) -> String {
        String(map { $0 == character ? replacement : $0 })
    }
}
