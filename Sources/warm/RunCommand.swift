import ArgumentParser
import Cache
import Foundation
import Pipeline

struct RunCommand: AsyncParsableCommand, WarmCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Crawl an OpenMarket-style product API and warm the disk cache with every product's thumbnail.",
        discussion: """
            Idempotent: entries younger than --max-age are skipped, older ones are revalidated with conditional \
            requests (a 304 costs no download and no decode). One run per cache directory (or per shard) at a time.
            Exit status: \(ExitStatus.documentation)
            """)

    // Titled, because argument-parser lists untitled options after the titled groups.
    @OptionGroup(title: "Catalog and cache") var target: RunTarget

    @OptionGroup var control: RunControlOptions

    @OptionGroup(title: "Thumbnails") var thumbnails: ThumbnailOptions

    @OptionGroup(title: "Freshness and pruning") var freshness: FreshnessOptions

    @OptionGroup(title: "Fetching") var fetch: FetchOptions

    @OptionGroup(title: "Decoding") var decoding: WarmDecodeOptions

    @OptionGroup(title: "Decoding") var decoder: DecoderOptions

    @OptionGroup(title: "Measuring") var comparing: CompareOptions

    @OptionGroup(title: "Measuring") var measurement: MeasurementOptions

    @OptionGroup(title: "Output") var output: OutputOptions

    @OptionGroup(title: "Output") var log: LogOptions

    @OptionGroup(title: "Measuring") var compareAll: CompareAllFlag

    @OptionGroup(title: "Sharding") var sharding: ShardOptions

    func validate() throws {
        if (try? sharding.resolved()) != nil, freshness.maxCacheSize != nil {
            throw ValidationError("--max-cache-size cannot be combined with sharding: a shard sees only its share of the cache; "
                                  + "limit the merged tree instead with `warm cache merge DIR --max-cache-size SIZE`.")
        }
    }

    func run() async throws {
        let configuration = try configuration(
            api: target.apiURL, cacheDirectory: target.cacheDir,
            compare: comparing.selection(otherwise: compareAll.compare ? .all : .none), shard: try sharding.resolved())
        _ = try await warm(configuration, measuringPool: measurement.pool(), logger: logger())
    }
}

/// What `warm run` warms from and into.
struct RunTarget: ParsableArguments {
    @Option(help: "Base URL of the API, e.g. http://127.0.0.1:18080 (its /api/products is crawled).")
    var api: String

    @Option(help: "The cache directory (created if missing).")
    var cacheDir: String

    func validate() throws {
        guard let url = URL(string: api), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host?.isEmpty == false else {
            throw ValidationError("--api must be an http(s) URL, got '\(api)'.")
        }
    }

    /// Valid once `validate` passed.
    var apiURL: URL { URL(string: api)! }
}

/// `warm run --compare`, in a group of its own so that `--help` lists it under "Measuring".
struct CompareAllFlag: ParsableArguments {
    @Flag(help: "Also decode every image naively and renderer-style and measure all three strategies (costly).")
    var compare = false
}

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
