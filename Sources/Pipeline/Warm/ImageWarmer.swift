import Cache
import Downsample
import Fetch
import Foundation
import WarmMetrics

/// Warms one distinct thumbnail URL: skips it while fresh, revalidates it with
/// a conditional request when stale (a 304 costs no download and no decode),
/// otherwise downloads, decodes at each size with thumbnail-at-decode and
/// stores every variant atomically. Holds one source image and its thumbnails
/// in memory while it works.
struct ImageWarmer: Sendable {
    let configuration: WarmConfiguration
    let cache: DiskCache
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
            try await metrics.submit(source, productId: job.productIds.first, url: job.fetchURL)
        } catch {
            // The metrics file is unusable: the image is warmed, its record is missing.
            return .failed(.metrics(url: job.fetchURL, productIds: job.productIds, reason: "\(error)"))
        }
        return outcome
    }

    /// Skips, revalidates or downloads and decodes; returns the downloaded
    /// bytes too when `measuring` (they are measured after the shared section).
    private func warm(_ job: ImageJob, measuring: Bool) async throws(CacheError) -> (outcome: ImageOutcome, source: Data?) {
        let now = Date().timeIntervalSince1970
        let existing: [String: CacheEntry]
        do {
            existing = Dictionary(try cache.entries(forURL: job.canonicalURL).map { ($0.variant.name, $0) },
                                  uniquingKeysWith: { first, _ in first })
        } catch {
            return (try fail(.cache(url: job.fetchURL, productIds: job.productIds, error), job), nil)
        }
        let cached = variants.compactMap { existing[$0.name] }.filter(\.fileIsPresent)
        let complete = cached.count == variants.count && !measuring
        // Fresh: not expired, and not promised for longer than today's --max-age
        // (so lowering --max-age, even to 0, makes entries revalidate at once).
        let fresh = cached.allSatisfy { $0.isFresh(now: now) && ($0.expiresAt ?? 0) <= now + configuration.maxAgeSeconds }
        if complete && fresh {
            return (.fresh, nil)
        }
        // Revalidate only when every variant is there; a missing one needs the bytes.
        let validators = complete ? cached.first.map { Validators(etag: $0.etag, lastModified: $0.lastModified) } : nil

        let outcome: FetchOutcome
        do throws(FetchError) {
            guard let url = URL(string: job.fetchURL) else { throw .invalidURL(job.fetchURL) }
            outcome = try await fetcher.get(url, validators: validators)
        } catch {
            return (try fail(.fetch(url: job.fetchURL, productIds: job.productIds, error), job), nil)
        }
        guard case .fetched(let resource) = outcome else {
            do {
                try cache.markRevalidated(url: job.canonicalURL)
            } catch {
                return (try fail(.cache(url: job.fetchURL, productIds: job.productIds, error), job), nil)
            }
            return (.notModified, nil)
        }

        // Every variant from one decode call (the decoder bounds how many run at once).
        let started = ContinuousClock.now
        let decoded = await decoder.thumbnails(of: .bytes(resource.body), request)
        let decodeSeconds = (ContinuousClock.now - started).seconds
        let header: ImageHeader, outputs: [(CacheVariant, Data, PixelSize)]
        switch decoded {
        case .success(let thumbnails):
            header = thumbnails.header
            outputs = zip(variants, thumbnails.images).map { ($0, $1.data, $1.size) }
        case .failure(let error): return (try fail(.decode(url: job.fetchURL, productIds: job.productIds, error), job), nil)
        }

        var written = 0
        for (variant, data, size) in outputs {
            let metadata = CacheMetadata(
                etag: resource.etag, lastModified: resource.lastModified, sourceBytes: resource.body.count,
                sourceFormat: header.format.rawValue, sourceWidth: header.width, sourceHeight: header.height,
                outputWidth: size.width, outputHeight: size.height, fetchedAt: Date().timeIntervalSince1970)
            do {
                try cache.store(url: job.canonicalURL, productIds: job.productIds, variant: variant, data: data, metadata: metadata)
                written += data.count
            } catch {
                return (try fail(.cache(url: job.fetchURL, productIds: job.productIds, error), job), nil)
            }
        }
        return (.written(sourceBytes: resource.body.count, variants: outputs.count, outputBytes: written,
                         decodeSeconds: decodeSeconds, measured: measuring), measuring ? resource.body : nil)
    }

    /// One thumbnail per variant, in `variants`' order.
    private var request: ThumbnailRequest {
        ThumbnailRequest(targets: variants.map { DecodeTarget(longestSide: $0.longestSide) },
                         format: configuration.format, quality: configuration.quality, limits: configuration.limits)
    }

    /// Records the failure on every variant (keeping any earlier good file) and
    /// reports it; a full disk is rethrown to stop the run.
    private func fail(_ failure: ImageFailure, _ job: ImageJob) throws(CacheError) -> ImageOutcome {
        if case .cache(_, _, let error) = failure, case .diskFull = error { throw error }
        for variant in variants {
            do {
                try cache.recordFailure(url: job.canonicalURL, productIds: job.productIds, variant: variant, reason: failure.reason)
            } catch {
                if case .diskFull = error { throw error }
            }
        }
        return .failed(failure)
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
