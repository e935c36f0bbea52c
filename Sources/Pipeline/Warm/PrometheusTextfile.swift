import Foundation
import WarmSupport

/// The summary as Prometheus gauges: the file for node_exporter's textfile collector (`SummaryFile` writes it atomically,
/// as it may read at any time) and the run figures on `warm cache serve`'s /metrics. Written with `PrometheusText`, which says
/// why not swift-prometheus.
enum PrometheusTextfile {
    private typealias Sample = (labels: [(name: String, value: String)], value: Double)

    private struct Family {
        var name: String
        var help: String
        var samples: [Sample]
    }

    static func render(_ summary: WarmSummary) -> String {
        render([summary])
    }

    /// Several summaries (the tree's and each shard's) in one exposition: each family once, a series per summary, told
    /// apart by the `shard` label. `originVersion`: `warm_build_info{component="origin"}` joins the runs' build info
    /// (a family must come in one group), even with no summary.
    static func render(_ summaries: [WarmSummary], originVersion: String? = nil) -> String {
        var rendered = summaries.map(families)
        if let originVersion {
            let origin = Family(name: "build_info", help: buildInfoHelp,
                                samples: [([("component", "origin"), ("version", originVersion)], 1)])
            if rendered.isEmpty { rendered = [[origin]] } else { rendered[0][0].samples.insert(contentsOf: origin.samples, at: 0) }
        }
        guard let first = rendered.first else { return "" }
        var text = PrometheusText()
        for (index, family) in first.enumerated() {
            text.family("warm_" + family.name, type: "gauge", help: family.help)
            for families in rendered {
                for sample in families[index].samples {
                    let value = sample.value == sample.value.rounded() ? String(Int(sample.value)) : String(sample.value)
                    text.sample("warm_" + family.name, sample.labels, value)
                }
            }
        }
        return text.text
    }

    /// The same families in the same order for every summary, so `render` can interleave them.
    private static func families(_ summary: WarmSummary) -> [Family] {
        // Labelled by shard, so the shards' series are distinct and sum to the whole run.
        func labelled(_ labels: [(name: String, value: String)]) -> [(name: String, value: String)] {
            labels + (summary.shard.map { [("shard", $0)] } ?? [])
        }
        func family(_ name: String, _ help: String, _ samples: [Sample]) -> Family {
            Family(name: name, help: help, samples: samples.map { (labelled($0.labels), $0.value) })
        }
        func one(_ value: Int) -> [Sample] { [([], Double(value))] }
        func seconds(_ date: Date?) -> [Sample] { date.map { [([], $0.timeIntervalSince1970.rounded())] } ?? [] }
        return [
            family("build_info", buildInfoHelp,
                   [([("component", "run"), ("version", summary.version)], 1)]),
            family("last_run_timestamp_seconds", "When the last run finished (Unix time).", seconds(summary.finishedAt)),
            family("last_success_timestamp_seconds", "When the last successful run finished (Unix time).",
                   seconds(summary.lastSuccessAt)),
            family("last_run_duration_seconds", "Wall time of the last run.", [([], (summary.durationSeconds * 1000).rounded() / 1000)]),
            family("last_run_success", "1 when the last run did everything it was asked (image failures within --max-failed "
                   + "included), 0 otherwise.", one(summary.success ? 1 : 0)),
            family("last_run_reason", "1 for the reason code the last run ended with (ok, api-unreachable, "
                   + "over-failure-budget, ...), 0 for the others.",
                   RunOutcome.allCases.map { ([("reason", $0.rawValue)], $0 == summary.reasonCode ? 1 : 0) }),
            family("last_run_stopped_early", "1 when the last run stopped early (SIGTERM, SIGINT, a full disk), 0 otherwise.",
                   one(summary.stoppedEarly ? 1 : 0)),
            family("manifest_rebuilt", "1 when the last run found the cache manifest broken and rebuilt it, 0 otherwise.",
                   one(summary.manifestRebuilt ? 1 : 0)),
        ] + countFamilies(summary, family)
    }

    private static func countFamilies(_ summary: WarmSummary,
                                      _ family: (String, String, [Sample]) -> Family) -> [Family] {
        func one(_ value: Int) -> [Sample] { [([], Double(value))] }
        return [
            family("pages_fetched", "Product list pages fetched.", one(summary.pagesFetched)),
            family("pages_failed", "Product list pages that failed after retries.", one(summary.pagesFailed)),
            family("products", "Distinct products seen in the catalog.", one(summary.productsUnique)),
            family("products_without_thumbnail", "Products skipped for lack of a thumbnail URL.", one(summary.productsWithoutThumbnail)),
            family("images", "Distinct thumbnails by outcome.", [
                ([("outcome", "downloaded")], Double(summary.imagesDownloaded)),
                ([("outcome", "not_modified")], Double(summary.imagesNotModified)),
                ([("outcome", "fresh")], Double(summary.imagesFresh)),
                ([("outcome", "failed")], Double(summary.imagesFailed)),
            ] + (summary.shard == nil ? [] : [([("outcome", "other_shard")], Double(summary.imagesOtherShards))])),
            family("max_failed_images", "Failed thumbnails the last run tolerated (--max-failed of those scheduled).",
                   one(summary.maxFailedImages)),
            family("images_failed_by_reason", "Failed thumbnails and pages by reason.",
                   summary.failedByReason.sorted { $0.key < $1.key }.map { ([("reason", $0.key)], Double($0.value)) }),
            family("bytes_downloaded", "Bytes of source images downloaded.", one(summary.bytesDownloaded)),
            family("bytes_written", "Bytes of thumbnails written to the cache.", one(summary.bytesWritten)),
            family("peak_resident_bytes", "Peak resident memory of the last run.", one(summary.peakResidentBytes)),
            family("evicted_entries", "Cache entries evicted to stay under the size limit.", one(summary.evictedEntries)),
            family("pruned_entries", "Cache entries pruned: no listed product pointed at them for longer than --prune-after.",
                   one(summary.prunedEntries)),
            family("pruned_bytes", "Bytes of the pruned cache entries' files.", one(summary.prunedBytes)),
        ]
    }

    private static let buildInfoHelp = "The warm version that wrote the last run's figures (component run) or serves them (origin)."
}
