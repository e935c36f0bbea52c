import Synchronization

/// Serialises one cache key without serialising different keys, whose stores then fsync in parallel
/// (bench/findings.md sections 9 and 11): a fixed set of locks, picked by hash.
final class KeyLocks: Sendable {
    private let locks = InlineArray<64, Mutex<Void>> { _ in Mutex(()) }

    /// Never call it while holding another key's lock or the manifest's writer.
    func withLock<T>(for key: String, _ body: () throws(CacheError) -> T) throws(CacheError) -> T {
        var hasher = Hasher()
        hasher.combine(key)
        return try locks[Int(UInt(bitPattern: hasher.finalize()) % UInt(locks.count))].withLock { _ throws(CacheError) in
            try body()
        }
    }
}
