import Foundation
import WarmTestSupport
import XCTest

/// No Docker daemon runs here: `scripts/check-docker-context.py` copies what the Dockerfile's build stage copies,
/// as a clean clone has it, and asks SwiftPM to load it. These tests run it on the real Dockerfile and on the
/// former one, which copied the git-ignored Package.resolved and only Sources/.
final class DockerContextTests: XCTestCase {
    private static let repository = repositoryRoot

    private func check(dockerfile: URL? = nil) throws -> (status: Int32, output: String) {
        try runPythonScript(Self.repository.appendingPathComponent("scripts/check-docker-context.py"),
                            dockerfile.map { ["--dockerfile", $0.path] } ?? [])
    }

    /// The repository's Dockerfile with `edit` applied, in a temporary file.
    private func dockerfile(_ edit: (String) -> String) throws -> URL {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let edited = edit(text)
        XCTAssertNotEqual(edited, text, "the edit changed nothing")
        let file = try makeTemporaryDirectory().appendingPathComponent("Dockerfile")
        try edited.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func testTheFilesTheDockerfileCopiesMakeAPackageSwiftPMLoads() throws {
        let result = try check()
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("make a package SwiftPM loads"), result.output)
    }

    func testADockerfileCopyingOnlySourcesIsCaught() throws {
        let result = try check(dockerfile: try dockerfile { $0.replacingOccurrences(of: "COPY Tests ./Tests\n", with: "") })
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("Tests/Support"), result.output)
    }

    func testADockerfileCopyingTheUntrackedPackageResolvedIsCaught() throws {
        let result = try check(dockerfile: try dockerfile {
            $0.replacingOccurrences(of: "COPY Package.swift ./", with: "COPY Package.swift Package.resolved ./")
        })
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("COPY Package.resolved: git does not track it"), result.output)
    }
}
