import Cache
import Downsample
import Fetch
import Foundation
import WarmMetrics
import WarmSupport

/// Warms one distinct thumbnail URL: skip while fresh, revalidate when stale (a 304 costs no download or decode),
/// else download, decode and store every variant. Memory: one source image and its thumbnails.
struct ImageWarmer: Sendable {
    let configuration: WarmConfiguration
    let cache: CacheIO
    let fetcher: any Fetching
    let decoder: any ThumbnailDecoding
    /// Measures images selected by `configuration.measuring.compare`, records the others' known sizes; nil: no measuring.
    let metrics: MetricsRecorder?
    /// When a worker stops the run (disk full), the fetches that stop cancels are no image's failure.
    let halt: StopRequest

    /// Each size the job's roles need in each format (`WarmConfiguration.variants(for:)`); images are matched to them
    /// by format and size (`VariantImage`), whatever order the decoder returns them in.
    func variants(_ job: ImageJob) -> [CacheVariant] { configuration.variants(for: job.roles) }

    /// Throws only `CacheError.diskFull`, which stops the run.
    func warm(_ job: ImageJob) async throws(CacheError) -> ImageOutcome {
        let measuring = metrics != nil && job.isSelected(by: configuration.measuring.compare)
        let warmed: Warmed
        do throws(ImageFailure.Cause) {
            warmed = try await attempt(job, measuring: measuring)
        } catch {
            return try await fail(error, job)
        }
        guard let metrics else { return warmed.outcome }
        do throws(MetricsFileError) {
            for image in warmed.images { try await metrics.record(image, measure: measuring) }
        } catch {
            // The metrics file is unusable: the image is warmed, its record is missing.
            return .failed(job.failure(.metrics(reason: "\(error)")))
        }
        return warmed.outcome
    }

    /// Returns what was done for the measuring stage too; the downloaded bytes are measured after the shared section.
    private func attempt(_ job: ImageJob, measuring: Bool) async throws(ImageFailure.Cause) -> Warmed {
        let (url, variants) = (job.canonicalURL, variants(job))
        let cached: [CacheEntry]
        // Admission read them with the rest of the crawl page; read here when it could not.
        if let admitted = job.cached {
            cached = usable(admitted, variants)
        } else {
            cached = usable(try await cacheCall { cache throws(CacheError) in try cache.entries(forURL: url) }, variants)
        }
        let complete = cached.count == variants.count && !measuring
        if complete && isFresh(cached) {
            await fillMissingPlaceholder(job, cached)
            return Warmed(outcome: .fresh, images: warmedImages(job, .cached(cached)))
        }
        // Revalidate only when every variant is there; a missing one needs the bytes.
        let validators = complete ? cached.first.map { Validators(etag: $0.etag, lastModified: $0.lastModified) } : nil

        let outcome: FetchOutcome
        do throws(FetchError) {
            outcome = try await fetcher.get(job.fetchURL, validators: validators)
        } catch {
            throw .fetch(error)
        }
        guard case .fetched(let resource) = outcome else {
            try await cacheCall { cache throws(CacheError) in try cache.markRevalidated(url: url) }
            await fillMissingPlaceholder(job, cached)
            return Warmed(outcome: .notModified, images: warmedImages(job, .cached(cached)))
        }
        return try await decodeAndStore(resource, job, measuring: measuring)
    }

    /// One for each role the job is shown in (each has a record of its own); built only when a measuring stage takes them.
    private func warmedImages(_ job: ImageJob, _ work: WarmedImage.Work) -> [WarmedImage] {
        guard metrics != nil else { return [] }
        let roles: [(ImageRoles, String?, Int)] = [(.thumbnail, nil, configuration.measuredLongestSide),
                                                   (.carousel, ImageMetricsRecord.carouselRole, configuration.details.longestSide)]
        return roles.filter { job.roles.contains($0.0) }.map { role, name, target in
            WarmedImage(productId: job.productIds.first, url: job.fetchURL.absoluteString, role: name,
                        targetLongestSide: target, variants: configuration.variants(for: role), work: work)
        }
    }

