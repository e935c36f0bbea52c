import Cache
import Downsample
import Fetch
import Foundation
import WarmMetrics
import WarmSupport

/// Warms one distinct thumbnail URL: skips it while fresh, revalidates it with
/// a conditional request when stale (a 304 costs no download and no decode),
/// otherwise downloads, decodes at each size with thumbnail-at-decode and
/// stores every variant atomically. Holds one source image and its thumbnails
/// in memory while it works.
struct ImageWarmer: Sendable {
    let configuration: WarmConfiguration
    let cache: CacheIO
    let fetcher: any Fetching
    /// Bounds its own concurrency (`decodeConcurrency` workers or threads).
    let decoder: any ThumbnailDecoding
    /// Measures images selected by `configuration.compare` (nil: no measuring).
    let metrics: MetricsRecorder?

    var variants: [CacheVariant] {
        configuration.sizes.map { CacheVariant(longestSide: $0, format: configuration.format.fileExtension) }
    }

    /// Warms `job`. Throws only `CacheError.diskFull`, which stops the run.
    func warm(_ job: ImageJob) async throws(CacheError) -> ImageOutcome {
        guard let metrics else { return try await warm(job, measuring: false).outcome }
        // While a run measures, a download and its decode hold a shared permit, so
        // that a measurement (exclusive) never counts their buffers in its peak.
        let measuring = configuration.compare.includes(job.canonicalURL)
        let (outcome, source) = try await MeasurementGate.shared.withSharedPermit { () async throws(CacheError) in
            try await warm(job, measuring: measuring)
        }
        guard measuring, let source, case .written = outcome else { return outcome }
        do {
            try await metrics.submit(source, productId: job.productIds.first, url: job.fetchURL.absoluteString)
        } catch {
            // The metrics file is unusable: the image is warmed, its record is missing.
            return .failed(.metrics(url: job.fetchURL.absoluteString, productIds: job.productIds, reason: "\(error)"))
        }
        return outcome
    }

    /// Skips, revalidates or downloads and decodes; returns the downloaded
    /// bytes too when `measuring` (they are measured after the shared section).
    private func warm(_ job: ImageJob, measuring: Bool) async throws(CacheError) -> (outcome: ImageOutcome, source: Data?) {
        let url = job.canonicalURL
        let cached: [CacheEntry]
        do {
            cached = usable(try await cache.run { cache throws(CacheError) in try cache.entries(forURL: url) })
        } catch {
            return (try await fail(.cache(url: job.fetchURL.absoluteString, productIds: job.productIds, error), job), nil)
        }
        let complete = cached.count == variants.count && !measuring
        if complete && isFresh(cached) { return (.fresh, nil) }
        // Revalidate only when every variant is there; a missing one needs the bytes.
        let validators = complete ? cached.first.map { Validators(etag: $0.etag, lastModified: $0.lastModified) } : nil

        let outcome: FetchOutcome
        do throws(FetchError) {
            outcome = try await fetcher.get(job.fetchURL, validators: validators)
        } catch {
            return (try await fail(.fetch(url: job.fetchURL.absoluteString, productIds: job.productIds, error), job), nil)
        }
        guard case .fetched(let resource) = outcome else {
            do {
                try await cache.run { cache throws(CacheError) in try cache.markRevalidated(url: url) }
            } catch {
                return (try await fail(.cache(url: job.fetchURL.absoluteString, productIds: job.productIds, error), job), nil)
            }
            return (.notModified, nil)
        }
        return (try await decodeAndStore(resource, job, measuring: measuring), measuring ? resource.body : nil)
    }

    /// The entries of this run's variants that have a file, in `variants`'
    /// order (other sizes and formats of the URL, and failure rows, left out).
    private func usable(_ entries: [CacheEntry]) -> [CacheEntry] {
        let byName = Dictionary(entries.map { ($0.variant.name, $0) }, uniquingKeysWith: { first, _ in first })
        return variants.compactMap { byName[$0.name] }.filter(\.fileIsPresent)
    }

    /// Not expired, and not promised for longer than today's --max-age (so
    /// lowering --max-age, even to 0, makes entries revalidate at once).
    private func isFresh(_ cached: [CacheEntry]) -> Bool {
        let now = Date().timeIntervalSince1970
        return cached.allSatisfy { $0.isFresh(now: now) && ($0.expiresAt ?? 0) <= now + configuration.maxAgeSeconds }
    }

    /// Every variant from one decode call (the decoder bounds how many run at
    /// once), each stored atomically.
    private func decodeAndStore(_ resource: FetchedResource, _ job: ImageJob, measuring: Bool) async throws(CacheError) -> ImageOutcome {
        let started = ContinuousClock.now
        let decoded = await decoder.thumbnails(of: .bytes(resource.body), request)
        let decodeSeconds = (ContinuousClock.now - started).inSeconds
        let thumbnails: Thumbnails
        switch decoded {
        case .success(let value): thumbnails = value
        case .failure(let error): return try await fail(.decode(url: job.fetchURL.absoluteString, productIds: job.productIds, error), job)
        }
        let header = thumbnails.header
        var written = 0
        for (variant, image) in zip(variants, thumbnails.images) {
            let metadata = CacheMetadata(
                etag: resource.etag, lastModified: resource.lastModified, sourceBytes: resource.body.count,
                sourceFormat: header.format.rawValue, sourceWidth: header.width, sourceHeight: header.height,
                outputWidth: image.size.width, outputHeight: image.size.height, fetchedAt: Date().timeIntervalSince1970)
            let (url, productIds, data) = (job.canonicalURL, job.productIds, image.data)
            do {
                try await cache.run { cache throws(CacheError) in
                    try cache.store(url: url, productIds: productIds, variant: variant, data: data, metadata: metadata)
                }
                written += data.count
            } catch {
                return try await fail(.cache(url: job.fetchURL.absoluteString, productIds: job.productIds, error), job)
            }
        }
        return .written(sourceBytes: resource.body.count, variants: thumbnails.images.count, outputBytes: written,
                        decodeSeconds: decodeSeconds, measured: measuring)
    }

    /// One thumbnail per variant, in `variants`' order.
    private var request: ThumbnailRequest {
        ThumbnailRequest(targets: variants.map { DecodeTarget(longestSide: $0.longestSide) },
                         format: configuration.format, quality: configuration.quality, limits: configuration.limits)
    }

    /// Records the failure on every variant (keeping any earlier good file) and
    /// reports it; a full disk is rethrown to stop the run.
    private func fail(_ failure: ImageFailure, _ job: ImageJob) async throws(CacheError) -> ImageOutcome {
        if case .cache(_, _, let error) = failure, case .diskFull = error { throw error }
        let (url, productIds, variants, reason) = (job.canonicalURL, job.productIds, variants, failure.reason)
        try await cache.run { cache throws(CacheError) in
            for variant in variants {
                do throws(CacheError) {
                    try cache.recordFailure(url: url, productIds: productIds, variant: variant, reason: reason)
                } catch {
                    if case .diskFull = error { throw error }
                }
            }
        }
        return .failed(failure)
    }
}
