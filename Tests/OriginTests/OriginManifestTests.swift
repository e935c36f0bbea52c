import AsyncHTTPClient
@testable import Cache
import CacheTestSupport
import Foundation
@testable import Servers
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// What the origin reads from the manifest: validators recorded at store time (filled for an old cache), the app
/// manifest at `/v1/manifest`, and a start on a directory no run has written yet.
final class OriginManifestTests: XCTestCase {
    private let images = (1...4).map { "https://img.example.test/p/\($0).jpg" }
    private let variant = CacheVariant(longestSide: 300, format: .jpeg)

    private func data(_ index: Int, salt: UInt8 = 0) -> Data {
        Data((0..<(1500 + index * 100)).map { UInt8(truncatingIfNeeded: $0 &* (index + 3)) ^ salt })
    }

    private func store(_ root: String, salt: UInt8 = 0) throws {
        let cache = try DiskCache.open(root: root)
        for (index, url) in images.enumerated() {
            try cache.store(url: url, productIds: [index + 1], variant: variant, data: data(index, salt: salt),
                            metadata: CacheMetadata(sourceBytes: 1000, sourceFormat: "jpeg", sourceWidth: 800, sourceHeight: 600,
                                                    outputWidth: 300, outputHeight: 225, fetchedAt: Date().timeIntervalSince1970))
        }
        try cache.close()
    }

    private func assertEveryETagIsTheSHA256OfTheFile(_ origin: OriginHarness, file: StaticString = #filePath,
                                                     line: UInt = #line) async throws {
        for url in images {
            let answer = try await origin.get(OriginHarness.thumbnailPath(url: url, size: 300, format: "jpeg"))
            let path = origin.root + "/" + CacheLayout.relativePath(url: try CanonicalURL(url), variant: variant)
            let onDisk = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertEqual(answer.status, 200, url, file: file, line: line)
            XCTAssertEqual(answer.body, onDisk, file: file, line: line)
            XCTAssertEqual(answer.header("ETag"), try OriginRequests.expectedETag(of: onDisk), url, file: file, line: line)
        }
    }

    func testACacheFromBeforeTheMigrationIsServedAndOnceOpenedEveryETagIsTheSHA256OfItsFile() async throws {
        let root = try makeTemporaryDirectory("origin").appendingPathComponent("cache").path
        try store(root)
        try ManifestDowngrade.toV3(manifestPath: root + "/manifest.sqlite")
        let origin = try await OriginHarness.serve(self, root: root)
        // Rows without validators: the origin hashes what it sends.
        try await assertEveryETagIsTheSHA256OfTheFile(origin)

        let cache = try DiskCache.open(root: root)
        let export = try Self.exportedLines(cache)
        try cache.close()
        XCTAssertEqual(export.count, images.count, "every row got its validators on open")
        try await eventually("the origin rereads the upgraded manifest") {
            try await self.manifestLines(origin) == export
        }
        try await assertEveryETagIsTheSHA256OfTheFile(origin)
        try await assertEveryETagIsTheSHA256OfTheFile(origin)  // now from the hot set
    }

    func testTheAppManifestIsGzippedWithAnETagThen304AndItsLinesAreTheExports() async throws {
        let root = try makeTemporaryDirectory("origin").appendingPathComponent("cache").path
        try store(root)
        let origin = try await OriginHarness.serve(self, root: root)
        let answer = try await Self.undecoded(origin, "/v1/manifest", headers: [("Accept-Encoding", "gzip")])
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers["content-encoding"], "gzip")
        XCTAssertEqual(answer.body.prefix(2), Data([0x1f, 0x8b]), "a gzip stream")
        let etag = try XCTUnwrap(answer.headers["etag"])
        let cache = try DiskCache.open(root: root)
        XCTAssertEqual(try Self.gunzip(answer.body), try Self.exportedLines(cache))
        try cache.close()

        let again = try await origin.get("/v1/manifest", headers: [("Accept-Encoding", "gzip"), ("If-None-Match", etag)])
        XCTAssertEqual(again.status, 304)
        XCTAssertTrue(again.body.isEmpty)
        XCTAssertEqual(again.header("ETag"), etag)
        let refused = try await origin.get("/v1/manifest", headers: [("Accept-Encoding", "br, gzip;q=0")])
        XCTAssertEqual(refused.status, 406)

