import Foundation
import WarmTestSupport
import XCTest

/// `scripts/rehearse.py` runs the containers of `deploy/kubernetes/` as written, on one machine, against the demo
/// catalog: the Indexed Job's shards, the merge, two origin replicas, three nights (docs/scaling-out.md, "Rehearsal").
/// These tests run its small case on the real manifests, and on a copy whose merge command is broken.
final class RehearsalTests: XCTestCase {
    private let script = repositoryRoot.appendingPathComponent("scripts/rehearse.py")

    /// 2 shards over 24 products, 4 more on night 2. No timeout here: the script bounds each step itself
    /// (--timeout for a shard or the merge, 120 s for a server to start or for the origins to serve a merge).
    private func rehearse(manifests: URL? = nil) throws -> (status: Int32, output: String) {
        let work = try makeTemporaryDirectory()
        var arguments = ["--warm", WarmBinary.url.path, "--shards", "2", "--products", "24", "--added-products", "4",
                         "--work", work.path, "--timeout", "900"]
        if let manifests { arguments += ["--manifests", manifests.path] }
        return try runPythonScript(script, arguments)
    }

    /// One figure from the final line, `rehearsal: ok: {...}`.
    private func figures(_ output: String) throws -> [String: Any] {
        let line = try XCTUnwrap(output.split(separator: "\n").last { $0.hasPrefix("rehearsal: ok: ") }, output)
        let object = try JSONSerialization.jsonObject(with: Data(line.dropFirst("rehearsal: ok: ".count).utf8))
        return try XCTUnwrap(object as? [String: Any], output)
    }

    func testTheManifestsRunAsWrittenForThreeNights() throws {
        let result = try rehearse()
        XCTAssertEqual(result.status, 0, result.output)
        // What had to differ on one machine is said, each substitution on its own line.
        for substitution in ["completions 8 and --shards=8 -> 2", "*-of-8 -> *-of-2", "--api https://market.example/ -> the demo catalog",
                             "--port=8080 -> 0", "/cache (the claim cache) -> "] {
            XCTAssertTrue(result.output.contains(substitution), "\(substitution): \(result.output)")
        }
        let figures = try figures(result.output)
        let night1 = try XCTUnwrap(figures["night1"] as? [String: Any])
        let night3 = try XCTUnwrap(figures["night3"] as? [String: Any])
        let images = try XCTUnwrap(figures["images"] as? Int)
        XCTAssertGreaterThan(images, 10, result.output)
        XCTAssertEqual(night1["downloaded"] as? Int, images, result.output)
        XCTAssertEqual(figures["variants"] as? Int, images * 2, "--size=300 and --size=600, JPEG: \(result.output)")
        XCTAssertGreaterThan(figures["imagesAfterNight2"] as? Int ?? 0, images, result.output)
        // The merge published while both origins answered, none with a 5xx or a body that does not hash to its ETag.
        XCTAssertGreaterThan(figures["requestsDuringMerge"] as? Int ?? 0, 0, result.output)
        XCTAssertEqual(figures["serverErrors"] as? Int, 0, result.output)
        XCTAssertEqual(figures["tornBodies"] as? Int, 0, result.output)
        // Nothing changed on night 3: only the measured sample (--compare-one-in) is downloaded again.
        XCTAssertEqual(night3["downloaded"] as? Int, night3["measured"] as? Int, result.output)
        XCTAssertEqual((night3["fresh"] as? Int ?? 0) + (night3["downloaded"] as? Int ?? 0), figures["imagesAfterNight2"] as? Int,
                       result.output)
    }

    /// A merge command that cannot run fails the rehearsal, which names the manifest, its container and the exit status.
    func testABrokenMergeCommandFailsTheRehearsalNamingIt() throws {
        let manifests = try makeTemporaryDirectory()
        let shipped = repositoryRoot.appendingPathComponent("deploy/kubernetes")
        for name in try FileManager.default.contentsOfDirectory(atPath: shipped.path) where name.hasSuffix(".yaml") {
            var text = try String(contentsOf: shipped.appendingPathComponent(name), encoding: .utf8)
            if name == "cronjob-merge.yaml" {
                let broken = text.replacingOccurrences(of: "warm cache merge /cache", with: "warm cache merge --no-such-option /cache")
                XCTAssertNotEqual(broken, text, "the merge script no longer runs `warm cache merge /cache`")
                text = broken
            }
            try text.write(to: manifests.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let result = try rehearse(manifests: manifests)
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("FAILED: night 1: cronjob-merge.yaml's container merge exited 64"), result.output)
        XCTAssertTrue(result.output.contains("--no-such-option"), result.output)
        XCTAssertFalse(result.output.contains("rehearsal: ok"), result.output)
    }
}
