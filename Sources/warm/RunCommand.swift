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

    @OptionGroup(title: "Detail images") var details: DetailOptions

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
        if details.detailImages == true, target.api == nil {
            throw ValidationError("--detail-images reads OpenMarket product details: it needs --api, not --urls or --sitemap.")
        }
        if (try? sharding.resolved()) != nil, freshness.maxCacheSize != nil {
            throw ValidationError("--max-cache-size cannot be combined with sharding: a shard sees only its share of the cache; "
                                  + "limit the merged tree instead with `warm cache merge DIR --max-cache-size SIZE`.")
        }
    }

    func run() async throws {
        let configuration = try configuration(
            source: target.source, cacheDirectory: target.cacheDir,
            compare: comparing.selection(otherwise: compareAll.compare ? .all : .none), shard: try sharding.resolved())
        _ = try await warm(configuration, measuringPool: measurement.pool(), logger: logger())
    }
}

/// What `warm run` warms from (one source) and into.
struct RunTarget: ParsableArguments {
    @Option(help: "Base URL of an OpenMarket-style API, e.g. http://127.0.0.1:18080 (its /api/products is crawled).")
    var api: String?

    @Option(help: ArgumentHelp(
        "A file of image URLs instead of an API: one a line, optionally followed by a product id; blank lines and # comments are skipped; - reads standard input.",
        valueName: "file"))
    var urls: String?

    @Option(help: ArgumentHelp(
        "A sitemap or sitemap index instead of an API (sitemaps.org, gzipped or not); the images its pages name with Google's image extension (image:loc) are warmed.",
        valueName: "url"))
    var sitemap: String?

    @Option(help: "The cache directory (created if missing).")
    var cacheDir: String

    func validate() throws {
        let given = [("--api", api), ("--urls", urls), ("--sitemap", sitemap)].filter { $0.1 != nil }.map(\.0)
        guard given.count == 1 else {
            throw ValidationError(given.isEmpty ? "Give the list to warm: --api URL, --urls FILE or --sitemap URL."
                                  : "\(given.joined(separator: " and ")) cannot be combined: give one source of images.")
        }
        for (option, text) in [("--api", api), ("--sitemap", sitemap)] {
            guard let text else { continue }
            guard Self.httpURL(text) != nil else { throw ValidationError("\(option) must be an http(s) URL, got '\(text)'.") }
        }
        if let urls, urls.isEmpty { throw ValidationError("--urls must name a file, or - for standard input.") }
    }

    /// Valid once `validate` passed.
    var source: CatalogSource {
        if let api { return .openMarket(api: Self.httpURL(api)!) }
        if let sitemap { return .sitemap(Self.httpURL(sitemap)!) }
        return .urlList(path: urls!)
    }

    private static func httpURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host?.isEmpty == false else { return nil }
        return url
    }
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
