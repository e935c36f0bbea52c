import ChildProcesses
import Downsample
import Foundation
import NIOPosix

/// Images made on first request (the server listens at once, whatever the size) and kept in a bounded LRU;
/// deterministic per key, so an evicted one is remade byte for byte, and kept validators answer 304s.
actor CatalogImageStore {
    private let factory: CatalogImageFactory
    private let capacityBytes: Int
    private var cached: [UInt64: CatalogImage] = [:]
    /// Least recent first (the cache holds a few thousand at most).
    private var order: [UInt64] = []
    private var cachedBytes = 0
    private var making: [UInt64: Task<Result<CatalogImage, DownsampleError>, Never>] = [:]
    private var validators: [UInt64: (etag: String, lastModified: String)] = [:]
    /// One thread per core, its own so that making does not queue behind the process's other blocking work.
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(1, ProcessInfo.processInfo.activeProcessorCount))
        pool.start()
        return pool
    }()

    init(factory: CatalogImageFactory, capacityBytes: Int) {
        self.factory = factory
        self.capacityBytes = max(0, capacityBytes)
    }

    func image(key: UInt64) async throws -> CatalogImage {
        if let image = cached[key] {
            if let index = order.lastIndex(of: key) { order.remove(at: index) }
            order.append(key)
            return image
        }
        if let task = making[key] { return try await task.value.get() }
        let factory = self.factory
        let task = Task {
            await BlockingWork.run(on: Self.pool) { Result { () throws(DownsampleError) in try factory.make(key: key) } }
        }
        making[key] = task
        defer { making[key] = nil }
        let image = try await task.value.get()
        validators[key] = (image.etag, image.lastModified)
        insert(image, key: key)
        return image
    }

    /// Of an image made before, without making it again.
    func knownValidators(key: UInt64) -> (etag: String, lastModified: String)? {
        validators[key]
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
