@testable import Servers
@testable import Fetch
import Foundation
import Hummingbird
import WarmTestSupport
import XCTest

/// DNS rebinding: a name that answers a public address to the host check and
/// a loopback one afterwards must not get a request onto loopback. The
/// resolver is the test's; the loopback server is real and counts requests.
final class DNSRebindingTests: XCTestCase {
    /// 192.0.2.1 (TEST-NET-1) counts as public for the policy and answers nothing.
    private static let publicAnswer = IPAddress("192.0.2.1")!
    private static let loopbackAnswer = IPAddress("127.0.0.1")!

    /// Answers the public address to the first lookup of a name, loopback to every later one.
    private static func rebindingResolver(_ lookUps: Counter) -> HostResolver {
        HostResolver { host in
            let call = await lookUps.increment(host)
            return call == 1 ? [publicAnswer] : [loopbackAnswer]
        }
    }

    private static func countingServer(_ hits: Counter) async throws -> FixtureServer {
        let router = Router()
        router.get("secret") { _, _ in
            await hits.increment()
            return "internal"
        }
        router.get("moved") { request, _ in
            Response.redirect(to: request.uri.queryParameters.get("to") ?? "/")
        }
        return try await FixtureServer.start(router)
    }

    func testNameThatAnswersPublicThenLoopbackNeverReachesLoopback() async throws {
        let hits = Counter(), lookUps = Counter()
        let server = try await Self.countingServer(hits)
        let url = try XCTUnwrap(URL(string: "http://localhost:\(server.port)/secret"))
        let gate = HostGate(named: [HostPattern(host: "localhost", port: server.port)],
                            resolver: Self.rebindingResolver(lookUps))
        let fetcher = HTTPFetcher(configuration: TestSettings.fetch(maxAttempts: 2), hostGate: gate)
        let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
        try await fetcher.shutdown()

        XCTAssertEqual(error?.url, url)
        XCTAssertTrue(error?.description.contains(url.absoluteString) == true, error?.description ?? "")
        XCTAssertTrue(["connection", "timeout", "deadline"].contains(error?.reasonCode ?? ""), error?.description ?? "")
        if case .connection = error {
            XCTAssertTrue(error?.description.contains("192.0.2.1, the address localhost was checked at") == true,
                          error?.description ?? "")
        }
        let lookUpCount = await lookUps.count("localhost")
        XCTAssertEqual(lookUpCount, 1, "the name is resolved once, for the check, and never again for the connection")
        let reached = await hits.count()
        XCTAssertEqual(reached, 0, "no request may reach the loopback server")

        // The same URL fetched by name, without the gate, does reach the
        // server: the count above would have seen a request that got through.
        let unpinned = HTTPFetcher(configuration: TestSettings.fetch(maxAttempts: 1))
        let body = try await fetched(unpinned, url).body
        try await unpinned.shutdown()
        await server.shutdown()
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "internal")
        let reachedByName = await hits.count()
        XCTAssertEqual(reachedByName, 1)
    }

    func testRedirectToARebindingNameIsPinnedToo() async throws {
        let hits = Counter(), lookUps = Counter()
        let server = try await Self.countingServer(hits)
        let target = "http://localhost:\(server.port)/secret"
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(server.port)/moved?to=\(target)"))
        let gate = HostGate(explicit: [HostPattern(host: "127.0.0.1", port: server.port)],
                            named: [HostPattern(host: "localhost", port: server.port)],
                            resolver: Self.rebindingResolver(lookUps))
        let fetcher = HTTPFetcher(configuration: TestSettings.fetch(maxAttempts: 2), hostGate: gate)
        let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
        try await fetcher.shutdown()
        await server.shutdown()

        XCTAssertEqual(error?.url, url, "the error names the URL asked for")
        XCTAssertTrue(error?.description.contains(url.absoluteString) == true, error?.description ?? "")
        XCTAssertTrue(["connection", "timeout", "deadline"].contains(error?.reasonCode ?? ""), error?.description ?? "")
        let lookUpCount = await lookUps.count("localhost")
        XCTAssertEqual(lookUpCount, 1)
        let reached = await hits.count()
        XCTAssertEqual(reached, 0, "the redirect target's request must not reach loopback")
    }

    func testGateResolvesANameOnceAndPinsTheAnswerItChecked() async throws {
        let lookUps = Counter()
        let gate = HostGate(
            explicit: [HostPattern(host: "api.example")],
            named: [HostPattern(host: "cdn.example"), HostPattern(host: "93.184.216.34")],
            resolver: Self.rebindingResolver(lookUps))
        let cdn = try XCTUnwrap(URL(string: "https://cdn.example/a.jpg"))
        let pins = try await withThrowingTaskGroup(of: PinnedHost?.self) { group in
            for _ in 0..<8 { group.addTask { try await gate.check(cdn, requested: cdn) } }
            return try await group.reduce(into: [PinnedHost?]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(pins), [PinnedHost(host: "cdn.example", addresses: [Self.publicAnswer])])
        let lookUpCount = await lookUps.count("cdn.example")
        XCTAssertEqual(lookUpCount, 1, "concurrent first checks share one lookup")

        // Explicit hosts are allowed at any address: not resolved, not pinned. Literals need no lookup.
        let api = try XCTUnwrap(URL(string: "https://api.example/products"))
        let apiPin = try await gate.check(api, requested: api)
        XCTAssertNil(apiPin)
        let literal = try XCTUnwrap(URL(string: "http://93.184.216.34/b.jpg"))
        let literalPin = try await gate.check(literal, requested: literal)
        XCTAssertNil(literalPin)
        let apiLookUps = await lookUps.count("api.example")
        XCTAssertEqual(apiLookUps, 0)
    }

    func testPinnedRetriesGoRoundTheCheckedAddresses() throws {
        let pin = try XCTUnwrap(PinnedHost(host: "cdn.example", addresses: [IPAddress("192.0.2.1")!, IPAddress("2001:db8::1")!]))
        XCTAssertEqual((1...4).map { pin.address(forAttempt: $0).text }, ["192.0.2.1", "2001:db8::1", "192.0.2.1", "2001:db8::1"])
        XCTAssertNil(PinnedHost(host: "cdn.example", addresses: []))
    }
}
