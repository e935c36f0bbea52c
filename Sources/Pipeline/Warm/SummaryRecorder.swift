import Crawl
import Foundation

/// What happened to one image, as the pipeline's workers report it.
enum ImageOutcome: Sendable {
    case fresh
    case notModified
    case written(sourceBytes: Int, variants: Int, outputBytes: Int, decodeSeconds: Double, measured: Bool)
    case failed(ImageFailure)
}

/// The run's counters, shared by all workers (hence an actor).
actor SummaryRecorder {
    private(set) var summary = WarmSummary()
    private let progress: ProgressReporter

    init(summary: WarmSummary, progress: ProgressReporter) {
        self.summary = summary
        self.progress = progress
    }

    func scheduled() {
        summary.imagesScheduled += 1
        progress.update(done: done, scheduled: summary.imagesScheduled, failed: summary.imagesFailed, finishedOne: false)
    }

    /// A distinct image that another shard warms (sharded runs only).
    func skippedForOtherShard() {
        summary.imagesOtherShards += 1
    }

    func record(_ outcome: ImageOutcome) {
        switch outcome {
        case .fresh:
            summary.imagesFresh += 1
        case .notModified:
            summary.imagesNotModified += 1
        case .written(let sourceBytes, let variants, let outputBytes, let decodeSeconds, let measured):
            summary.imagesDownloaded += 1
            summary.variantsWritten += variants
            summary.bytesDownloaded += sourceBytes
            summary.bytesWritten += outputBytes
            summary.decodeSeconds += decodeSeconds
            if measured { summary.imagesMeasured += 1 }
        case .failed(let failure):
            summary.imagesFailed += 1
            summary.failedByReason[failure.reasonCode, default: 0] += 1
            progress.failure(failure.description)
        }
        progress.update(done: done, scheduled: summary.imagesScheduled, failed: summary.imagesFailed, finishedOne: true)
    }

    func crawlFinished(_ report: CrawlReport) {
        summary.crawlSeconds = report.durationSeconds
        summary.pagesFetched = report.pagesFetched
        summary.pagesFailed = report.failedPages.count
        summary.productsSeen = report.productsSeen
        summary.productsUnique = report.uniqueProducts
        summary.productsWithoutThumbnail = report.withoutThumbnail
        for failure in report.failedPages {
            summary.failedByReason["page-" + failure.reasonCode, default: 0] += 1
            progress.failure("page \(failure.pageNo) (\(failure.url.absoluteString)): \(failure.description)")
        }
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
