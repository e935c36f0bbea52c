import Foundation
import XCTest
@testable import Cache
import CacheTestSupport

final class DiskCacheEvictionTests: CacheTestCase {
    let variant = CacheVariant(longestSide: 300, format: .jpeg)

    private func url(_ name: String) -> String { "https://img.example.com/\(name).jpg" }

    func testLRUEvictionRemovesLeastRecentlyUsedFirstAndStaysUnderLimit() throws {
        let cache = try openCache()
        var sizes: [String: Int] = [:]
        var paths: [String: String] = [:]
        for (index, name) in ["a", "b", "c", "d", "e"].enumerated() {
            let (width, height) = (40 + 4 * index, 30 + 3 * index)
            let data = try jpeg(width: width, height: height, seed: UInt64(index))
            let entry = try cache.store(url: url(name), productIds: [index], variant: variant, data: data,
                                        metadata: metadata(width: width, height: height, fetchedAt: Double(1000 + index)))
            sizes[name] = data.count
            paths[name] = entry.absolutePath
        }
        // "a" is the oldest store but was just used, so "b" and "c" are the least recently used.
        _ = try cache.lookup(url: url("a"), variant: variant, now: 2000)
        let total = sizes.values.reduce(0, +)
        // Removing "b" alone is not enough; removing "b" and "c" exactly is.
        let limit = total - sizes["b"]! - sizes["c"]!

        let result = try cache.maintenance.evict(maxBytes: limit)
        XCTAssertEqual(result.removedCount, 2)
        XCTAssertEqual(result.removedBytes, sizes["b"]! + sizes["c"]!)
        XCTAssertEqual(result.remainingBytes, total - result.removedBytes)
        XCTAssertLessThanOrEqual(result.remainingBytes, limit)
        for name in ["b", "c"] {
            XCTAssertNil(try cache.lookup(url: url(name), variant: variant), name)
            XCTAssertFalse(fileExists(paths[name]!), name)
        }
        for name in ["a", "d", "e"] {
            XCTAssertEqual(try cache.lookup(url: url(name), variant: variant)?.fileIsPresent, true, name)
            XCTAssertTrue(fileExists(paths[name]!), name)
        }
        XCTAssertEqual(try cache.maintenance.stats().totalBytes, result.remainingBytes)
        let report = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertTrue(report.isClean, "\(report)")
    }

    /// Stores a, b, c, d (fetched at 1000...1003); c and d then used at 6000, so least-recently-used order is a, b, c, d.
    private func storeFourThenUseCAndD(_ cache: DiskCache) throws -> [String: Int] {
        var sizes: [String: Int] = [:]
        for (index, name) in ["a", "b", "c", "d"].enumerated() {
            let data = try jpeg(seed: UInt64(index))
            try cache.store(url: url(name), productIds: [index], variant: variant, data: data,
                            metadata: metadata(fetchedAt: Double(1000 + index)))
            sizes[name] = data.count
        }
        for name in ["c", "d"] { _ = try cache.lookup(url: url(name), variant: variant, now: 6000) }
        return sizes
    }

    private func cachedNames(_ cache: DiskCache) throws -> [String] {
        try ["a", "b", "c", "d"].filter { try cache.lookup(url: url($0), variant: variant, recordingAccess: false) != nil }
    }

    func testEvictionRemovesEveryImageTonightsListDidNotNameBeforeAnyItNamed() throws {
        let cache = try openCache()
        let sizes = try storeFourThenUseCAndD(cache)
        // Tonight's run started at 5000 and its list named a and b only; c and d were used more recently.
        try cache.markListed(urls: [try CanonicalURL(url("a")), try CanonicalURL(url("b"))], at: 5000)
        let total = sizes.values.reduce(0, +)

        let first = try cache.maintenance.evict(maxBytes: total - sizes["c"]!, listedSince: 5000, now: 7000)
        XCTAssertEqual(first.removedCount, 1)
        XCTAssertEqual(try cachedNames(cache), ["a", "b", "d"], "c: not named tonight, least recently used of those")
        _ = try cache.maintenance.evict(maxBytes: sizes["a"]! + sizes["b"]!, listedSince: 5000, now: 7000)
        XCTAssertEqual(try cachedNames(cache), ["a", "b"], "every unnamed image goes before a named one")
        _ = try cache.maintenance.evict(maxBytes: sizes["b"]!, listedSince: 5000, now: 7000)
        XCTAssertEqual(try cachedNames(cache), ["b"], "among the named ones, least recently used first")
        XCTAssertTrue(try cache.maintenance.verify(validator: Self.validator).isClean)
    }

