@testable import Cache
@testable import Downsample
import Foundation
@testable import Pipeline
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `warm run --urls` and `warm run --sitemap`, the real binary against Python's http.server on loopback: each warms
/// exactly the images its source names and a second run downloads none; a source that cannot be read whole (a bad
/// line, a sitemap whose child is missing, a DTD) exits 6 and prunes nothing, even with `--prune-after 0s`.
final class CatalogSourceRunTests: XCTestCase {
    func testAURLListWarmsExactlyItsImagesOnceAndABadLineExitsSixWithNothingPruned() throws {
        let (server, directory) = try serve(images: 5)
        let cache = directory.appendingPathComponent("cache").path
        let list = directory.appendingPathComponent("urls.txt")
        try "# tonight's images\r\n\(server.url(of: "p0")) 1001\n\n\(server.url(of: "p1")) 1001\n  \(server.url(of: "p2"))  \n"
            .appending("\(server.url(of: "p0")) 1002\n").write(to: list, atomically: true, encoding: .utf8)
        let arguments = ["run", "--urls", list.path, "--cache-dir", cache, "--size", "64", "--no-progress", "--prune-after", "0s",
                         "--allow-host", Self.hostAndPort(server)]
        let first = try WarmBinary.run(arguments)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try summary(cache).imagesDownloaded, 3)
        XCTAssertEqual(try cachedURLs(cache), Set(["p0", "p1", "p2"].map(server.url(of:))))
        XCTAssertEqual(try productIds(cache, server.url(of: "p0")), [1001, 1002], "both lines' product ids are kept")