        // A run rewrites the thumbnails: a new body and ETag, equal to the new export.
        try store(root, salt: 0x5a)
        try await eventually("the manifest's ETag changes") {
            try await origin.get("/v1/manifest", headers: [("If-None-Match", etag)]).status == 200
        }
        let changed = try await Self.undecoded(origin, "/v1/manifest")
        XCTAssertNotEqual(changed.headers["etag"], etag)
        let reopened = try DiskCache.open(root: root)
        XCTAssertEqual(try Self.gunzip(changed.body), try Self.exportedLines(reopened))
        try reopened.close()
    }

    func testOnAnEmptyDirectoryImagesAre404AndHealthIs503UntilARunHasWritten() async throws {
        let root = try makeTemporaryDirectory("origin").path
        let origin = try await OriginHarness.serve(self, root: root)
        let health = try await origin.get("/healthz")
        XCTAssertEqual(health.status, 503)
        XCTAssertEqual(String(decoding: health.body, as: UTF8.self), "no manifest yet\n")
        let image = try await origin.get(OriginHarness.thumbnailPath(url: images[0], size: 300))
        XCTAssertEqual(image.status, 404)
        let manifest = try await origin.get("/v1/manifest")
        XCTAssertEqual(manifest.status, 503)

        try store(root)
        // Healthz can turn 200 while the rows are still being stored; the index follows within its refresh interval.
        try await eventually("every stored image is served") {
            for url in images where try await origin.get(OriginHarness.thumbnailPath(url: url, size: 300)).status != 200 {
                return false
            }
            return true
        }
        let health200 = try await origin.get("/healthz")
        XCTAssertEqual(health200.status, 200)
        try await assertEveryETagIsTheSHA256OfTheFile(origin)
        let written = try await origin.get("/v1/manifest")
        XCTAssertEqual(written.status, 200)
    }

    func testAFileRenamedOverBehindItsRowIsSentWithTheETagOfItsOwnBytes() async throws {
        let root = try makeTemporaryDirectory("origin").appendingPathComponent("cache").path
        try store(root)
        var configuration = OriginConfiguration()
        configuration.hotSetBytes = 0  // every body from disk
        let origin = try await OriginHarness.serve(self, root: root, configuration: configuration)
        try await assertEveryETagIsTheSHA256OfTheFile(origin)
        // As a run does between its rename and its row: other bytes at the path, the row still the old one's.
        for (index, url) in images.enumerated() {
            let path = root + "/" + CacheLayout.relativePath(url: try CanonicalURL(url), variant: variant)
            try data(index, salt: 0x33).write(to: URL(fileURLWithPath: path + ".new"))
            XCTAssertEqual(rename(path + ".new", path), 0)
        }
        try await assertEveryETagIsTheSHA256OfTheFile(origin)
    }

    // MARK: - Helpers

    private func manifestLines(_ origin: OriginHarness) async throws -> [String] {
        let answer = try await Self.undecoded(origin, "/v1/manifest")
        guard answer.status == 200 else { return [] }
        return try Self.gunzip(answer.body)
    }

    /// The body as sent: `HTTPClient.shared` decodes gzip as a browser does, so this client is one that does not.
    static func undecoded(_ origin: OriginHarness, _ path: String, headers: [(String, String)] = []) async throws
        -> (status: Int, headers: [String: String], body: Data) {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration())
        do {
            var request = HTTPClientRequest(url: origin.running.baseURL.absoluteString + path)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response = try await client.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 24)
            try await client.shutdown()
            return (Int(response.status.code), Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { $1 },
                    Data(body.readableBytesView))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func exportedLines(_ cache: DiskCache) throws -> [String] {
        var lines: [String] = []
        try cache.maintenance.exportAppManifest { image throws(CacheError) in
            lines.append(String(decoding: (try? JSONLines.line(image)) ?? Data(), as: UTF8.self))
        }
        return lines
    }

    /// Through the system's gzip, not the library the origin compresses with.
    static func gunzip(_ data: Data) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gunzip-" + UUID().uuidString)
        try data.write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let gzip = try ChildProcess.run("/bin/gzip", arguments: ["-dc", directory.path], environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(gzip.status, .exited(0), "gzip -d accepts the body: \(gzip.stderr)")
        return gzip.stdout.split(separator: "\n").map { String($0) + "\n" }
    }
}
