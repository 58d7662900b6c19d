extension HTTPHeaders {
    /// The value of the cookie `name` among the `Cookie` fields (RFC 6265 §5.4:
    /// `name=value` pairs separated by `; `), or nil.
    public func cookie(_ name: String) -> String? {
        for header in values("cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
            }
        }
        return nil
    }
}
