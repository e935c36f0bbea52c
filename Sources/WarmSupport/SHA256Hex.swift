import Crypto
import Foundation

/// The one stable hash: SHA-256 by swift-crypto (already built for the HTTP stack, so it costs no build time and
/// links no libvips), the same on every machine and run, unlike Swift's `Hasher`, which is seeded per process.
/// It names cache files (lowercase hex), picks shards (`CacheShard`: the digest's first 64 bits), picks the
/// `--compare-one-in` sample and the catalog server's faults (`lowWord`: its last 64 bits), and checks bodies.
public enum SHA256Hex {
    public static func digest(of text: String) -> String {
        digest(of: Data(text.utf8))
    }

    public static func digest(of data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    public static func digest(ofBytes bytes: UnsafeRawBufferPointer) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// The digest's last 64 bits as a number, for choices made from a key. Sharding reads the first 64 bits, so a
    /// choice made with this (one image in N) is independent of the shard: each shard gets its share of it.
    public static func lowWord(of text: String) -> UInt64 {
        SHA256.hash(data: Data(text.utf8)).withUnsafeBytes { bytes in
            bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self).bigEndian
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex(_ digest: SHA256.Digest) -> String {
        String(unsafeUninitializedCapacity: SHA256.byteCount * 2) { buffer in
            var index = 0
            for byte in digest {
                buffer[index] = hexDigits[Int(byte >> 4)]
                buffer[index + 1] = hexDigits[Int(byte & 0x0f)]
                index += 2
            }
            return index
        }
    }
}
