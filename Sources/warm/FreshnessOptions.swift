import ArgumentParser
import Pipeline

/// When `warm run` and `warm demo` skip, revalidate, prune and evict (`--help`'s "Freshness and pruning").
struct FreshnessOptions: ParsableArguments {
    /// Defaults written once, in `WarmConfiguration.Freshness`.
    private static let defaults = WarmConfiguration.Freshness()

    @Option(help: "Freshness lifetime: younger entries are skipped, older ones revalidated with a conditional request.")
    var maxAge = DurationArgument(seconds: Self.defaults.maxAgeSeconds)

    @Option(help: ArgumentHelp(
        "Remove cache entries no listed product has pointed at for longer than this (0: whatever this run did not see).",
        discussion: "Only a run that saw the whole product list prunes: after a failed page or an early stop nothing is removed."))
    var pruneAfter = DurationArgument(seconds: Self.defaults.pruneAfterSeconds ?? 0)

    @Option(help: ArgumentHelp(
        "Evict after the run until the cache is at most this size: " + CacheSizeArgument.help + ".",
        discussion: "Images the run's list did not name go first, least recently used first; then those it named."))
    var maxCacheSize: CacheSizeArgument?

    func validate() throws {
        try maxCacheSize?.validate(option: "--max-cache-size")
    }

    /// Throws when a `--max-cache-size` share cannot be sized (the file system's size is read here, as the run starts).
    func policy(cacheDirectory: String) throws -> WarmConfiguration.Freshness {
        WarmConfiguration.Freshness(maxAgeSeconds: maxAge.seconds, pruneAfterSeconds: pruneAfter.seconds,
                                    maxCacheBytes: try maxCacheSize?.bytes(forCacheAt: cacheDirectory, option: "--max-cache-size"))
    }
}