    /// A cache call whose error fails the image (and a full disk, the run).
    @discardableResult
    private func cacheCall<T: Sendable>(
        _ body: @escaping @Sendable (DiskCache) throws(CacheError) -> T
    ) async throws(ImageFailure.Cause) -> T {
        let result = await cache.perform { cache in Result { () throws(CacheError) in try body(cache) } }
        return try result.mapError(ImageFailure.Cause.cache).get()
    }

    /// The job's variants that have a file, in `variants`' order.
    private func usable(_ entries: [CacheEntry], _ variants: [CacheVariant]) -> [CacheEntry] {
        let byName = Dictionary(entries.map { ($0.variant.name, $0) }, uniquingKeysWith: { first, _ in first })
        return variants.compactMap { byName[$0.name] }.filter(\.fileIsPresent)
    }

    /// Not promised for longer than today's --max-age either, so lowering it, even to 0, revalidates at once.
    private func isFresh(_ cached: [CacheEntry]) -> Bool {
        let now = Date().timeIntervalSince1970
        return cached.allSatisfy { $0.isFresh(now: now) && ($0.expiresAt ?? 0) <= now + configuration.freshness.maxAgeSeconds }
    }

    private func decodeAndStore(_ resource: FetchedResource, _ job: ImageJob,
                                measuring: Bool) async throws(ImageFailure.Cause) -> Warmed {
        let started = ContinuousClock.now
        let variants = variants(job)
        let decoded = await decoder.thumbnails(of: .bytes(resource.body), request(variants))
        let decodeSeconds = (ContinuousClock.now - started).inSeconds
        let thumbnails: Thumbnails, matched: [VariantImage]
        do throws(DownsampleError) {
            thumbnails = try decoded.get()
            matched = try VariantImage.match(variants, in: thumbnails)
        } catch {
            throw .decode(error)
        }
        let header = thumbnails.header
        var written = 0
        for pair in matched {
            let (variant, image) = (pair.variant, pair.image)
            let metadata = CacheMetadata(
                etag: resource.etag, lastModified: resource.lastModified, sourceBytes: resource.body.count,
                sourceFormat: header.format.rawValue, sourceWidth: header.width, sourceHeight: header.height,
                outputWidth: image.size.width, outputHeight: image.size.height, fetchedAt: Date().timeIntervalSince1970,
                thumbHash: thumbnails.placeholder.map { Data($0.thumbHash) }, averageColor: thumbnails.placeholder?.averageColor)
            let (url, productIds, data) = (job.canonicalURL, job.productIds, image.data)
            try await cacheCall { cache throws(CacheError) in
                try cache.store(url: url, productIds: productIds, variant: variant, data: data, metadata: metadata)
            }
            written += data.count
        }
        let outcome = ImageOutcome.written(sourceBytes: resource.body.count, variants: matched.count,
                                           outputBytes: written, decodeSeconds: decodeSeconds, measured: measuring)
        return Warmed(outcome: outcome, images: warmedImages(job, .thumbnailed(
            source: resource.body, header: header, thumbnails: matched, encoder: configuration.thumbnails.encoder)))
    }

    private func request(_ variants: [CacheVariant]) -> ThumbnailRequest {
        let sizes = Array(Set(variants.map(\.longestSide))).sorted()
        return ThumbnailRequest(targets: sizes.map(DecodeTarget.init(longestSide:)), formats: configuration.thumbnails.formats,
                                settings: configuration.thumbnails.encoder, limits: configuration.limits, placeholder: true)
    }

    /// A full disk is rethrown to stop the run. A fetch cancelled by a halt is left for the next run; one cancelled
    /// after a signal's grace is a failure (docs/running-nightly.md).
    private func fail(_ cause: ImageFailure.Cause, _ job: ImageJob) async throws(CacheError) -> ImageOutcome {
        if case .cache(let error) = cause, case .diskFull = error { throw error }
        if case .fetch(.cancelled) = cause, halt.reason != nil { return .abandoned }
        let failure = job.failure(cause)
        let (url, productIds, variants, reason) = (job.canonicalURL, job.productIds, variants(job), failure.reason)
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

private struct Warmed {
    var outcome: ImageOutcome
    /// For the measuring stage; none without one.
    var images: [WarmedImage]
}
