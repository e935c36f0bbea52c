import Cache
import Downsample
import Fetch
import Foundation
import WarmMetrics
import WarmSupport

/// Everything one `warm run` needs, with defaults that work (the demo); nothing here is read from globals, and it
/// holds values only: the live parts (decoder, measuring processes, fault injector) are handed to `WarmPipeline.run`. One value
/// per purpose, as `--help` groups the options: each option group of `warm run` and `warm demo` yields its own, and
/// reads its defaults from it (`Thumbnails()` and so on), so that every default is written once, here.
public struct WarmConfiguration: Sendable {
    /// The list of tonight's images.
    var source: CatalogSource
    var cacheDirectory: String
    var thumbnails = Thumbnails()
    /// Off by default: only the list's thumbnails.
    var details = Details()
    var freshness = Freshness()
    var fetching = Fetching()
    public var decoding = Decoding()
    public var measuring = Measuring()
    public var output = Output()
    /// Only this shard's images, with manifest, lock and temp files under `shards/I-of-N/`; nil: all images.
    var shard: CacheShard?
    /// Image failures a run tolerates before it fails (exit 2).
    var maxFailed = FailureBudget.default

    public init(source: CatalogSource, cacheDirectory: String, thumbnails: Thumbnails = Thumbnails(), details: Details = Details(),
                freshness: Freshness = Freshness(), fetching: Fetching = Fetching(), decoding: Decoding = Decoding(), measuring: Measuring = Measuring(),
                output: Output = Output(), shard: CacheShard? = nil, maxFailed: FailureBudget = .default) {
        self.source = source
        self.cacheDirectory = cacheDirectory
        self.thumbnails = thumbnails
        self.details = details
        self.freshness = freshness
        self.fetching = fetching
        self.decoding = decoding
        self.measuring = measuring
        self.output = output
        self.shard = shard
        self.maxFailed = maxFailed
    }

    /// What is cached of each image (`--size`, `--format`, `--quality`, `--webp-effort`, `--avif-effort`).
    public struct Thumbnails: Sendable {
        /// Longest sides, one file each (repeats are written once).
        public var sizes: [Int]
        /// Every size is written in each format (a repeated format once).
        public var formats: [OutputFormat]
        /// Every format's quality, and WebP's and AVIF's effort.
        var encoder: EncoderSettings

        public init(sizes: [Int] = [DecodeTarget.defaultLongestSide], formats: [OutputFormat] = [.jpeg],
                    encoder: EncoderSettings = .default) {
            self.sizes = sizes
            self.formats = formats
            self.encoder = encoder
        }

        /// The sizes ascending, each once.
        var longestSides: [Int] { Array(Set(sizes)).sorted() }
    }

    /// Each product's detail carousel (`--detail-images`, `--detail-size`, `--detail-limit`): the `images[].url`s of
    /// `GET /api/products/{id}`, cached at `longestSide` in each of the thumbnails' formats. An OpenMarket source only.
    public struct Details: Sendable {
        public var enabled: Bool
        /// A phone's full-screen width: what a carousel shows.
        public var longestSide: Int
        /// Read the details of the first this many products the list gives (newest first); nil: every product's.
        public var productLimit: Int?

        public static let defaultLongestSide = 1080

        public init(enabled: Bool = false, longestSide: Int = Self.defaultLongestSide, productLimit: Int? = nil) {
            self.enabled = enabled
            self.longestSide = longestSide
            self.productLimit = productLimit
        }
    }

    /// When entries are skipped, revalidated, pruned and evicted (`--max-age`, `--prune-after`, `--max-cache-size`).
    public struct Freshness: Sendable {
        /// Younger entries are skipped without a request; older ones are revalidated.
        public var maxAgeSeconds: Double
        /// Applied only after a complete list (0: whatever this run did not see); nil: never prune.
        public var pruneAfterSeconds: Double?
        /// Enforced by LRU eviction after the run.
        var maxCacheBytes: Int?

        public init(maxAgeSeconds: Double = DiskCache.defaultMaxAgeSeconds, pruneAfterSeconds: Double? = 7 * 86400,
                    maxCacheBytes: Int? = nil) {
            self.maxAgeSeconds = maxAgeSeconds
            self.pruneAfterSeconds = pruneAfterSeconds
            self.maxCacheBytes = maxCacheBytes
        }
    }

