import Synchronization

/// The origin's counters as Prometheus text for `GET /metrics`. Hand-written (one lock, a few integers):
/// swift-prometheus is not in the graph, and swift-metrics alone would still need this exporter.
public final class OriginMetrics: Sendable {
    private static let latencyBucketsSeconds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    struct State {
        var requestsByStatus: [Int: Int] = [:]
        var bodyBytes = 0
        var misses = 0
        var bucketCounts = [Int](repeating: 0, count: OriginMetrics.latencyBucketsSeconds.count)
        var latencyCount = 0
        var latencySumSeconds = 0.0
    }

    private let state = Mutex(State())
    /// More text for each scrape (`warm cache serve`: the last runs' figures, read from their summaries).
    private let appendix = Mutex<(@Sendable () async -> String)?>(nil)

    public init() {}

    /// `source` is called on every scrape; its text follows the origin's own.
    public func append(_ source: @escaping @Sendable () async -> String) {
        appendix.withLock { $0 = source }
    }

    /// What `GET /metrics` answers: the origin's counters, then the appended text.
    public func exposition() async -> String {
        let source = appendix.withLock { $0 }
        return prometheusText() + (await source?() ?? "")
    }

    public func record(status: Int, bodyBytes: Int, miss: Bool, latencySeconds: Double) {
        state.withLock { state in
            state.requestsByStatus[status, default: 0] += 1
            state.bodyBytes += bodyBytes
            if miss { state.misses += 1 }
            if let bucket = Self.latencyBucketsSeconds.firstIndex(where: { latencySeconds <= $0 }) {
                state.bucketCounts[bucket] += 1
            }
            state.latencyCount += 1
            state.latencySumSeconds += latencySeconds
        }
    }

    /// Prometheus text exposition format, version 0.0.4.
    public func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        var lines = [
            "# HELP warm_origin_requests_total Thumbnail requests answered, by HTTP status.",
            "# TYPE warm_origin_requests_total counter",
        ]
        for status in snapshot.requestsByStatus.keys.sorted() {
            lines.append("warm_origin_requests_total{status=\"\(status)\"} \(snapshot.requestsByStatus[status]!)")
        }
        lines += [
            "# HELP warm_origin_response_body_bytes_total Body bytes of thumbnail answers (HEAD and 304 send none).",
            "# TYPE warm_origin_response_body_bytes_total counter",
            "warm_origin_response_body_bytes_total \(snapshot.bodyBytes)",
            "# HELP warm_origin_misses_total Thumbnail requests for an image, size or format the cache does not hold.",
            "# TYPE warm_origin_misses_total counter",
            "warm_origin_misses_total \(snapshot.misses)",
            "# HELP warm_origin_request_duration_seconds Time from a thumbnail request's head to its answer.",
            "# TYPE warm_origin_request_duration_seconds histogram",
        ]
        var cumulative = 0
        for (bound, count) in zip(Self.latencyBucketsSeconds, snapshot.bucketCounts) {
            cumulative += count
            lines.append("warm_origin_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)")
        }
        lines += [
            "warm_origin_request_duration_seconds_bucket{le=\"+Inf\"} \(snapshot.latencyCount)",
            "warm_origin_request_duration_seconds_sum \(snapshot.latencySumSeconds)",
            "warm_origin_request_duration_seconds_count \(snapshot.latencyCount)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
