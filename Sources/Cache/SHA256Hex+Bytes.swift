import CWarmVips

extension SHA256Hex {
    /// The digest of raw bytes (a served file's body), through the same GLib call as the keys.
    static func digest(ofBytes bytes: UnsafeRawBufferPointer) -> String {
        guard let raw = warm_sha256_hex(bytes.baseAddress, bytes.count) else {
            fatalError("GLib could not compute a SHA-256 digest")
        }
        defer { warm_free(raw) }
        return String(cString: raw)
    }
}
