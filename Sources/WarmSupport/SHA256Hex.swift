internal import CGLib
import Foundation

/// The one stable hash: SHA-256, the same on every machine and run, unlike Swift's `Hasher`, which is seeded per
/// process. It names cache files (lowercase hex), picks shards (`CacheShard`: the digest's first 64 bits), picks the
/// `--compare-one-in` sample and the catalog server's faults (`lowWord`: its last 64 bits), and checks bodies.
/// GLib's: linked anyway (libvips needs it), in C, and without libvips; swift-crypto is in the graph but not built,
/// and building it alone took 212 s here, a hand-written one in Swift hashes about 3 MB/s in debug builds.
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

    /// The digest's last 64 bits as a number, for choices made from a key. Sharding reads the first 64 bits, so a
    /// choice made with this (one image in N) is independent of the shard: each shard gets its share of it.
    public static func lowWord(of text: String) -> UInt64 {
        UInt64(digest(of: text).suffix(16), radix: 16) ?? 0
    }
}