    /// How the run talks to servers (`--concurrency`, timeouts, retries, `--max-image-size`, `--allow-host`).
    public struct Fetching: Sendable {
        public var itemsPerPage: Int
        public var pageConcurrency: Int
        /// Downloads in flight.
        public var concurrency: Int
        /// `--allow-host`, whatever they resolve to; the API's host and page 1's hosts (public addresses only) are allowed.
        public var allowedHosts: [HostPattern]
        /// Timeouts, retries; `maxBodyBytes` is also the largest source the decoder takes (one limit).
        public var http: FetchConfiguration

        public init(itemsPerPage: Int = 100, pageConcurrency: Int = 4, concurrency: Int = 16, allowedHosts: [HostPattern] = [],
                    http: FetchConfiguration = FetchConfiguration(maxBodyBytes: DecodeLimits.default.maxEncodedBytes)) {
            self.itemsPerPage = itemsPerPage
            self.pageConcurrency = pageConcurrency
            self.concurrency = concurrency
            self.allowedHosts = allowedHosts
            self.http = http
        }
    }

    /// How many images are decoded at once, and the largest accepted (`--decode-concurrency`, `--max-pixels`).
    public struct Decoding: Sendable {
        public var concurrency: Int
        var maxPixels: Int

        public init(concurrency: Int = Machine.cores, maxPixels: Int = DecodeLimits.default.maxPixels) {
            self.concurrency = concurrency
            self.maxPixels = maxPixels
        }
    }

    /// Which images are measured with all three strategies, and where the records go.
    public struct Measuring: Sendable {
        var compare: CompareSelection
        /// JSON Lines, with a CSV beside it.
        public var metricsPath: String?
        /// Lowest peak kept (`--measure-repeats`).
        public var repeats: StrategyMeasurer.Repeats

        public init(compare: CompareSelection = .none, metricsPath: String? = nil, repeats: StrategyMeasurer.Repeats = .init()) {
            self.compare = compare
            self.metricsPath = metricsPath
            self.repeats = repeats
        }
    }

    /// What the run writes besides the cache.
    public struct Output: Sendable {
        public var summaryPath: String?
        var prometheusPath: String?
        /// The app manifest, written after the run.
        var exportPath: String?

        public init(summaryPath: String? = nil, prometheusPath: String? = nil, exportPath: String? = nil) {
            self.summaryPath = summaryPath
            self.prometheusPath = prometheusPath
            self.exportPath = exportPath
        }
    }

    /// The decoder's limits: `--max-pixels`, and the download limit as the largest source.
    var limits: DecodeLimits {
        DecodeLimits(maxPixels: decoding.maxPixels, maxEncodedBytes: fetching.http.maxBodyBytes)
    }

    var measures: Bool { measuring.compare != .none && measuring.metricsPath != nil }

    /// What is cached of an image shown as `roles`: each of their sizes in each format, the smallest size first, a size
    /// both roles use once.
    func variants(for roles: ImageRoles) -> [CacheVariant] {
        var sizes = roles.contains(.thumbnail) ? thumbnails.longestSides : []
        if roles.contains(.carousel), !sizes.contains(details.longestSide) { sizes.append(details.longestSide) }
        let formats = OutputFormat.distinct(thumbnails.formats)
        return sizes.sorted().flatMap { size in formats.map { CacheVariant(longestSide: size, format: $0) } }
    }

    /// Images are measured at the smallest size.
    var measuredLongestSide: Int { thumbnails.longestSides.first ?? DecodeTarget.defaultLongestSide }
}

/// Naive decoding of everything is costly, so a nightly warm measures none or a sample.
public enum CompareSelection: Sendable, Hashable {
    case none
    case all
    /// By URL hash, so the same images every night.
    case oneIn(Int)

    var share: Double {
        switch self {
        case .none: return 0
        case .all: return 1
        case .oneIn(let n): return 1 / Double(max(1, n))
        }
    }

    func includes(_ url: CanonicalURL) -> Bool {
        switch self {
        case .none: return false
        case .all: return true
        case .oneIn(let n):
            guard n > 1 else { return true }
            return SHA256Hex.lowWord(of: url.text) % UInt64(n) == 0
        }
    }
}
