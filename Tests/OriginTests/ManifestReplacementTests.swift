@testable import Cache
import CacheTestSupport
import Foundation
@testable import Servers
import WarmTestSupport
import XCTest

/// A manifest published by rename while the origin serves (what `warm cache merge` does each night on a shared
/// volume): the origin switches to a good one with no 5xx, and keeps serving its last good index, ready, while the
/// newest cannot be opened. Each manifest is published as a new file name behind a symbolic link renamed over
/// `manifest.sqlite`, so a new file never meets the `-wal` and `-shm` of the one the origin still has open.
final class ManifestReplacementTests: XCTestCase {
    private let images = (1...3).map { "https://img.example.test/p/\($0).jpg" }
    private let variant = CacheVariant(longestSide: 300, format: .jpeg)

    private func data(_ index: Int) -> Data {
        Data((0..<(1500 + index * 100)).map { UInt8(truncatingIfNeeded: $0 &* (index + 3)) })
    }

    /// A cache in `root` holding `images[range]`, closed (its WAL checkpointed and gone).
    private func write(_ root: String, _ range: Range<Int>) throws {
        let cache = try DiskCache.open(root: root)
        for index in range {
            try cache.store(url: images[index], productIds: [index + 1], variant: variant, data: data(index),
                            metadata: CacheMetadata(sourceBytes: 1000, sourceFormat: "jpeg", sourceWidth: 800, sourceHeight: 600,
                                                    outputWidth: 300, outputHeight: 225, fetchedAt: Date().timeIntervalSince1970))
        }
        try cache.close()
    }

    /// Links `staging`'s thumbnails into `served` (same inodes, so the validators its manifest recorded hold), copies
    /// its manifest in as `name`, and points `manifest.sqlite` at it with one rename.
    private func publish(_ staging: String, into served: String, as name: String) throws {
        let files = FileManager.default
        let thumbnails = CacheLayout(root: staging).filesDirectory
        for case let relative as String in files.enumerator(atPath: thumbnails)! {
            var isDirectory: ObjCBool = false
            let source = thumbnails + "/" + relative
            let target = CacheLayout(root: served).filesDirectory + "/" + relative
            guard files.fileExists(atPath: source, isDirectory: &isDirectory), !isDirectory.boolValue,
                  !files.fileExists(atPath: target) else { continue }
            try files.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try files.linkItem(atPath: source, toPath: target)
        }
        let manifest = CacheLayout(root: served).manifestPath
        let directory = (manifest as NSString).deletingLastPathComponent
        try files.copyItem(atPath: CacheLayout(root: staging).manifestPath, toPath: directory + "/" + name)
        try pointManifest(of: served, at: name)
    }

