import Foundation
import WarmTestSupport
import XCTest

/// The Dockerfile and `deploy/kubernetes/` cannot run here (no Docker, no
/// cluster): `scripts/check-deploy.py` validates the manifests against the
/// Kubernetes API's schemas (`kubernetes-validate --strict`) and checks the fields
/// the sharded job relies on. These tests run it on the real files and on broken copies.
final class DeploymentManifestTests: XCTestCase {
    private static let repository = repositoryRoot

    private func check(_ root: URL, apt: Bool = true) throws -> (status: Int32, output: String) {
        try runPythonScript(root.appendingPathComponent("scripts/check-deploy.py"), apt ? [] : ["--no-apt"])
    }

    /// A copy of the files the script reads, with `edit` applied to one of them.
    private func copy(editing file: String, _ edit: (String) -> String) throws -> URL {
        let root = try makeTemporaryDirectory()
        for path in ["scripts/check-deploy.py", "Dockerfile", "deploy/kubernetes/pvc.yaml",
                     "deploy/kubernetes/cronjob-warm.yaml", "deploy/kubernetes/cronjob-merge.yaml",
                     "deploy/kubernetes/deployment-origin.yaml", "deploy/kubernetes/service-origin.yaml",
                     "Sources/WarmSupport/WarmVersion.swift"] {
            let target = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            var text = try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
            if path == file {
                let edited = edit(text)
                XCTAssertNotEqual(edited, text, "the edit of \(file) changed nothing")
                text = edited
            }
            try text.write(to: target, atomically: true, encoding: .utf8)
        }
        return root
    }

    func testTheManifestsAndTheDockerfileHaveWhatTheShardedJobNeeds() throws {
        let result = try check(Self.repository)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("runtime packages libvips42, libexif12"), result.output)
        let warm = try String(contentsOf: Self.repository.appendingPathComponent("deploy/kubernetes/cronjob-warm.yaml"), encoding: .utf8)
        XCTAssertTrue(warm.contains("podFailurePolicy:") && warm.contains("action: FailIndex") && warm.contains("backoffLimitPerIndex: 2"))
    }

    func testARuntimePackageDebianDoesNotHaveIsCaught() throws {
        let root = try copy(editing: "Dockerfile") {
            $0.replacingOccurrences(of: "libsqlite3-0 ca-certificates", with: "libsqlite3-0 libwarm-nonexistent7 ca-certificates")
        }
        let result = try check(root)
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("libwarm-nonexistent7"), result.output)
    }

    func testBrokenManifestsAreCaught() throws {
        let cases: [(file: String, from: String, to: String, expected: String)] = [
            ("deploy/kubernetes/cronjob-warm.yaml", "completionMode: Indexed", "completionMode: NonIndexed", "completionMode must be Indexed"),
            ("deploy/kubernetes/cronjob-warm.yaml", "--shards=8", "--shards=6", "--shards (6) must equal completions (8)"),
            ("deploy/kubernetes/pvc.yaml", "- ReadWriteMany", "- ReadWriteOnce", "must be ReadWriteMany"),
            ("deploy/kubernetes/cronjob-merge.yaml", "image: ghcr.io/example/warm:1.0.0", "image: ghcr.io/example/warm:0.9", "same image"),
            ("Dockerfile", "libexif12", "libexif-nonexistent", "does not install libexif12"),
            ("deploy/kubernetes/cronjob-warm.yaml", "terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 20",
             "must fit in terminationGracePeriodSeconds (20)"),
            ("deploy/kubernetes/cronjob-warm.yaml", "completions: 8\n", "completions: [8\n", "yaml"),
            ("deploy/kubernetes/deployment-origin.yaml", "- --host=0.0.0.0", "- --host=127.0.0.1", "--host=0.0.0.0 is needed"),
            ("deploy/kubernetes/deployment-origin.yaml", "- --port=8080", "- --port=9090", "must be a containerPort"),
            ("deploy/kubernetes/deployment-origin.yaml", "claimName: warm-cache", "claimName: other-cache", "is not mounted at /cache"),
            ("deploy/kubernetes/deployment-origin.yaml", "terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 5", "must exceed --grace-period"),
            ("deploy/kubernetes/deployment-origin.yaml", "path: /healthz\n              port: http\n            periodSeconds: 5", "path: /\n              port: http\n            periodSeconds: 5", "readinessProbe must GET /healthz"),
            ("deploy/kubernetes/service-origin.yaml", "targetPort: http", "targetPort: metrics", "targetPort metrics"),
            // An index over budget (2) or with an unreadable list (6) fails at once; an eviction is retried.
            ("deploy/kubernetes/cronjob-warm.yaml", "values: [2, 6]", "values: [2]", "must FailIndex on exit codes 2 and 6"),
            ("deploy/kubernetes/cronjob-warm.yaml", "- action: Ignore\n", "- action: FailJob\n", "DisruptionTarget"),
            ("deploy/kubernetes/cronjob-warm.yaml", "onExitCodes:", "onExitCode:", "kubernetes-validate --strict"),
            ("deploy/kubernetes/deployment-origin.yaml", "periodSeconds: 5", "periodSecond: 5", "'periodSecond' was unexpected"),
            ("deploy/kubernetes/cronjob-warm.yaml", "image: ghcr.io/example/warm:1.0.0", "image: ghcr.io/example/warm:0.9.0",
             "is not WarmVersion.current"),
        ]
        for broken in cases {
            let root = try copy(editing: broken.file) { $0.replacingOccurrences(of: broken.from, with: broken.to) }
            // apt-cache is slow; the real files' run above covers it.
            let result = try check(root, apt: false)
            XCTAssertNotEqual(result.status, 0, "\(broken.to) was not caught: \(result.output)")
            XCTAssertTrue(result.output.lowercased().contains(broken.expected.lowercased()), "\(broken.to): \(result.output)")
        }
    }
}
