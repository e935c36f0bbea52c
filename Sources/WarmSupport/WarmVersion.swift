/// The one version of `warm`: `warm --version`, `version` in last-run.json, `warm_build_info{version=...}` in the
/// Prometheus file and on the origin's /metrics. Bump it here when a release is tagged (semantic versioning: a new
/// exit status, summary field or metric is a minor bump, removing or renaming one a major), together with the image
/// tag in deploy/kubernetes/ (scripts/check-deploy.py checks that they agree).
public enum WarmVersion {
    public static let current = "1.0.0"

    /// "debug" or "release": what the metrics, the baseline and every report record of the build that made them.
    public static var buildMode: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }
}
