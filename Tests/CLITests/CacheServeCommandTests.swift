@testable import Cache
import CacheTestSupport
@testable import Downsample
import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `warm cache serve` with the real binary, over caches `warm run` wrote
/// against a loopback catalog; the last test serves while a run rewrites the
/// cache and an eviction runs.
final class CacheServeCommandTests: XCTestCase {
    private static let size = 64
    private let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"

    private func images(_ count: Int, seedOffset: UInt64 = 0) throws -> [(name: String, data: Data)] {
        try (0..<count).map { index in
            (name: "p\(index)", data: try ImageComposer.encode(
                pixels: ImageComposer.pattern(width: 320, height: 240, seed: UInt64(index + 1) + seedOffset), width: 320,
                height: 240, bands: 3, as: CompositionEncoding(format: .jpeg)))
        }
    }

    private func warm(_ server: StaticCatalogServer, cache: String, _ extra: [String]) throws {
        let result = try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache,
                                         "--size", String(Self.size), "--no-progress", "--concurrency", "2",
                                         "--decode-concurrency", "1"] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// The bytes of the file the layout names for `url` in `format`.
    private func cachedFile(_ cache: String, url: String, format: OutputFormat) throws -> Data {
        let relative = CacheLayout.relativePath(url: try CanonicalURL(url), variant: CacheVariant(longestSide: Self.size, format: format))
        return try Data(contentsOf: URL(fileURLWithPath: cache + "/" + relative))
    }

    func testAfterTwoRunsInTwoFormatsEveryImageIsServedWithItsBytesAndNegotiated() async throws {
        let directory = try makeTemporaryDirectory()
        let files = try images(5)
        let server = try StaticCatalogServer(files: files, directory: directory)
        addTeardownBlock { server.stop() }
        let cache = directory.appendingPathComponent("cache").path
        try warm(server, cache: cache, ["--format", "jpeg"])
        try warm(server, cache: cache, ["--format", "webp"])

        let origin = try OriginProcess(cache: cache, self)
        for file in files {
            let url = server.url(of: file.name)
            let jpeg = try await origin.get(OriginProcess.thumbnailQuery(url: url, size: Self.size, format: "jpeg"))
            XCTAssertEqual(jpeg.status, 200, url)
            XCTAssertEqual(jpeg.header("Content-Type"), "image/jpeg")
            XCTAssertEqual(jpeg.body, try cachedFile(cache, url: url, format: .jpeg), url)
            XCTAssertEqual(jpeg.header("ETag"), try OriginRequests.expectedETag(of: jpeg.body))

            let negotiated = try await origin.get(OriginProcess.thumbnailQuery(url: url, size: Self.size), headers: [("Accept", chrome)])
            XCTAssertEqual(negotiated.status, 200)
            XCTAssertEqual(negotiated.header("Content-Type"), "image/webp", "the smaller format the cache holds")
            XCTAssertEqual(negotiated.header("Vary"), "Accept")
            XCTAssertEqual(negotiated.body, try cachedFile(cache, url: url, format: .webp))
            let plain = try await origin.get(OriginProcess.thumbnailQuery(url: url, size: Self.size), headers: [("Accept", "*/*")])
            XCTAssertEqual(plain.header("Content-Type"), "image/jpeg")
            XCTAssertEqual(plain.header("Vary"), "Accept")

            let repeated = try await origin.get(OriginProcess.thumbnailQuery(url: url, size: Self.size), headers: [
                ("Accept", chrome), ("If-None-Match", try XCTUnwrap(negotiated.header("ETag"))),
            ])
            XCTAssertEqual(repeated.status, 304)
            XCTAssertTrue(repeated.body.isEmpty)
        }
        let url = server.url(of: files[0].name)
        let encodedPasswd = "..%2F..%2F..%2F..%2Fetc%2Fpasswd"
        for (query, expected) in [
            ("url=\(encodedPasswd)&size=\(Self.size)", 400), ("url=file%3A%2F%2F%2Fetc%2Fpasswd&size=\(Self.size)", 400),
            ("url=\(url)%C3%28&size=\(Self.size)", 400), ("url=\(url)&size=-1", 400), ("url=\(url)&size=abc", 400),
            ("url=\(url)&size=99999999999999999999", 400), ("url=\(url)&size=\(Self.size)&format=gif", 400),
            ("url=\(url)&size=\(Self.size + 1)", 404), ("url=\(url)x&size=\(Self.size)", 404),
            ("url=" + String(repeating: "a", count: 9000) + "&size=\(Self.size)", 400),
        ] {
            let answer = try await origin.get("/v1/thumbnail?" + query)
            XCTAssertEqual(answer.status, expected, String(query.prefix(100)))
            XCTAssertFalse(String(decoding: answer.body, as: UTF8.self).contains("root:"))
        }
        let metrics = String(decoding: try await origin.get("/metrics").body, as: UTF8.self)
        XCTAssertTrue(metrics.contains("warm_origin_misses_total 2"), metrics)
        let status = try await origin.terminate()
        XCTAssertEqual(status, 0, "SIGTERM stops the origin cleanly")
    }

