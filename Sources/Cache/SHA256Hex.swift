import CWarmVips

/// Lowercase hex SHA-256, computed by GLib through the CWarmVips shim: used
/// instead of adding swift-crypto, to keep the dependency list short.
enum SHA256Hex {
    static func digest(of text: String) -> String {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer in
            guard let raw = warm_sha256_hex(buffer.baseAddress, buffer.count) else {
                // GLib only fails to allocate; there is no sensible key without it.
                fatalError("GLib could not compute a SHA-256 digest")
            }
            defer { warm_free(raw) }
            return String(cString: raw)
        }
    }
}
