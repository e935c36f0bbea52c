import Dispatch
import Downsample
import Foundation

/// The catalog's images, made lazily on first request and kept in a
/// bounded in-memory LRU cache.
///
/// Why lazily rather than all at start (or once into a directory): the
/// server then listens at once whatever the catalog's size (1,336 distinct
/// seeds-mix images take about 10 s of encoding on 2 cores; 13,360 phone-mix
/// images would take over an hour and 40 GB), a crawl's own pace spreads the
/// work over the run, and nothing is written outside the server's memory.
/// Images are deterministic per key, so an image evicted from the cache is
/// made again byte for byte; the validators of every image made are kept
/// (a few dozen bytes each), so a conditional request for one answers 304
/// without making it again.
///
/// Concurrent requests for one key share one making. Making runs on a
/// dispatch queue, at most `activeProcessorCount` at once, never on the
/// cooperative pool.
actor CatalogImageStore {
    private let factory: CatalogImageFactory
    private let capacityBytes: Int
    private var cached: [UInt64: CatalogImage] = [:]
    /// Keys in use order, least recent first (the cache holds a few thousand at most).
    private var order: [UInt64] = []
    private var cachedBytes = 0
    private var making: [UInt64: Task<CatalogImage, any Error>] = [:]
    private var validators: [UInt64: (etag: String, lastModified: String)] = [:]
    private static let queue = DispatchQueue(label: "warm.catalog.images", attributes: .concurrent)
    private static let slots = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount))

    init(factory: CatalogImageFactory, capacityBytes: Int) {
        self.factory = factory
        self.capacityBytes = max(0, capacityBytes)
    }

    /// The image for `key`, made now if it is not cached.
    func image(key: UInt64) async throws -> CatalogImage {
        if let image = cached[key] {
            touch(key)
            return image
        }
        if let task = making[key] { return try await task.value }
        let factory = self.factory
        let task = Task<CatalogImage, any Error> {
            try await withCheckedThrowingContinuation { continuation in
                Self.queue.async {
                    Self.slots.wait()
                    defer { Self.slots.signal() }
                    continuation.resume(with: Result { () throws(DownsampleError) in try factory.make(key: key) })
                }
            }
        }
        making[key] = task
        defer { making[key] = nil }
        let image = try await task.value
        validators[key] = (image.etag, image.lastModified)
        insert(image, key: key)
        return image
    }

    /// ETag and Last-Modified of an image made before, without making it again.
    func knownValidators(key: UInt64) -> (etag: String, lastModified: String)? {
        validators[key]
    }

    private func touch(_ key: UInt64) {
        if let index = order.lastIndex(of: key) { order.remove(at: index) }
        order.append(key)
    }

    private func insert(_ image: CatalogImage, key: UInt64) {
        guard cached[key] == nil, image.byteCount <= capacityBytes else { return }
        cached[key] = image
        order.append(key)
        cachedBytes += image.byteCount
        while cachedBytes > capacityBytes, !order.isEmpty {
            let oldest = order.removeFirst()
            cachedBytes -= cached.removeValue(forKey: oldest)?.byteCount ?? 0
        }
    }
}