    func testEveryBodyMatchesItsETagWhileARunRewritesTheCacheAndAnEvictionRuns() async throws {
        let directory = try makeTemporaryDirectory()
        let files = try images(16)
        let server = try StaticCatalogServer(files: files, directory: directory)
        addTeardownBlock { server.stop() }
        let cache = directory.appendingPathComponent("cache").path
        try warm(server, cache: cache, ["--format", "jpeg"])
        let origin = try OriginProcess(cache: cache, self)
        let urls = files.map { server.url(of: $0.name) }

        // Every image changes at its URL (newer Last-Modified), so a run that revalidates everything rewrites every file.
        let later = Date().addingTimeInterval(120)
        for (file, changed) in zip(files, try images(files.count, seedOffset: 100)) {
            let path = directory.appendingPathComponent("site/img/" + file.name)
            try changed.data.write(to: path)
            try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: path.path)
        }
        let rewrite = ["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", String(Self.size),
                       "--format", "jpeg", "--max-age", "0", "--no-progress", "--concurrency", "2", "--decode-concurrency", "1"]

        let bodies = BodyLedger()
        let clients = Task.detached { [urls, origin, bodies] in
            try await CacheServeCommandTests.request(urls, from: origin, clients: 4, into: bodies)
        }
        let rewritten = try await WarmBinary.spawn(rewrite).waitForExit()
        XCTAssertEqual(rewritten, .exited(0))
        let evict = try WarmBinary.run(["cache", "evict", cache, "--max-size", "1"])
        XCTAssertEqual(evict.status, 0, evict.stderr)
        // The origin rereads a changed manifest every 100 ms (`OriginConfiguration.refreshIntervalMilliseconds`).
        try await Task.sleep(for: .seconds(1))
        clients.cancel()
        _ = await clients.result

