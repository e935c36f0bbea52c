import CWarmVips
import Foundation

/// Lowercase hex SHA-256, computed by GLib through the CWarmVips shim (no
/// swift-crypto, to keep the dependency list short): the cache's keys and the
/// metrics' `outputSHA256`.
public enum SHA256Hex {
    public static func digest(of text: String) -> String {
        digest(of: Data(text.utf8))
    }

    public static func digest(of data: Data) -> String {
        data.withUnsafeBytes { buffer in
            guard let raw = warm_sha256_hex(buffer.baseAddress, buffer.count) else {
                // GLib only fails to allocate; there is no sensible digest without it.
                fatalError("GLib could not compute a SHA-256 digest")
            }
            defer { warm_free(raw) }
            return String(cString: raw)
        }
    }
}
