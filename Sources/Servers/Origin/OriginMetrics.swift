import Synchronization
import WarmSupport

/// The origin's counters as Prometheus text for `GET /metrics`, under one lock, written with `PrometheusText` (which
/// says why not swift-prometheus).
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

    init() {}

    /// `source` is called on every scrape; its text follows the origin's own.
    public func append(_ source: @escaping @Sendable () async -> String) {
        appendix.withLock { $0 = source }
    }

    /// What `GET /metrics` answers: the origin's counters, `gauges` (the index's), then the appended text.
    func exposition(_ gauges: String = "") async -> String {
        let source = appendix.withLock { $0 }
        return prometheusText() + gauges + (await source?() ?? "")
    }

    func record(status: Int, bodyBytes: Int, miss: Bool, latencySeconds: Double) {
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

    /// Prometheus text exposition format, version 0.0.4 (`PrometheusText`).
    func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        var text = PrometheusText()
        text.family("warm_origin_requests_total", type: "counter", help: "Thumbnail requests answered, by HTTP status.")
        for status in snapshot.requestsByStatus.keys.sorted() {
            text.sample("warm_origin_requests_total", [("status", "\(status)")], "\(snapshot.requestsByStatus[status]!)")
        }
        text.family("warm_origin_response_body_bytes_total", type: "counter",
                    help: "Body bytes of thumbnail answers (HEAD and 304 send none).")
        text.sample("warm_origin_response_body_bytes_total", "\(snapshot.bodyBytes)")
        text.family("warm_origin_misses_total", type: "counter",
                    help: "Thumbnail requests for an image, size or format the cache does not hold.")
        text.sample("warm_origin_misses_total", "\(snapshot.misses)")
        let duration = "warm_origin_request_duration_seconds"
        text.family(duration, type: "histogram", help: "Time from a thumbnail request's head to its answer.")
        var cumulative = 0
        for (bound, count) in zip(Self.latencyBucketsSeconds, snapshot.bucketCounts) {
            cumulative += count
            text.sample(duration + "_bucket", [("le", "\(bound)")], "\(cumulative)")
        }
        text.sample(duration + "_bucket", [("le", "+Inf")], "\(snapshot.latencyCount)")
        text.sample(duration + "_sum", "\(snapshot.latencySumSeconds)")
        text.sample(duration + "_count", "\(snapshot.latencyCount)")
        return text.text
    }
}
