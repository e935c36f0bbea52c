@testable import Cache
import CacheTestSupport
@testable import Servers
@testable import Downsample
import Foundation
import Hummingbird
@testable import Pipeline
import WarmTestSupport
import XCTest

/// `warm run` (the real binary) against an API whose product records point at
/// an internal service: a second loopback server on another port that must
/// receive no request at all, directly or through a redirect, until the
/// operator allows it with --allow-host.
final class HostPolicyRunTests: XCTestCase {
    func testProductRecordsCannotMakeTheRunFetchAnInternalHost() async throws {
        let jpeg = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 120, height: 90, seed: 1),
                                            width: 120, height: 90, bands: 3, as: CompositionEncoding(format: .jpeg))
        let backendHits = Counter()
        let backendRouter = Router()
        backendRouter.get("**") { request, _ in
            await backendHits.increment(request.uri.path)
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
        let backend = try await RunningServer.start(router: backendRouter)
        let apiPort = try Socket.ephemeralPort()
        let api = "http://127.0.0.1:\(apiPort)"
        let products: [(id: Int, thumbnail: String)] = [
            (1, "\(api)/img/own.jpg"),                                      // the API's own host: fetched
            (2, "http://127.0.0.1:\(backend.port)/secret.jpg"),            // another port on loopback: refused
            (3, "\(api)/moved.jpg"),                                         // redirects to the internal server: refused
            (4, "http://localhost:\(apiPort)/img/alias.jpg"),               // a name that resolves to loopback: refused
        ]
        let page = try JSONSerialization.data(withJSONObject: [
            "pageNo": 1, "itemsPerPage": 10, "totalCount": products.count, "lastPage": 1,
            "pages": products.map { ["id": $0.id, "name": "p\($0.id)", "thumbnail": $0.thumbnail] },
        ])
        let apiRouter = Router()
        apiRouter.get("api/products") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: page)))
        }
        apiRouter.get("img/:name") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
        apiRouter.get("moved.jpg") { _, _ in
            Response.redirect(to: "http://127.0.0.1:\(backend.port)/via-redirect.jpg", type: .found)
        }
        let apiServer = try await RunningServer.start(router: apiRouter, port: apiPort)
        let directory = try makeTemporaryDirectory("hosts")
        let cache = directory.appendingPathComponent("cache").path
        let arguments = ["run", "--api", api, "--cache-dir", cache, "--size", "40", "--no-progress", "--max-failed", "0"]

        let refused = try WarmBinary.run(arguments)
        let hitsWhileRefused = await backendHits.counts
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertEqual(hitsWhileRefused, [:], "no request may reach the internal server")
        let summary = try Self.summary(cache)
        XCTAssertEqual(summary.imagesDownloaded, 1)
        XCTAssertEqual(summary.failedByReason, ["host-not-allowed": 3])
        let manifest = try DiskCache.open(root: cache)
        let variant = CacheVariant(longestSide: 40, format: .jpeg)
        let secret = try XCTUnwrap(try manifest.lookup(url: products[1].thumbnail, variant: variant)?.lastError)
        XCTAssertTrue(secret.contains(products[1].thumbnail) && secret.contains("host 127.0.0.1 is not allowed"), secret)
        XCTAssertTrue(secret.contains("loopback"), secret)
        let redirected = try XCTUnwrap(try manifest.lookup(url: products[2].thumbnail, variant: variant)?.lastError)
        XCTAssertTrue(redirected.contains("redirects to http://127.0.0.1:\(backend.port)/via-redirect.jpg"), redirected)
        let alias = try XCTUnwrap(try manifest.lookup(url: products[3].thumbnail, variant: variant)?.lastError)
        XCTAssertTrue(alias.contains("host localhost is not allowed") && alias.contains("loopback"), alias)
        try manifest.close()

        // Allowed explicitly: the re-run fetches exactly the three refused images.
        let allowed = try WarmBinary.run(arguments + ["--allow-host", "127.0.0.1:\(backend.port)", "--allow-host", "localhost"])
        let hitsWhenAllowed = await backendHits.counts
        await apiServer.shutdown()
        await backend.shutdown()
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(try Self.summary(cache).imagesDownloaded, 3)
        XCTAssertEqual(hitsWhenAllowed, ["/secret.jpg": 1, "/via-redirect.jpg": 1])
    }

    static func summary(_ cache: String) throws -> WarmSummary {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(WarmSummary.self, from: Data(contentsOf: URL(fileURLWithPath: cache + "/last-run.json")))
    }
}

