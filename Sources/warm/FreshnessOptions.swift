import ArgumentParser
import Pipeline

/// When `warm run` and `warm demo` skip, revalidate, prune and evict (`--help`'s "Freshness and pruning").
struct FreshnessOptions: ParsableArguments {
    @Option(help: "Freshness lifetime: younger entries are skipped, older ones revalidated with a conditional request.")
    var maxAge = DurationArgument(seconds: WarmConfiguration.defaults.maxAgeSeconds)

    @Option(help: ArgumentHelp(
        "Remove cache entries no listed product has pointed at for longer than this (0: whatever this run did not see).",
        discussion: "Only a run that saw the whole product list prunes: after a failed page or an early stop nothing is removed."))
    var pruneAfter = DurationArgument(seconds: WarmConfiguration.defaults.pruneAfterSeconds ?? 0)

    @Option(help: "Evict least-recently-used entries after the run until the cache is at most this size (e.g. 500MB).")
    var maxCacheSize: ByteCount?

    func validate() throws {
        if let maxCacheSize, maxCacheSize.bytes == 0 {
            throw ValidationError("--max-cache-size must be positive (0 would evict everything the run warmed).")
        }
    }
}
