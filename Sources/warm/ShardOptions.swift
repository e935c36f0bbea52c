import ArgumentParser
import Cache
import Foundation

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
            throw ValidationError("--shard/--shards: \(error).")
        }
    }

    /// The shard of this run, nil when unsharded.
    func resolved() throws(ShardError) -> CacheShard? {
        try CacheShard.resolve(shard: shard, shards: shards, environment: ProcessInfo.processInfo.environment)
    }
}