    /// Renames a new symbolic link to `name` over `manifest.sqlite`.
    private func pointManifest(of served: String, at name: String) throws {
        let manifest = CacheLayout(root: served).manifestPath
        let link = manifest + ".next"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: name)
        XCTAssertEqual(rename(link, manifest), 0, String(cString: strerror(errno)))
    }

    private func thumbnail(_ index: Int) -> String {
        OriginHarness.thumbnailPath(url: images[index], size: 300, format: "jpeg")
    }

    func testANewManifestRenamedIntoPlaceIsServedWithNo5xxWhileClientsAsk() async throws {
        let directory = try makeTemporaryDirectory()
        let served = directory.appendingPathComponent("served").path, staging = directory.appendingPathComponent("staging").path
        try write(served, 0..<2)
        var configuration = OriginConfiguration()
        configuration.hotSetBytes = 0  // every answer reads its file through the index's reader, across the switch
        let origin = try await OriginHarness.serve(self, root: served, configuration: configuration)
        let before = try await origin.get(thumbnail(2))
        XCTAssertEqual(before.status, 404)
        let appManifestBefore = try await origin.get("/v1/manifest")
        XCTAssertEqual(appManifestBefore.status, 200)

        let statuses = StatusLedger()
        let clients = Task.detached { [images] in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        var request = client
                        while !Task.isCancelled {
                            let path = request % 3 == 2 ? "/healthz" : OriginHarness.thumbnailPath(
                                url: images[request % 2], size: 300, format: "jpeg")
                            await statuses.add(try await origin.get(path).status)
                            request += 1
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try write(staging, 0..<3)
        try publish(staging, into: served, as: "manifest-2.sqlite")
        try await eventually("the published manifest's new image is served") {
            try await origin.get(thumbnail(2)).status == 200
        }
        // Clients keep asking after the switch too, until each has sent a few more requests.
        let seen = await statuses.count
        try await eventually("more requests after the switch") { await statuses.count > seen + 20 }
        clients.cancel()
        if case .failure(let error) = await clients.result, !(error is CancellationError) { throw error }

        let counts = await statuses.counts
        XCTAssertEqual(counts.keys.sorted(), [200], "every image asked for is in both manifests, and health stays 200: \(counts)")
        let added = try await origin.get(thumbnail(2))
        XCTAssertEqual(added.body, data(2))
        XCTAssertEqual(added.header("ETag"), try OriginRequests.expectedETag(of: data(2)))
        // The app manifest is made again from the new file, not the body kept for the old one.
        let appManifestAfter = try await origin.get("/v1/manifest")
        XCTAssertNotEqual(appManifestAfter.header("ETag"), appManifestBefore.header("ETag"))
        XCTAssertTrue(String(decoding: appManifestAfter.body, as: UTF8.self).contains("/p/3.jpg"))
        let text = try await origin.metricsText()
        XCTAssertTrue(text.contains("warm_origin_index_files 3\n"), text)
        XCTAssertTrue(text.contains("warm_origin_index_reload_failing 0\n"), text)
    }

    func testAnUnreadableManifestKeepsTheLastGoodIndexServingAndReadyThenAGoodOneIsPickedUp() async throws {
        let directory = try makeTemporaryDirectory()
        let served = directory.appendingPathComponent("served").path, staging = directory.appendingPathComponent("staging").path
        try write(served, 0..<2)
        let origin = try await OriginHarness.serve(self, root: served)
        let loaded = try await origin.metricsText()
        XCTAssertTrue(loaded.contains("warm_origin_index_reload_failing 0\n"), loaded)
        let loadedAt = try XCTUnwrap(Self.sample("warm_origin_index_loaded_timestamp_seconds", in: loaded))
        XCTAssertGreaterThan(loadedAt, 0)

        // A torn or foreign file where the manifest was.
        let manifestDirectory = (CacheLayout(root: served).manifestPath as NSString).deletingLastPathComponent
        try Data(String(repeating: "not a database ", count: 100).utf8).write(
            to: URL(fileURLWithPath: manifestDirectory + "/manifest-torn.sqlite"))
        try pointManifest(of: served, at: "manifest-torn.sqlite")
        try await eventually("the gauge says the newest manifest cannot be read") {
            try await origin.metricsText().contains("warm_origin_index_reload_failing 1\n")
        }
        for index in 0..<2 {
            let answer = try await origin.get(thumbnail(index))
            XCTAssertEqual(answer.status, 200, "the last good index still serves \(images[index])")
            XCTAssertEqual(answer.body, data(index))
        }
        let health = try await origin.get("/healthz")
        XCTAssertEqual(health.status, 200, "a bad publish does not take the replica out of the Service")
        XCTAssertTrue(String(decoding: health.body, as: UTF8.self).contains("the newest cannot be read"))
        let failing = try await origin.metricsText()
        XCTAssertEqual(Self.sample("warm_origin_index_loaded_timestamp_seconds", in: failing), loadedAt,
                       "the index is the one loaded before")
        let missing = try await origin.get(thumbnail(2))
        XCTAssertEqual(missing.status, 404)

        try write(staging, 0..<3)
        try publish(staging, into: served, as: "manifest-3.sqlite")
        try await eventually("the good manifest after the bad one is served") {
            try await origin.get(thumbnail(2)).status == 200
        }
        let recovered = try await origin.metricsText()
        XCTAssertTrue(recovered.contains("warm_origin_index_reload_failing 0\n"), recovered)
        XCTAssertTrue(recovered.contains("warm_origin_index_files 3\n"), recovered)
        let healthy = try await origin.get("/healthz")
        XCTAssertEqual(String(decoding: healthy.body, as: UTF8.self), "ok\n")
    }

    /// The value of an unlabelled sample in Prometheus text.
    private static func sample(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }
}

/// The statuses the clients of the switch test received.
private actor StatusLedger {
    private(set) var counts: [Int: Int] = [:]
    var count: Int { counts.values.reduce(0, +) }

    func add(_ status: Int) { counts[status, default: 0] += 1 }
}
