import AsyncHTTPClient
@testable import Cache
import CacheTestSupport
import Foundation
import Logging
import NIOCore
@testable import Servers
import WarmTestSupport
import XCTest

/// A cache written through `DiskCache` (real files, real SQLite) and an
/// `Origin` serving it on 127.0.0.1, with a real HTTP client; stopped when the test ends.
struct OriginHarness {
    let root: String
    let origin: Origin
    let running: RunningServer

    typealias Answer = OriginAnswer

    static func start(_ test: XCTestCase, writing entries: [(url: String, variant: CacheVariant, data: Data)],
                      configuration: OriginConfiguration = OriginConfiguration()) async throws -> OriginHarness {
        let root = try test.makeTemporaryDirectory("origin").appendingPathComponent("cache").path
        let cache = try DiskCache.open(root: root)
        for entry in entries {
            try cache.store(url: entry.url, productIds: [1], variant: entry.variant, data: entry.data,
                            metadata: CacheMetadata(sourceBytes: 1000, sourceFormat: "jpeg", sourceWidth: 800, sourceHeight: 600,
                                                    outputWidth: entry.variant.longestSide, outputHeight: 10,
                                                    fetchedAt: Date().timeIntervalSince1970))
        }
        try cache.close()
        return try await serve(test, root: root, configuration: configuration)
    }

    /// An origin on `root` as it is (no manifest, an old one, ...).
    static func serve(_ test: XCTestCase, root: String,
                      configuration: OriginConfiguration = OriginConfiguration()) async throws -> OriginHarness {
        var configuration = configuration
        configuration.port = 0
        let origin = try Origin(cacheDirectory: root, configuration: configuration)
        let running = try await origin.start(handlingSignals: false, logger: {
            var logger = Logger(label: "origin-test")
            logger.logLevel = .warning
            return logger
        }())
        let harness = OriginHarness(root: root, origin: origin, running: running)
        test.addTeardownBlock { await harness.stop() }
        return harness
    }

    func stop() async {
        await running.shutdown()
        await origin.close()
    }

    static func thumbnailPath(url: String, size: Int, format: String? = nil) -> String {
        OriginRequests.thumbnailPath(url: url, size: size, format: format)
    }

    func get(_ pathAndQuery: String, head: Bool = false, headers: [(String, String)] = []) async throws -> Answer {
        try await OriginRequests.get(running.baseURL.absoluteString + pathAndQuery, head: head, headers: headers,
                                     timeout: .seconds(10))
    }

    /// The Prometheus text the origin answers at `/metrics`.
    func metricsText() async throws -> String {
        String(decoding: try await get("/metrics").body, as: UTF8.self)
    }

    /// A request to the admin port (`OriginConfiguration.adminPort`).
    func admin(_ path: String, head: Bool = false) async throws -> Answer {
        let base = try XCTUnwrap(origin.adminURL, "the origin was started without an admin port")
        return try await OriginRequests.get(base.absoluteString + path, head: head, timeout: .seconds(10))
    }
}


/// One request written byte for byte on a new connection (no client library
/// to normalise it), and the status line's code and the whole answer as text.
func rawRequest(port: Int, _ text: String) throws -> (status: Int, text: String) {
    let connection = try RawConnection(port: port)
    connection.sendWhileRead(text)  // the server may answer and close before reading a huge request
    let reply = String(decoding: connection.readToClose(), as: UTF8.self)
    let status = reply.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
    return (status, reply)
}
