@testable import Fetch
import Foundation
import WarmTestSupport
import XCTest

/// The host allow-list: which addresses count as internal, how entries match,
/// and what the gate refuses before any request.
final class HostPolicyTests: XCTestCase {
    func testInternalIPv4RangesAreNotPublic() throws {
        let cases: [(String, AddressClass)] = [
            ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
            ("10.0.0.1", .privateNetwork), ("10.255.255.255", .privateNetwork),
            ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
            ("192.168.1.20", .privateNetwork), ("169.254.169.254", .linkLocal),
            ("100.64.0.1", .privateNetwork), ("0.0.0.0", .unspecified), ("224.0.0.1", .multicast),
            ("255.255.255.255", .reserved),
        ]
        for (text, expected) in cases {
            let address = try XCTUnwrap(IPAddress(text), text)
            XCTAssertEqual(address.addressClass, expected, text)
            XCTAssertFalse(address.addressClass.isPublic, text)
        }
    }

    func testNeighboursOfTheInternalRangesArePublic() throws {
        for text in ["8.8.8.8", "172.15.255.255", "172.32.0.1", "192.169.0.1", "169.255.0.1", "11.0.0.1",
                     "126.255.255.255", "128.0.0.1", "100.63.255.255", "100.128.0.1", "2001:4860:4860::8888",
                     "2a00:1450::1"] {
            XCTAssertEqual(try XCTUnwrap(IPAddress(text), text).addressClass, .publicAddress, text)
        }
    }

    func testInternalIPv6RangesAreNotPublic() throws {
        let cases: [(String, AddressClass)] = [
            ("::1", .loopback), ("[::1]", .loopback), ("::", .unspecified),
            ("fc00::1", .privateNetwork), ("fd12:3456:789a::1", .privateNetwork),
            ("fe80::1", .linkLocal), ("fe80::1%eth0", .linkLocal), ("febf::1", .linkLocal),
            ("::ffff:127.0.0.1", .loopback), ("::ffff:10.1.2.3", .privateNetwork),
            ("::ffff:169.254.169.254", .linkLocal), ("64:ff9b::c0a8:0101", .privateNetwork), ("ff02::1", .multicast),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try XCTUnwrap(IPAddress(text), text).addressClass, expected, text)
        }
    }

    func testNamesAreNotAddressLiterals() {
        XCTAssertNil(IPAddress("localhost"))
        XCTAssertNil(IPAddress("cdn.example.com"))
        XCTAssertNil(IPAddress("10.0.0"))
    }

    func testLocalhostResolvesToLoopbackOnly() async {
        let addresses = await HostResolver.system.addresses("localhost")
        XCTAssertFalse(addresses.isEmpty)
        XCTAssertTrue(addresses.allSatisfy { $0.addressClass == .loopback }, "\(addresses)")
    }

    func testPatternsParseHostsPortsAndURLs() {
        XCTAssertEqual(HostPattern(parsing: "CDN.example.com"), HostPattern(host: "cdn.example.com"))
        XCTAssertEqual(HostPattern(parsing: "10.0.0.5:8080"), HostPattern(host: "10.0.0.5", port: 8080))
        XCTAssertEqual(HostPattern(parsing: "[::1]:9000"), HostPattern(host: "::1", port: 9000))
        XCTAssertEqual(HostPattern(parsing: "[fe80::1]"), HostPattern(host: "fe80::1"))
        XCTAssertEqual(HostPattern(parsing: "https://img.example.com/a.jpg"), HostPattern(host: "img.example.com", port: 443))
        XCTAssertNil(HostPattern(parsing: "host:notaport"))
        XCTAssertNil(HostPattern(parsing: "host:70000"))
        XCTAssertNil(HostPattern(parsing: ""))
    }

    func testExplicitHostIsAllowedAtAnyAddressButOnlyOnItsPort() async throws {
        let gate = HostGate(explicit: [HostPattern(host: "127.0.0.1", port: 8080), HostPattern(host: "10.0.0.5")])
        let allowed = URL(string: "http://127.0.0.1:8080/a.jpg")!
        let pin = try await gate.check(allowed, requested: allowed)
        XCTAssertNil(pin, "an explicit host is not resolved, so not pinned")
        let anyPort = URL(string: "http://10.0.0.5:9/a.jpg")!
        try await gate.check(anyPort, requested: anyPort)
        let otherPort = URL(string: "http://127.0.0.1:8081/a.jpg")!
        let error = await caught(FetchError.self) { try await gate.check(otherPort, requested: otherPort) }
        XCTAssertTrue(error?.description.contains("not named by the API's first page") == true, error?.description ?? "")
    }

    func testNamedHostIsAllowedOnlyAtPublicAddresses() async throws {
        let answers = ["cdn.example.com": [IPAddress("93.184.216.34")!],
                       "evil.example": [IPAddress("93.184.216.34")!, IPAddress("10.0.0.8")!]]
        let gate = HostGate(named: [HostPattern(host: "cdn.example.com", port: 443),
                                    HostPattern(host: "evil.example", port: 80),
                                    HostPattern(host: "nowhere.example", port: 80)],
                            resolver: HostResolver { answers[$0] ?? [] })
        let cdn = URL(string: "https://cdn.example.com/a.jpg")!
        let pin = try await gate.check(cdn, requested: cdn)
        XCTAssertEqual(pin, PinnedHost(host: "cdn.example.com", addresses: [IPAddress("93.184.216.34")!]))
        // A public-looking name that resolves to an internal address is refused.
        let refusals = [("http://evil.example/a.jpg", "it is a private address (10.0.0.8)"),
                        ("http://nowhere.example/a.jpg", "its name does not resolve"),
                        ("https://other.example.com/a.jpg", "not named by the API's first page")]
        for (text, reason) in refusals {
            let url = URL(string: text)!
            let error = await caught(FetchError.self) { try await gate.check(url, requested: url) }
            XCTAssertEqual(error?.reasonCode, "host-not-allowed", text)
            XCTAssertTrue(error?.description.contains(reason) == true, error?.description ?? text)
        }
    }

    func testGateLearnsOnlyTheFirstPageAndRefusesWithURLAndHost() async throws {
        let gate = HostGate(explicit: [HostPattern(host: "127.0.0.1", port: 8080)])
        await gate.learnFirstPage([URL(string: "http://localhost:9000/a.jpg")!, URL(string: "http://169.254.169.254/latest")!])
        await gate.learnFirstPage([URL(string: "http://8.8.8.8/later.jpg")!])
        try await gate.check(URL(string: "http://127.0.0.1:8080/a.jpg")!, requested: URL(string: "http://127.0.0.1:8080/a.jpg")!)

        let metadata = URL(string: "http://169.254.169.254/latest")!
        let error = await caught(FetchError.self) { try await gate.check(metadata, requested: metadata) }
        XCTAssertEqual(error?.reasonCode, "host-not-allowed")
        XCTAssertTrue(error?.description.contains("169.254.169.254") == true, error?.description ?? "")
        XCTAssertTrue(error?.description.contains("link-local") == true, error?.description ?? "")

        let named = URL(string: "http://localhost:9000/a.jpg")!
        let loopback = await caught(FetchError.self) { try await gate.check(named, requested: named) }
        XCTAssertTrue(loopback?.description.contains("loopback") == true, loopback?.description ?? "")

        let later = URL(string: "http://8.8.8.8/later.jpg")!
        let unlisted = await caught(FetchError.self) { try await gate.check(later, requested: later) }
        XCTAssertTrue(unlisted?.description.contains("not named by the API's first page") == true, unlisted?.description ?? "")
    }
}
