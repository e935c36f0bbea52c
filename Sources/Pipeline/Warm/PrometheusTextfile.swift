import Foundation

/// The summary for node_exporter's textfile collector, written atomically as it may read at any time. By hand, not
/// swift-prometheus: a handful of gauges written once would not repay a registry and more dependencies.
public enum PrometheusTextfile {
    public static func render(_ summary: WarmSummary) -> String {
        var lines: [String] = []
        // Labelled by shard, so the shards' files are distinct series that sum to the whole run.
        func withShard(_ labels: String) -> String {
            guard let shard = summary.shard else { return labels }
            let label = "shard=\"\(escape(shard))\""
            return labels.isEmpty ? "{\(label)}" : String(labels.dropLast()) + ",\(label)}"
        }
        func gauge(_ name: String, _ help: String, _ samples: [(labels: String, value: Double)]) {
            lines.append("# HELP warm_\(name) \(help)")
            lines.append("# TYPE warm_\(name) gauge")
            for sample in samples {
                let value = sample.value == sample.value.rounded() ? String(Int(sample.value)) : String(sample.value)
                lines.append("warm_\(name)\(withShard(sample.labels)) \(value)")
            }
        }
        func one(_ value: Int) -> [(labels: String, value: Double)] { [("", Double(value))] }
        gauge("last_run_timestamp_seconds", "When the last run finished (Unix time).", [("", summary.finishedAt.timeIntervalSince1970.rounded())])
        gauge("last_run_duration_seconds", "Wall time of the last run.", [("", (summary.durationSeconds * 1000).rounded() / 1000)])
        gauge("last_run_success", "1 when the last run did everything it was asked, 0 otherwise.", one(summary.succeeded ? 1 : 0))
        gauge("last_run_stopped_early", "1 when the last run stopped early (SIGTERM, SIGINT, a full disk), 0 otherwise.",
              one(summary.stoppedEarly ? 1 : 0))
        gauge("manifest_rebuilt", "1 when the last run found the cache manifest broken and rebuilt it, 0 otherwise.",
              one(summary.manifestRebuilt ? 1 : 0))
        gauge("pages_fetched", "Product list pages fetched.", one(summary.pagesFetched))
        gauge("pages_failed", "Product list pages that failed after retries.", one(summary.pagesFailed))
        gauge("products", "Distinct products seen in the catalog.", one(summary.productsUnique))
        gauge("products_without_thumbnail", "Products skipped for lack of a thumbnail URL.", one(summary.productsWithoutThumbnail))
        gauge("images", "Distinct thumbnails by outcome.", [
            ("{outcome=\"downloaded\"}", Double(summary.imagesDownloaded)),
            ("{outcome=\"not_modified\"}", Double(summary.imagesNotModified)),
            ("{outcome=\"fresh\"}", Double(summary.imagesFresh)),
            ("{outcome=\"failed\"}", Double(summary.imagesFailed)),
        ] + (summary.shard == nil ? [] : [("{outcome=\"other_shard\"}", Double(summary.imagesOtherShards))]))
        gauge("images_failed_by_reason", "Failed thumbnails and pages by reason.",
              summary.failedByReason.sorted { $0.key < $1.key }.map { ("{reason=\"\(escape($0.key))\"}", Double($0.value)) })
        gauge("bytes_downloaded", "Bytes of source images downloaded.", one(summary.bytesDownloaded))
        gauge("bytes_written", "Bytes of thumbnails written to the cache.", one(summary.bytesWritten))
        gauge("peak_resident_bytes", "Peak resident memory of the last run.", one(summary.peakResidentBytes))
        gauge("evicted_entries", "Cache entries evicted to stay under the size limit.", one(summary.evictedEntries))
        gauge("pruned_entries", "Cache entries pruned: no listed product pointed at them for longer than --prune-after.", one(summary.prunedEntries))
        gauge("pruned_bytes", "Bytes of the pruned cache entries' files.", one(summary.prunedBytes))
        return lines.joined(separator: "\n") + "\n"
    }

    public static func write(_ summary: WarmSummary, to path: String) throws {
        try Data(render(summary).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
