import Foundation
import WarmSupport

/// What one run did. Field names are part of the documented interface (docs/running-nightly.md).
public struct WarmSummary: Sendable, Codable, Hashable {
    /// `warm --version` of the binary that ran.
    var version: String = WarmVersion.current
    /// The run did everything it was asked (image failures within `--max-failed` included): `warm_last_run_success`.
    public var success = false
    /// How it ended ("ok", "api-unreachable", "over-failure-budget", ...): `RunOutcome`, and the exit status.
    public var reasonCode: RunOutcome = .ok
    /// A sentence saying what went wrong (the API and its answer, the budget, the step); nil when all went well.
    public var reason: String?
    /// When the last successful run on this cache directory (or shard) finished: this one, or carried over from the
    /// summary this run replaced; nil before the first.
    var lastSuccessAt: Date?
    var startedAt: Date = Date()
    var finishedAt: Date = Date()
    var durationSeconds: Double = 0
    var crawlSeconds: Double = 0
    /// The API's URL, the sitemap's, or the URL list's path (`CatalogSource.location`).
    var api: String = ""
    var cacheDirectory: String = ""
    var sizes: [Int] = []
    var shard: String?

    var pagesFetched = 0
    var pagesFailed = 0
    var productsSeen = 0
    var productsUnique = 0
    var productsWithoutThumbnail = 0
    var productsSharingAThumbnail = 0
    /// `--detail-images`: products whose detail was asked for, those that gave no carousel (each listed in
    /// `failedImages` under its detail URL, reason "detail-..."), and the carousel entries the others listed.
    var detailsRead = 0
    var detailsFailed = 0
    var carouselImages = 0

    /// Distinct URLs (in a sharded run: this shard's).
    var imagesScheduled = 0
    var imagesOtherShards = 0
    /// Skipped without a request: every variant cached and still fresh.
    var imagesFresh = 0
    /// Revalidated with a conditional request that answered 304.
    var imagesNotModified = 0
    /// Downloaded (200) and decoded.
    var imagesDownloaded = 0
    var variantsWritten = 0
    var imagesFailed = 0
    var imagesMeasured = 0
    /// "http-404", "not-an-image", "page-http-5xx", ...
    var failedByReason: [String: Int] = [:]
    /// `--max-failed` as given ("1%", "5") and the images it allowed this run to fail.
    var maxFailed: String = FailureBudget.default.description
    var maxFailedImages = 0
    /// The first `FailedImage.listLimit` failed images; `failedImagesNotListed` counts the others.
    var failedImages: [FailedImage] = []
    var failedImagesNotListed = 0

    var bytesDownloaded = 0
    var bytesWritten = 0
    /// Decoding and encoding, summed over images.
    var decodeSeconds: Double = 0
    var evictedEntries = 0
    var evictedBytes = 0
    var prunedEntries = 0
    var prunedBytes = 0
    /// Why this run pruned nothing although pruning was on (a page failed...).
    var pruneSkippedReason: String?
    /// VmHWM at the end; it grows with the concurrency settings, not with the catalog.
    var peakResidentBytes = 0
    var stoppedEarly = false
    var stopReason: String?
    /// The manifest was unreadable and moved aside (`warm run` then exits 5; the next run exits 0).
    var manifestRebuilt = false
    /// As SQLite said.
    var manifestBrokenReason: String?
    /// `manifest.sqlite.broken-<UTC time>`.
    var manifestMovedTo: String?
    /// Sentences naming the failed steps after the warm; any makes the run unsuccessful (exit 2).
    var finishStepsFailed: [String] = []
    /// "SIGTERM", "SIGINT"; nil when no signal stopped the run.
    var stoppedBySignal: String?

    init() {}

    init(_ configuration: WarmConfiguration) {
        api = configuration.source.location
        cacheDirectory = configuration.cacheDirectory
        sizes = configuration.thumbnails.longestSides
        shard = configuration.shard?.description
        maxFailed = configuration.maxFailed.description
    }

    /// What `--max-failed` is held against: failed images and failed product details.
    var failuresCounted: Int { imagesFailed + detailsFailed }

    public var oneLine: String {
        var text = "warm: \(productsUnique) products, \(imagesScheduled) \(detailsRead > 0 ? "images" : "thumbnails"): \(imagesDownloaded) downloaded, "
            + "\(imagesNotModified) not modified, \(imagesFresh) fresh, \(imagesFailed) failed"
        if detailsRead > 0 { text += ", \(detailsRead) details read (\(carouselImages) carousel images, \(detailsFailed) failed)" }
        if failuresCounted > 0 {
            text += " (\(failuresCounted > maxFailedImages ? "over" : "within") --max-failed \(maxFailed))"
        }
        if pagesFailed > 0 { text += ", \(pagesFailed) pages failed" }
        if let shard { text += ", \(imagesOtherShards) left to other shards (shard \(shard))" }
        if imagesMeasured > 0 { text += ", \(imagesMeasured) measured" }
        text += String(format: "; %.1f MB downloaded, %.1f MB written in %.1f s",
                       Double(bytesDownloaded) / 1e6, Double(bytesWritten) / 1e6, durationSeconds)
        if prunedEntries > 0 { text += String(format: "; pruned %d entries (%.1f MB)", prunedEntries, Double(prunedBytes) / 1e6) }
        for failure in finishStepsFailed { text += "; \(failure)" }
        if manifestRebuilt { text += "; the broken cache manifest was rebuilt (moved to \(manifestMovedTo ?? "?"))" }
        if let stopReason { text += "; stopped early: \(stopReason)" }
        if reasonCode.isListFailure, let reason { return text + "; " + reason }
        return text + "."
    }
}
