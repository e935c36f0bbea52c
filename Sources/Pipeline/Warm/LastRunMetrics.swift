import Cache
import Foundation
import WarmSupport

/// The nightly job's figures for `warm cache serve`'s /metrics: the tree's `last-run.json` and each shard's
/// (`shards/I-of-N/last-run.json`), labelled by shard, so that scraping the origin watches the Job on Kubernetes with
/// no Pushgateway. Read again on every scrape: a few small files (about 4 KB each).
public enum LastRunMetrics {
    public static func text(cacheDirectory: String) -> String {
        let layout = CacheLayout(root: cacheDirectory)
        let shards = (try? FileManager.default.contentsOfDirectory(atPath: layout.shardsDirectoryPath)) ?? []
        let paths = [layout.stateDirectory] + shards.sorted().map { layout.shardsDirectoryPath + "/" + $0 }
        var summaries: [WarmSummary] = []
        var unreadable = 0
        for path in paths.map({ $0 + "/" + SummaryFile.defaultFileName }) where FileManager.default.fileExists(atPath: path) {
            do {
                summaries.append(try SummaryFile.read(path))
            } catch {
                unreadable += 1
            }
        }
        var text = PrometheusText()
        text.family("warm_last_run_summaries_unreadable", type: "gauge",
                    help: "Summaries (last-run.json) in the cache directory that could not be read.")
        text.sample("warm_last_run_summaries_unreadable", "\(unreadable)")
        return PrometheusTextfile.render(summaries, originVersion: WarmVersion.current) + text.text
    }
}