        let second = try WarmBinary.run(arguments)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try summary(cache).imagesDownloaded, 0, "a second run downloads none")

        // A typo in tonight's list: what it names is warmed, nothing is pruned, and the run says which line.
        try "\(server.url(of: "p3"))\nhttp//typo.example/p1.jpg\n".write(to: list, atomically: true, encoding: .utf8)
        let typo = try WarmBinary.run(arguments)
        XCTAssertEqual(typo.status, 6, typo.stderr)
        XCTAssertTrue(typo.stderr.contains("\(list.path) line 2"), typo.stderr)
        XCTAssertEqual(try summary(cache).reasonCode, .listIncomplete)
        XCTAssertEqual(try cachedURLs(cache), Set(["p0", "p1", "p2", "p3"].map(server.url(of:))), "nothing pruned")

        // A whole list prunes what it no longer names (--prune-after 0s).
        try "\(server.url(of: "p3"))\n".write(to: list, atomically: true, encoding: .utf8)
        XCTAssertEqual(try WarmBinary.run(arguments).status, 0)
        XCTAssertEqual(try cachedURLs(cache), [server.url(of: "p3")])
    }

    func testAURLListNamingAPrivateHostIsRefusedByTheAllowList() throws {
        let (server, directory) = try serve(images: 1)
        let list = directory.appendingPathComponent("urls.txt")
        try "\(server.url(of: "p0"))\n".write(to: list, atomically: true, encoding: .utf8)
        let cache = directory.appendingPathComponent("cache").path
        let run = try WarmBinary.run(["run", "--urls", list.path, "--cache-dir", cache, "--no-progress", "--max-attempts", "1"])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertEqual(try summary(cache).failedByReason, ["host-not-allowed": 1])
        XCTAssertTrue(run.stderr.contains("--allow-host"), run.stderr)
    }

    func testASitemapIndexWithAGzippedChildWarmsExactlyItsImagesAndAMissingChildExitsSix() throws {
        let (server, directory) = try serve(images: 6)
        let site = server.directory.appendingPathComponent("site")
        let base = server.baseURL.absoluteString
        try Self.urlset(["shoes": ["p0", "p1"], "hats": ["p2"]], server).write(to: site.appendingPathComponent("a.xml"),
                                                                              atomically: true, encoding: .utf8)
        try Self.urlset(["bags": ["p3", "p0"]], server).write(to: site.appendingPathComponent("b.xml"), atomically: true, encoding: .utf8)
        let gzip = try ChildProcess.run("/usr/bin/env", arguments: ["gzip", site.appendingPathComponent("b.xml").path],
                                        environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(gzip.status.shellStatus, 0, gzip.stderr)
        try Self.index(["\(base)/a.xml", "\(base)/b.xml.gz"]).write(to: site.appendingPathComponent("index.xml"),
                                                                    atomically: true, encoding: .utf8)
        let cache = directory.appendingPathComponent("cache").path
        func run(_ sitemap: String) throws -> WarmBinary.Result {
            try WarmBinary.run(["run", "--sitemap", "\(base)/\(sitemap)", "--cache-dir", cache, "--size", "64", "--no-progress",
                                "--prune-after", "0s", "--max-attempts", "1"])
        }
        let first = try run("index.xml")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try summary(cache).imagesDownloaded, 4)
        XCTAssertEqual(try cachedURLs(cache), Set(["p0", "p1", "p2", "p3"].map(server.url(of:))))
        XCTAssertEqual(try run("index.xml").status, 0)
        XCTAssertEqual(try summary(cache).imagesDownloaded, 0, "a second run downloads none")

        // Halfway: the second child is missing. Nothing is warmed or pruned.
        try Self.index(["\(base)/a.xml", "\(base)/gone.xml"]).write(to: site.appendingPathComponent("broken.xml"),
                                                                     atomically: true, encoding: .utf8)
        let broken = try run("broken.xml")
        XCTAssertEqual(broken.status, 6, broken.stderr)
        XCTAssertTrue(broken.stderr.contains("\(base)/gone.xml"), broken.stderr)
        XCTAssertEqual(try cachedURLs(cache), Set(["p0", "p1", "p2", "p3"].map(server.url(of:))), "nothing pruned")

        // An entity bomb and an external entity: refused with a sentence before any parser expands them.
        let bomb = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>"#
            + #"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&lol2;</loc></url></urlset>"#
        let external = #"<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>"#
            + #"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&xxe;</loc></url></urlset>"#
        for (name, text) in [("bomb.xml", bomb), ("external.xml", external)] {
            try text.write(to: site.appendingPathComponent(name), atomically: true, encoding: .utf8)
            let refused = try run(name)
            XCTAssertEqual(refused.status, 6, "\(name): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("\(base)/\(name)") && refused.stderr.contains("DOCTYPE"), "\(name): \(refused.stderr)")
            XCTAssertFalse(refused.stderr.contains("root:"), "\(name): nothing of /etc/passwd is read")
        }
        XCTAssertEqual(try cachedURLs(cache).count, 4, "nothing pruned")
    }

    // MARK: - Helpers

    /// `images` small JPEGs, p0, p1, ..., served at /img/<name>.
    private func serve(images: Int) throws -> (StaticCatalogServer, URL) {
        let directory = try makeTemporaryDirectory()
        let files = try (0..<images).map { index in
            ("p\(index)", try ImageComposer.encode(pixels: ImageComposer.pattern(width: 96, height: 72, seed: UInt64(index + 1)),
                                                   width: 96, height: 72, bands: 3, as: CompositionEncoding(format: .jpeg)))
        }
        let server = try StaticCatalogServer(files: files, directory: directory)
        addTeardownBlock { server.stop() }
        return (server, directory)
    }

    private static func hostAndPort(_ server: StaticCatalogServer) -> String {
        "\(server.baseURL.host ?? "127.0.0.1"):\(server.baseURL.port ?? 80)"
    }

    /// A sitemap whose pages (`/product/<name>`) each show the named images.
    private static func urlset(_ pages: KeyValuePairs<String, [String]>, _ server: StaticCatalogServer) -> String {
        let entries = pages.map { page, images in
            "<url><loc>\(server.baseURL.absoluteString)/product/\(page)</loc>"
                + images.map { "<image:image><image:loc>\(server.url(of: $0))</image:loc></image:image>" }.joined() + "</url>"
        }
        return #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
            + #"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">"#
            + entries.joined(separator: "\n") + "</urlset>\n"
    }

    private static func index(_ sitemaps: [String]) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#
            + sitemaps.map { "<sitemap><loc>\($0)</loc></sitemap>" }.joined() + "</sitemapindex>\n"
    }

    private func summary(_ cache: String) throws -> WarmSummary {
        try GracefulStopTests.decodeSummary(cache + "/last-run.json")
    }

    private func cachedURLs(_ cache: String) throws -> Set<String> {
        let disk = try DiskCache.open(root: cache, readOnly: true)
        defer { try? disk.close() }
        var urls = Set<String>()
        try disk.maintenance.exportAppManifest { image in urls.insert(image.url) }
        return urls
    }

    private func productIds(_ cache: String, _ url: String) throws -> [Int] {
        let disk = try DiskCache.open(root: cache, readOnly: true)
        defer { try? disk.close() }
        var ids: [Int] = []
        try disk.maintenance.exportAppManifest { image in if image.url == url { ids = image.productIds } }
        return ids
    }
}
