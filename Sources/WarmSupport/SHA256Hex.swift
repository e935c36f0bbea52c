import CWarmVips
import Foundation

/// Lowercase hex SHA-256 by GLib (already linked through libvips; no swift-crypto, to keep the dependency list short).
public enum SHA256Hex {
    public static func digest(of text: String) -> String {
        digest(of: Data(text.utf8))
    }

    public static func digest(of data: Data) -> String {
        data.withUnsafeBytes { digest(ofBytes: $0) }
    }

    public static func digest(ofBytes bytes: UnsafeRawBufferPointer) -> String {
        let start = bytes.baseAddress?.assumingMemoryBound(to: guchar.self)
        guard let raw = g_compute_checksum_for_data(G_CHECKSUM_SHA256, start, gsize(bytes.count)) else {
            // GLib only fails to allocate; there is no sensible digest without it.
            fatalError("GLib could not compute a SHA-256 digest")
        }
        defer { g_free(raw) }
        return String(cString: raw)
    }
}
