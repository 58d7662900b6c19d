/// This build's version, as `tailor --version` prints it and `/metrics`
/// labels `tailor_build_info`. CHANGELOG.md says what each one brought.
public enum TailorVersion {
    public static let number = "0.1.0"
}
