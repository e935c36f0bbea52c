import Cache
import WarmSupport
import Foundation
import WarmMetrics

extension WarmPipeline {
    /// Product ids found after their shared thumbnail was stored, the prune, the size limit, the summary.
    func finish(_ end: StageEnd, startedAt: Date,
                clock: ContinuousClock.Instant) async throws(WarmRunError) -> WarmSummary {
        let shared = end.listed.filter { $0.value.count > 1 }
        let ours = shared.filter { owns($0.key) }
        let mergeFailure = await dependencies.cache.perform { cache -> String? in
            for (url, productIds) in ours {
                do {
                    _ = try cache.addProductIds(url: url, productIds: productIds)
                } catch {
                    return "the product-id merge failed (\(url)): \(error)"
                }
            }
            return nil
        }
        if let mergeFailure { await stepFailed(mergeFailure) }
        await recordCarousels(end)
        await prune(after: end, startedAt: startedAt)
        await evictToLimit(keepingListedSince: startedAt)
        await exportAppManifest()
        let finishedAt = dependencies.now()
        let previousSuccess = SummaryFile.lastSuccess(at: configuration.output.summaryPath)
        await progress.update {
            $0.productsSharingAThumbnail = shared.values.reduce(0) { $0 + $1.count }
            $0.finishedAt = finishedAt
            $0.durationSeconds = (ContinuousClock.now - clock).inSeconds
            $0.peakResidentBytes = ProcessMemory.peakResidentBytes()
            $0.maxFailedImages = configuration.maxFailed.images(scheduled: $0.imagesScheduled)
        }
        var summary = await progress.summary
        (summary.reasonCode, summary.reason) = RunOutcome.decide(summary, listFailure: await progress.listFailure)
        summary.success = summary.reasonCode.isSuccess
        summary.lastSuccessAt = summary.success ? finishedAt : previousSuccess
        if !summary.success { await progress.reportFailedRun() }
        let (settings, finished, reserve, faults) = (configuration, summary, dependencies.summaryReserve, dependencies.faults)
        try await BlockingWork.run {
            reserve?.release()
            return Result { () throws(WarmRunError) in try SummaryFile.write(finished, configuration: settings, faults: faults) }
        }.get()
        return finished
    }

    /// Where tonight's details show each image, for the app manifest. When every detail was read, each listed image's
    /// placements are replaced (none: it left every carousel); after a failed detail, only the images a carousel showed
    /// tonight are updated, since the failed product's images were not seen.
    private func recordCarousels(_ end: StageEnd) async {
        guard configuration.details.enabled else { return }
        let detailsFailed = await progress.summary.detailsFailed
        var placements = end.carousels.filter { owns($0.key) }
        if detailsFailed == 0 {
            for url in end.listed.keys where placements[url] == nil && owns(url) { placements[url] = [] }
        }
        let recorded = placements
        do {
            try await dependencies.cache.run { cache throws(CacheError) in try cache.setCarousels(recorded) }
        } catch {
            await stepFailed("the carousel positions could not be recorded: \(error)")
        }
    }

    private func owns(_ url: CanonicalURL) -> Bool {
        configuration.shard?.owns(url) ?? true
    }

    /// Marks listed URLs as seen, then prunes rows unseen for `--prune-after`, but only after a complete list: an
    /// image is not gone because its page, or its product's detail, failed. With 0 the cutoff is the run's start: what it did not see goes.
    private func prune(after end: StageEnd, startedAt: Date) async {
        let (stoppedEarly, detailsFailed) = await (progress.summary.stoppedEarly, progress.summary.detailsFailed)
        // A product whose detail failed still shows its carousel: its images were not listed tonight, yet not gone.
        let listIncomplete = Task.isCancelled ? "the run was cancelled"
            : end.listIncompleteReason ?? (stoppedEarly ? "the run stopped early"
                                           : detailsFailed > 0 ? "\(detailsFailed) product details could not be read" : nil)
        let listed = end.listed.keys.filter { owns($0) }
        let (runStartedAt, pruneAfter) = (startedAt.timeIntervalSince1970, configuration.freshness.pruneAfterSeconds)
        let logger = logger
        let pruned = await dependencies.cache.perform { cache -> (result: RemovalResult, skippedReason: String?) in
            do {
                try cache.markListed(urls: listed, at: runStartedAt)
            } catch {
                logger.warning("could not record which images are still listed; pruning nothing",
                               metadata: ["error": "\(error)"])
                return (RemovalResult(), "the listed images could not be recorded: \(error)")
            }
            guard let pruneAfter else { return (RemovalResult(), nil) }
            if let listIncomplete {
                logger.notice("not pruning: the run did not see the whole product list",
                              metadata: ["reason": "\(listIncomplete)"])
                return (RemovalResult(), listIncomplete)
            }
            do {
                return (try cache.prune(listedBefore: runStartedAt - pruneAfter), nil)
            } catch {
                logger.warning("pruning failed", metadata: ["error": "\(error)"])
                return (RemovalResult(), "pruning failed: \(error)")
            }
        }
        await progress.update {
            $0.prunedEntries = pruned.result.removedCount
            $0.prunedBytes = pruned.result.removedBytes
            $0.pruneSkippedReason = pruned.skippedReason
        }
    }

    /// What tonight's list named (`markListed` at the run's start, in `prune`) goes last.
    private func evictToLimit(keepingListedSince startedAt: Date) async {
        guard let maxBytes = configuration.freshness.maxCacheBytes else { return }
        let evicted: RemovalResult
        let listedSince = startedAt.timeIntervalSince1970
        do {
            evicted = try await dependencies.cache.run({ cache throws(CacheError) in
                try cache.maintenance.evict(maxBytes: maxBytes, listedSince: listedSince)
            })
        } catch {
            return await stepFailed("the eviction to --max-cache-size \(maxBytes) bytes failed: \(error)")
        }
        await progress.update {
            $0.evictedEntries = evicted.removedCount
            $0.evictedBytes = evicted.removedBytes
        }
    }

    /// After the eviction, so it lists what the cache holds.
    private func exportAppManifest() async {
        guard let path = configuration.output.exportPath else { return }
        do {
            try await dependencies.cache.run { cache throws(CacheError) in try cache.maintenance.writeAppManifest(to: path) }
        } catch {
            await stepFailed("the app manifest could not be written to \(path): \(error)")
        }
    }

    /// Named in the summary: the run is then unsuccessful.
    private func stepFailed(_ failure: String) async {
        logger.error("\(failure)")
        await progress.update { $0.finishStepsFailed.append(failure) }
    }
}
