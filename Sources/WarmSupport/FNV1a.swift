/// FNV-1a, 64 bits: stable across runs and machines (Swift's `Hasher` is seeded per process).
/// Not for anything an attacker may choose to collide.
public enum FNV1a {
    public static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
