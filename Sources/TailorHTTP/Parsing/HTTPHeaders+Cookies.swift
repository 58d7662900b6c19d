extension HTTPHeaders {
    /// The value of the cookie `name` among the `Cookie` fields (RFC 6265 §5.4:
    /// `name=value` pairs separated by `; `), or nil; the first when several
    /// are sent.
    public func cookie(_ name: String) -> String? {
        cookies(name).first
    }

    /// Every value sent for the cookie `name`, in the order sent. A browser
    /// sends two when another site of the same domain set one of its own.
    public func cookies(_ name: String) -> [String] {
        var found: [String] = []
        for header in values("cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                if trimmed.hasPrefix(name + "=") { found.append(String(trimmed.dropFirst(name.count + 1))) }
            }
        }
        return found
    }
}
