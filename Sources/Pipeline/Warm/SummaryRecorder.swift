import Crawl
import Foundation

/// What happened to one image, as the pipeline's workers report it.
enum ImageOutcome: Sendable {
    case fresh
    case notModified
    case written(sourceBytes: Int, variants: Int, outputBytes: Int, decodeSeconds: Double, measured: Bool)
    case failed(ImageFailure)
    /// Cancelled because the run halted itself (disk full): counted nowhere, fetched by the next run.
    case abandoned
}

/// The run's counters, shared by all workers (hence an actor), and the progress total worked out from them.
actor SummaryRecorder {
    private(set) var summary = WarmSummary()
    private var progress: ProgressReporter
    private var crawl: CrawlReport?
    /// Each failed page's sentence, for `reportFailedRun`.
    private var pageFailures: [String] = []
    private var crawlDone = false
    /// Scheduled or set aside.
    private var productsHandled = 0
    /// The share of images measured (1 for all); nil: not measuring.
    private let measureShare: Double?
    private var measureSelected = 0
    /// Selected but not measured after all (fresh, revalidated or failed).
    private var measureDropped = 0
    /// Held here, not carried back in `StageEnd`: in a release build (Swift 6.3.1, -O) the failure the crawl's catch put
    /// in its `StageEnd` did not reach `finish` (its `listIncompleteReason` did), so a run against a dead API ended 0
    /// with `warm_last_run_success 1`, as the old `crawlError` did; debug builds were right. RunStatusTests pins the end.
    private(set) var listFailure: ListFailure?

    init(summary: WarmSummary, progress: ProgressReporter, measureShare: Double? = nil) {
        self.summary = summary
        self.progress = progress
        self.measureShare = measureShare
    }

    /// After a page, before its products are handed over.
    func crawlProgressed(_ report: CrawlReport) {
        crawl = report
        showProgress()
    }

    /// Its thumbnail is missing, was seen before (shared) or is another shard's.
    func productSetAside(forOtherShard: Bool) {
        productsHandled += 1
        if forOtherShard { summary.imagesOtherShards += 1 }
    }

    func scheduled(selectedForMeasuring: Bool = false) {
        productsHandled += 1
        summary.imagesScheduled += 1
        if selectedForMeasuring { measureSelected += 1 }
        showProgress()
    }

    func measuredOne() {
        summary.imagesMeasured += 1
        showProgress()
    }

    /// Scheduled, plus products handed over but not looked at, plus listed but unseen; once the crawl is done,
    /// exactly those scheduled.
    var expectedImages: Int {
        guard !crawlDone, let crawl else { return summary.imagesScheduled }
        let pendingHandover = max(0, crawl.delivered - productsHandled)
        let unseen = max(0, max(crawl.totalCountAtStart, crawl.totalCountAtEnd) - crawl.uniqueProducts)
        return summary.imagesScheduled + pendingHandover + unseen
    }

    var progressSnapshot: ProgressSnapshot {
        let total = expectedImages
        var measureTotal: Int?
        if let share = measureShare {
            let unscheduled = Double(total - summary.imagesScheduled) * share
            measureTotal = max(summary.imagesMeasured, measureSelected - measureDropped + Int(unscheduled.rounded()))
        }
        return ProgressSnapshot(done: done, total: total, totalIsFinal: crawlDone, failed: summary.imagesFailed,
                                measured: summary.imagesMeasured, measureTotal: measureTotal)
    }

    func showProgress() {
        progress.update(progressSnapshot)
    }

    func finishDisplay() {
        showProgress()
        progress.finish()
    }

    func record(_ outcome: ImageOutcome, selectedForMeasuring: Bool = false) {
        if selectedForMeasuring {
            if case .written(_, _, _, _, true) = outcome {} else { measureDropped += 1 }
        }
        switch outcome {
        case .fresh:
            summary.imagesFresh += 1
        case .notModified:
            summary.imagesNotModified += 1
        case .written(let sourceBytes, let variants, let outputBytes, let decodeSeconds, _):
            summary.imagesDownloaded += 1
            summary.variantsWritten += variants
            summary.bytesDownloaded += sourceBytes
            summary.bytesWritten += outputBytes
            summary.decodeSeconds += decodeSeconds
        case .failed(let failure):
            summary.imagesFailed += 1
            list(FailedImage(failure), saying: failure.description)
        case .abandoned:
            break
        }
        showProgress()
    }

    /// A product's detail gave no carousel: a failure of that product, listed with the images under its detail URL.
    func detailFailed(_ failure: DetailFailure) {
        list(FailedImage(url: failure.url.absoluteString, productIds: [failure.productID],
                         reasonCode: "detail-" + failure.reasonCode, reason: failure.description),
             saying: failure.description)
    }

    /// Counts a failure by its reason, lists it while the summary's list has room (`failedImagesNotListed` counts the
    /// others) and shows `sentence`.
    private func list(_ failed: FailedImage, saying sentence: String) {
        summary.failedByReason[failed.reasonCode, default: 0] += 1
        if summary.failedImages.count < FailedImage.listLimit {
            summary.failedImages.append(failed)
        } else {
            summary.failedImagesNotListed += 1
        }
        progress.failure(sentence)
    }

    /// One page's details: asked for, failed, and the carousel entries the others listed.
    func detailsRead(_ count: Int, failed: Int, images: Int) {
        summary.detailsRead += count
        summary.detailsFailed += failed
        summary.carouselImages += images
    }

    func crawlFinished(_ report: CrawlReport) {
        crawl = report
        crawlDone = true
        summary.crawlSeconds = report.durationSeconds
        summary.pagesFetched = report.pagesFetched
        summary.pagesFailed = report.failedPages.count
        summary.productsSeen = report.productsSeen
        summary.productsUnique = report.uniqueProducts
        summary.productsWithoutThumbnail = report.withoutThumbnail
        for failure in report.failedPages {
            summary.failedByReason["page-" + failure.reasonCode, default: 0] += 1
            let line = "page \(failure.pageNo) (\(failure.url.absoluteString)): \(failure.description)"
            pageFailures.append(line)
            progress.failure(line)
        }
        showProgress()
    }

    /// For a run that did not succeed: its failed pages and images (the summary's list), named on standard error.
    func reportFailedRun() {
        var lines = pageFailures + summary.failedImages.map(\.description)
        if summary.failedImagesNotListed > 0 {
            lines.append("\(summary.failedImagesNotListed) more failed images are not listed (failedByReason in the summary counts them)")
        }
        progress.failedRun(lines)
    }

    /// The first failure of the list (page 1, or pages never read) decides the run's `reasonCode`.
    func listFailed(_ failure: ListFailure) {
        listFailure = listFailure ?? failure
    }

    func stop(_ reason: String) {
        summary.stoppedEarly = true
        summary.stopReason = summary.stopReason ?? reason
    }

    func update(_ change: @Sendable (inout WarmSummary) -> Void) {
        change(&summary)
    }

    private var done: Int {
        summary.imagesFresh + summary.imagesNotModified + summary.imagesDownloaded + summary.imagesFailed
    }
}