        let ledger = await bodies.snapshot()
        XCTAssertEqual(ledger.unexpected, [], "only 200 and (after the eviction) 404")
        XCTAssertGreaterThan(ledger.okCount, urls.count, "the clients were served during the rewrite")
        XCTAssertGreaterThan(ledger.notFoundCount, 0, "the eviction emptied the cache while the clients ran")
        for (etag, versions) in ledger.bodiesByETag {
            XCTAssertEqual(versions.count, 1, "one body per ETag")
            XCTAssertEqual(try OriginRequests.expectedETag(of: versions.first!), etag, "the body matches its ETag")
        }
        let changedURLs = ledger.etagsByURL.values.filter { $0.count >= 2 }.count
        print("origin under a rewrite: \(ledger.okCount) bodies, \(ledger.bodiesByETag.count) distinct, \(changedURLs) of \(urls.count) URLs seen in two versions, \(ledger.notFoundCount) 404s")
        XCTAssertGreaterThan(changedURLs, 0, "some image was served before and after its rewrite")
    }

    func testOnAnEmptyVolumeHealthIs503UntilARunHasWrittenThen200WithoutARestart() async throws {
        let directory = try makeTemporaryDirectory()
        let files = try images(3)
        let server = try StaticCatalogServer(files: files, directory: directory)
        addTeardownBlock { server.stop() }
        let cache = directory.appendingPathComponent("cache").path
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let origin = try OriginProcess(cache: cache, self)
        let url = server.url(of: files[0].name)
        let before = try await origin.get("/healthz")
        XCTAssertEqual(before.status, 503)
        XCTAssertEqual(String(decoding: before.body, as: UTF8.self), "no manifest yet\n")
        let missing = try await origin.get(OriginProcess.thumbnailQuery(url: url, size: Self.size))
        XCTAssertEqual(missing.status, 404)

        try warm(server, cache: cache, ["--format", "jpeg"])
        // The index follows the manifest within its refresh interval (100 ms): healthz can turn 200 while the run is
        // still storing, so wait for the image itself, which the finished run has stored.
        let query = OriginProcess.thumbnailQuery(url: url, size: Self.size, format: "jpeg")
        let deadline = ContinuousClock.now + .seconds(10)
        var image = try await origin.get(query)
        while image.status != 200 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            image = try await origin.get(query)
        }
        let after = try await origin.get("/healthz")
        XCTAssertEqual(after.status, 200, "once the run has made a manifest, without a restart")
        XCTAssertEqual(image.status, 200)
        XCTAssertEqual(image.body, try cachedFile(cache, url: url, format: .jpeg))
        XCTAssertEqual(image.header("ETag"), try OriginRequests.expectedETag(of: image.body))
    }

    func testWithAnAdminPortTheProbesAndMetricsAnswerThereAndNotOnThePublicPort() async throws {
        let cache = try makeTemporaryDirectory().appendingPathComponent("cache").path
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let child = try ChildProcess.spawn(WarmBinary.url.path,
                                           arguments: ["cache", "serve", cache, "--port", "0", "--admin-port", "0"],
                                           environment: ProcessInfo.processInfo.environment, standardOutput: .pipe)
        let output = try XCTUnwrap(child.standardOutput)
        defer { close(output) }
        do {
            try await assertTheAdminPortSeparatesTheEndpoints(printedOn: output)
        } catch {
            child.kill()
            _ = await child.exitStatus()
            throw error
        }
        child.kill(SIGTERM)
        let status = await child.exitStatus()
        XCTAssertEqual(status, .exited(0), "SIGTERM stops both ports cleanly")
    }

    private func assertTheAdminPortSeparatesTheEndpoints(printedOn output: Int32) async throws {
        // Two lines: the public URL, then the admin one (blocking reads, off the cooperative pool).
        let printed = await BlockingWork.run { () -> Data in
            var printed = Data()
            while printed.filter({ $0 == UInt8(ascii: "\n") }).count < 2, let chunk = FileDescriptorIO.readChunk(output) {
                printed.append(contentsOf: chunk)
            }
            return printed
        }
        let urls = String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(urls.count, 2, "\(urls)")
        let (publicURL, adminURL) = (try XCTUnwrap(urls.first), try XCTUnwrap(urls.last))
        XCTAssertNotEqual(publicURL, adminURL)
        for (path, adminStatus) in [("/livez", 200), ("/healthz", 503), ("/metrics", 200)] {
            let onPublic = try await OriginRequests.get(publicURL + path, timeout: .seconds(20))
            XCTAssertEqual(onPublic.status, 404, "\(path) is not on the public port")
            let onAdmin = try await OriginRequests.get(adminURL + path, timeout: .seconds(20))
            XCTAssertEqual(onAdmin.status, adminStatus, "\(path) on the admin port (no run has written the cache yet)")
        }
        let metrics = String(decoding: try await OriginRequests.get(adminURL + "/metrics", timeout: .seconds(20)).body, as: UTF8.self)
        XCTAssertTrue(metrics.contains("warm_build_info{component=\"origin\""), metrics)
        let thumbnail = try await OriginRequests.get(publicURL + OriginProcess.thumbnailQuery(url: "https://x.test/1.jpg", size: 64),
                                                     timeout: .seconds(20))
        XCTAssertEqual(thumbnail.status, 404, "thumbnails are on the public port (this one is not cached)")
    }

    /// `clients` loops, each asking for every URL in turn until cancelled.
    private static func request(_ urls: [String], from origin: OriginProcess, clients: Int, into ledger: BodyLedger) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask {
                    var index = client
                    while !Task.isCancelled {
                        let url = urls[index % urls.count]
                        await ledger.add(url: url, try await origin.get(OriginProcess.thumbnailQuery(url: url, size: size, format: "jpeg")))
                        index += 1
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// What the clients of the consistency test received.
private actor BodyLedger {
    struct Snapshot {
        var okCount = 0
        var notFoundCount = 0
        var unexpected: [Int] = []
        var bodiesByETag: [String: Set<Data>] = [:]
        var etagsByURL: [String: Set<String>] = [:]
    }

    private var state = Snapshot()

    func add(url: String, _ answer: OriginProcess.Answer) {
        switch answer.status {
        case 200:
            state.okCount += 1
            let etag = answer.header("ETag") ?? "none"
            state.bodiesByETag[etag, default: []].insert(answer.body)
            state.etagsByURL[url, default: []].insert(etag)
        case 404: state.notFoundCount += 1
        default: state.unexpected.append(answer.status)
        }
    }

    func snapshot() -> Snapshot { state }
}
