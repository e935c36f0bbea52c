import AsyncHTTPClient
@testable import Servers
@testable import Fetch
import Foundation
import Hummingbird
import WarmTestSupport
import XCTest

/// How a pinned connection is made (async-http-client's `dnsOverride`): to
/// the pinned address, with the host name kept in the request. The rebinding
/// tests show where a request does not go; this one shows where it goes.
final class PinnedClientsTests: XCTestCase {
    func testPinnedClientConnectsToTheAddressAndSendsTheName() async throws {
        let hosts = Counter()
        let router = Router()
        router.get("whoami") { request, _ in
            await hosts.increment(request.head.authority ?? "")
            return "pinned"
        }
        let server = try await FixtureServer.start(router)
        let clients = PinnedClients { HTTPFetcher.makeClient(TestSettings.fetch(), dnsOverride: $0) }
        // A name no resolver knows (.invalid): the request can only arrive through the pin.
        let name = "warm-pinned.invalid"
        let made = await clients.client(host: name, address: IPAddress("127.0.0.1")!)
        let client = try XCTUnwrap(made)
        let response = try await client.execute(HTTPClientRequest(url: "http://\(name):\(server.port)/whoami"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1024)
        let again = await clients.client(host: name, address: IPAddress("127.0.0.1")!)
        try await clients.shutdown()
        let afterShutdown = await clients.client(host: name, address: IPAddress("127.0.0.1")!)
        await server.shutdown()

        XCTAssertEqual(response.status.code, 200)
        XCTAssertEqual(String(buffer: body), "pinned")
        let seen = await hosts.counts
        XCTAssertEqual(seen, ["\(name):\(server.port)": 1], "the Host header keeps the name")
        XCTAssertTrue(again === client, "one client per host and address")
        XCTAssertNil(afterShutdown, "no new client after shutdown")
    }
}
