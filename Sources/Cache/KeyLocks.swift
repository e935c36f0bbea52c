import Foundation

/// Serialises work on one cache key (its file's location, which the key
/// decides) without serialising different keys: a fixed set of locks, a key
/// taking the one its hash picks. A store holds
/// its key's lock from the rename to the row, so two stores of one key leave
/// the file and the row of the same store, while stores of other keys sync
/// their directories at the same time (measured faster per file than one
/// at a time: bench/findings.md sections 9 and 11).
///
/// Hand-written rather than taken from a package: NIO's locks are not a
/// dependency of this module, and sixty-four `NSLock`s are the whole of it.
final class KeyLocks: Sendable {
    private let locks: [NSLock]

    init(count: Int = 64) {
        locks = (0..<max(1, count)).map { _ in NSLock() }
    }

    /// Runs `body` holding the lock of `key`. Never call it while holding
    /// another key's lock or the manifest's writer.
    func withLock<T>(for key: String, _ body: () throws(CacheError) -> T) throws(CacheError) -> T {
        var hasher = Hasher()
        hasher.combine(key)
        let lock = locks[Int(UInt(bitPattern: hasher.finalize()) % UInt(locks.count))]
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