    func testEvictionWithoutARunStartKeepsWhatTheNewestListingNamed() throws {
        let cache = try openCache()
        let sizes = try storeFourThenUseCAndD(cache)
        // A merge: the last night's shards listed a and b a day after the stores; c and d were listed only then.
        let night = 1000 + 86_400.0
        try cache.markListed(urls: [try CanonicalURL(url("a"))], at: night)
        try cache.markListed(urls: [try CanonicalURL(url("b"))], at: night + 3 * 3600)

        _ = try cache.maintenance.evict(maxBytes: sizes["a"]! + sizes["b"]!, now: night + 4 * 3600)
        XCTAssertEqual(try cachedNames(cache), ["a", "b"])
    }

    func testShareOfTheVolumeIsThatShareOfItsTotalSizeEvenBeforeTheDirectoryExists() throws {
        let total = try CacheSizeLimit.volumeBytes(containing: root)
        XCTAssertGreaterThan(total, 0)
        XCTAssertEqual(try CacheSizeLimit.volumeBytes(containing: root + "/not/made/yet"), total)
        XCTAssertEqual(try CacheSizeLimit.shareOfVolume(0.85).bytes(forCacheAt: root + "/not/made/yet"),
                       Int((Double(total) * 0.85).rounded(.down)))
        XCTAssertEqual(try CacheSizeLimit.bytes(2_000_000).bytes(forCacheAt: root), 2_000_000)
    }

    func testEvictionUnderTheLimitRemovesNothing() throws {
        let cache = try openCache()
        let data = try jpeg()
        try cache.store(url: url("a"), productIds: [1], variant: variant, data: data, metadata: metadata())
        let result = try cache.maintenance.evict(maxBytes: data.count)
        XCTAssertEqual([result.removedCount, result.removedBytes, result.remainingBytes], [0, 0, data.count])
        XCTAssertEqual(try cache.maintenance.stats().entryCount, 1)
    }

    func testEvictionToZeroRemovesEveryFileButKeepsFailureRecords() throws {
        let cache = try openCache()
        for name in ["a", "b"] {
            try cache.store(url: url(name), productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        }
        try cache.recordFailure(url: url("broken"), productIds: [2], variant: variant, reason: "the image is corrupt")
        let result = try cache.maintenance.evict(maxBytes: 0)
        XCTAssertEqual(result.removedCount, 2)
        XCTAssertEqual(result.remainingBytes, 0)
        XCTAssertEqual(try cache.files.allFilePaths(), [])
        XCTAssertEqual(try cache.lookup(url: url("broken"), variant: variant)?.lastError, "the image is corrupt")
    }

    func testStatsCountEntriesFailuresBytesVariantsAndExpiry() throws {
        let cache = try openCache(maxAgeSeconds: 100)
        let small = try jpeg(width: 32, height: 24)
        let large = try jpeg(width: 64, height: 48)
        let webp = CacheVariant(longestSide: 300, format: .webp)
        try cache.store(url: url("a"), productIds: [1], variant: variant, data: large, metadata: metadata(fetchedAt: 1000))
        try cache.store(url: url("b"), productIds: [2], variant: variant, data: large, metadata: metadata(fetchedAt: 3000))
        try cache.store(url: url("a"), productIds: [1], variant: webp, data: small, metadata: metadata(fetchedAt: 2000))
        try cache.recordFailure(url: url("a"), productIds: [1], variant: variant, reason: "the server answered 500")
        try cache.recordFailure(url: url("c"), productIds: [3], variant: variant, reason: "the image is too large")

        let stats = try cache.maintenance.stats(now: 2050)
        XCTAssertEqual(stats.entryCount, 3)
        XCTAssertEqual(stats.failedCount, 2)
        XCTAssertEqual(stats.totalBytes, 2 * large.count + small.count)
        XCTAssertEqual(stats.variants["300.jpg"], CacheStats.VariantTotals(count: 2, bytes: 2 * large.count))
        XCTAssertEqual(stats.variants["300.webp"], CacheStats.VariantTotals(count: 1, bytes: small.count))
        XCTAssertEqual(stats.oldestFetchedAt, 1000)
        XCTAssertEqual(stats.newestFetchedAt, 3000)
        XCTAssertEqual(stats.expiredCount, 1, "only the entry fetched at 1000 expired (at 1100)")
    }
}
