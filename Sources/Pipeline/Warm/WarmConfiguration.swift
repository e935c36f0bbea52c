import Cache
import Downsample
import Fetch
import Foundation
import WarmMetrics
import WarmSupport

/// Everything one `warm run` needs, with defaults that work (the demo); nothing here is read from globals.
public struct WarmConfiguration: Sendable {
    /// Its `/api/products` is crawled.
    public var apiURL: URL
    public var cacheDirectory: String
    /// Longest sides, one file each, ascending.
    public var sizes = [DecodeTarget.defaultLongestSide] {
        didSet { sizes = Array(Set(sizes)).sorted() }
    }
    /// Every size is written in each format (a repeated format once).
    public var formats: [OutputFormat] = [.jpeg]
    /// JPEG's quality (WebP's and AVIF's: `encoderSettings`).
    public var quality = EncoderSettings.defaultJPEGQuality
    public var encoderSettings = EncoderSettings.default
    public var itemsPerPage = 100
    public var pageConcurrency = 4
    public var fetchConcurrency = 16
    public var decodeConcurrency = Machine.cores
    public var limits = DecodeLimits.default
    /// Younger entries are skipped without a request; older ones are revalidated.
    public var maxAgeSeconds: Double = DiskCache.defaultMaxAgeSeconds
    /// Enforced by LRU eviction after the run.
    public var maxCacheBytes: Int?
    public var compare = CompareSelection.none
    /// JSON Lines, with a CSV beside it.
    public var metricsPath: String?
    public var summaryPath: String?
    public var prometheusPath: String?
    /// The app manifest, written after the run.
    public var exportPath: String?
    /// Only this shard's images, with manifest, lock and temp files under `shards/I-of-N/`; nil: all images.
    public var shard: CacheShard?
    /// `--allow-host`, whatever they resolve to; the API's host and page 1's hosts (public addresses only) are allowed.
    public var allowedHosts: [HostPattern] = []
    /// nil: the run cannot measure.
    public var measuringPool: MeasuringPool?
    /// Lowest peak kept (`--measure-repeats`).
    public var measureRepeats = StrategyMeasurer.Repeats()
    /// `--prune-after`, applied only after a complete list (0: whatever this run did not see); nil: never prune.
    public var pruneAfterSeconds: Double? = 7 * 86400
    /// Image failures a run tolerates before it fails (exit 2).
    public var maxFailed = FailureBudget.default
    /// Crash rehearsals and tests only.
    public var cacheFaults: FaultInjector?

    public init(apiURL: URL, cacheDirectory: String) {
        self.apiURL = apiURL
        self.cacheDirectory = cacheDirectory
    }

    /// The defaults, as `warm run`'s options read them for their own (`--help` shows them): each written once, above.
    /// The API and the directory are placeholders; no option reads them.
    public static var defaults: WarmConfiguration { WarmConfiguration(apiURL: URL(fileURLWithPath: "/"), cacheDirectory: "") }

    public var measures: Bool { compare != .none && metricsPath != nil }

    /// Images are measured at the smallest size.
    var measuredLongestSide: Int { sizes.first ?? DecodeTarget.defaultLongestSide }
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
