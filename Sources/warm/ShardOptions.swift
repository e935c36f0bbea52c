import ArgumentParser
import Cache
import Foundation
import Pipeline

/// `warm run --shard I/N` (or `--shards N` with Kubernetes' `JOB_COMPLETION_INDEX`):
/// warm only this shard's share of the images.
struct ShardOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Warm only share I of N (0 <= I < N) of the images, chosen by canonical-URL hash; state goes to <cache-dir>/shards/I-of-N/.",
        valueName: "I/N"))
    var shard: String?

    @Option(help: "Number of shards; without --shard the index comes from $JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs).")
    var shards: Int?

    func validate() throws {
        do {
            _ = try resolved()
        } catch {
            throw ValidationError("\(error).")
        }
    }

    /// The shard of this run, nil when unsharded.
    func resolved() throws(ShardError) -> CacheShard? {
        try CacheShard.resolve(shard: shard, shards: shards, environment: ProcessInfo.processInfo.environment)
    }

    /// Puts the shard into `configuration` and moves the default summary and
    /// metrics files into the shard's state directory, so shards sharing one
    /// cache directory never write the same file.
    func apply(_ shard: CacheShard?, to configuration: inout WarmConfiguration, summaryGiven: Bool, metricsGiven: Bool) {
        guard let shard else { return }
        configuration.shard = shard
        let state = CacheLayout(root: configuration.cacheDirectory, shard: shard).stateDirectory
        if !summaryGiven { configuration.summaryPath = state + "/last-run.json" }
        if !metricsGiven, configuration.metricsPath != nil { configuration.metricsPath = state + "/metrics.jsonl" }
    }
}
