import Cache
import Downsample
import Fetch
import Foundation
import WarmMetrics
import WarmSupport

/// Everything one `warm run` needs, with defaults that work (the demo). Built by
/// the command line from flags; nothing here is read from globals.
public struct WarmConfiguration: Sendable {
    /// Base URL of the OpenMarket-style API (its `/api/products` is crawled).
    public var apiURL: URL
    public var cacheDirectory: String
    /// Longest sides of the variants written per image (one file each), ascending.
    public var sizes = [300] {
        didSet { sizes = Array(Set(sizes)).sorted() }
    }
    /// Every size is written in each format, in `ThumbnailEncoder`'s order.
    public var formats: [OutputFormat] = [.jpeg] {
        didSet { formats = ThumbnailEncoder(formats: formats).formats }
    }
    public var quality = 82
    public var itemsPerPage = 100
    public var pageConcurrency = 4
    /// Downloads in flight at once.
    public var fetchConcurrency = 16
    /// Images decoded at once (default: the number of cores).
    public var decodeConcurrency = ProcessInfo.processInfo.activeProcessorCount
    public var limits = DecodeLimits.default
    /// Freshness lifetime: younger entries are skipped without a request;
    /// older ones are revalidated with a conditional request.
    public var maxAgeSeconds: Double = 12 * 3600
    /// Size limit of the cache files, enforced by LRU eviction after the run.
    public var maxCacheBytes: Int?
    /// Which images are also measured with all three strategies.
    public var compare = CompareSelection.none
    /// JSON Lines metrics (one record per measured image), with a CSV beside it.
    public var metricsPath: String?
    /// JSON summary of the run.
    public var summaryPath: String?
    /// Prometheus text-format file for node_exporter's textfile collector.
    public var prometheusPath: String?
    /// The app manifest (`warm cache export`'s JSON Lines), written after the run.
    public var exportPath: String?
    /// Warm only this shard's images (by canonical-URL hash), keeping the
    /// manifest, lock and temp files under `shards/I-of-N/`; nil: all images.
    public var shard: CacheShard?
    /// Hosts images may also be fetched from, whatever they resolve to
    /// (`--allow-host`). The API's own host is always allowed, and so are the
    /// hosts its first page names, at public addresses only (`HostPolicy`).
    public var allowedHosts: [HostPattern] = []
    /// The measuring processes compared images are measured in (nil: the run cannot measure).
    public var measuringPool: MeasuringPool?
    /// Runs per image of naive, renderer and thumbnail-at-decode (lowest peak kept; `--measure-repeats`).
    public var measureRepeats = StrategyMeasurer.Repeats()
    /// After a run that saw the whole product list, remove cache entries no
    /// listed product has pointed at for longer than this (`--prune-after`;
    /// 0: whatever this run did not see); nil: never prune.
    public var pruneAfterSeconds: Double? = 7 * 86400
    /// Makes the cache fail or stop at a `FaultPoint` (crash rehearsals and
    /// tests only); nil in normal runs.
    public var cacheFaults: FaultInjector?

    /// The demo's settings for this API and cache; set the rest by name.
    public init(apiURL: URL, cacheDirectory: String) {
        self.apiURL = apiURL
        self.cacheDirectory = cacheDirectory
    }

    /// True when the run measures images with all three strategies (some
    /// selected by `compare`, and a metrics file to write them to).
    public var measures: Bool { compare != .none && metricsPath != nil }

    /// Where a run keeps `fileName` (its summary, its metrics) by default:
    /// the cache directory, or a shard's state directory, so that shards
    /// sharing one cache directory never write the same file.
    public static func defaultStatePath(_ fileName: String, cacheDirectory: String, shard: CacheShard?) -> String {
        CacheLayout(root: cacheDirectory, shard: shard).stateDirectory + "/" + fileName
    }
}

/// Which images a run measures with all three strategies (naive decoding of
/// everything is costly, so a nightly warm measures none or a sample).
public enum CompareSelection: Sendable, Hashable {
    case none
    case all
    /// About one image in `n`, chosen by URL hash (the same images every night).
    case oneIn(Int)

    /// The share of images selected (0 for none).
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
            return FNV1a.hash(url.text.utf8) % UInt64(n) == 0
        }
    }
}
