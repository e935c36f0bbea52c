import AsyncAlgorithms
import Cache
import Crawl
import Fetch
import Foundation

/// Products (or a source's listed images) to image jobs: one per distinct canonical URL, this shard's only, page 1's
/// hosts allowed before its first job, each page's cache rows read together. One task; memory: the listed URLs and
/// one page's jobs.
struct JobAdmission: Sendable {
    let progress: SummaryRecorder
    let hostGate: HostGate?
    let shard: CacheShard?
    let compare: CompareSelection
    let cache: CacheIO

    /// Each `send` waits for a free worker: back-pressure up to the crawl. Returns the product ids naming each listed
    /// URL, the only state of a run that grows with the catalog.
    func run(from events: AsyncChannel<CrawlEvent>, onto jobs: AsyncChannel<ImageJob>) async -> [CanonicalURL: [Int]] {
        defer { jobs.finish() }
        var listed: [CanonicalURL: [Int]] = [:]
        for await event in events {
            switch event {
            case .progress(let report):
                await progress.crawlProgressed(report)
            case .finished(let report):
                await progress.crawlFinished(report)
            case .products(let products):
                await admit(products.map { ($0.thumbnailURL, [$0.id]) }, listed: &listed, onto: jobs)
            case .images(let images):
                // The manifest keeps integer product ids (the API's); a source's other ids (a sitemap's page) are not kept.
                await admit(images.map { ($0.url, $0.productID.flatMap { Int($0) }.map { [$0] } ?? []) }, listed: &listed, onto: jobs)
            }
        }
        return listed
    }

    /// One page (or a whole source) of listed images, each with the product ids naming it.
    private func admit(_ images: [(url: URL?, productIds: [Int])], listed: inout [CanonicalURL: [Int]],
                       onto jobs: AsyncChannel<ImageJob>) async {
        // Page 1 comes first: its hosts join the allow-list (HostGate takes them once).
        await hostGate?.learnFirstPage(images.compactMap(\.url))
        var admitted: [ImageJob] = []
        for image in images {
            if let job = await admit(image.url, productIds: image.productIds, listed: &listed) { admitted.append(job) }
        }
        for job in await withCachedEntries(admitted) { await jobs.send(job) }
    }

    /// One statement for the page; when it fails the jobs go without, and each warm reads its own and reports the
    /// error for its image.
    private func withCachedEntries(_ jobs: [ImageJob]) async -> [ImageJob] {
        guard !jobs.isEmpty else { return jobs }
        let urls = jobs.map(\.canonicalURL)
        guard let entries = try? await cache.run({ cache throws(CacheError) in try cache.entries(forURLs: urls) }) else {
            return jobs
        }
        return jobs.map { job in
            var job = job
            job.cached = entries[job.canonicalURL.text] ?? []
            return job
        }
    }

    private func admit(_ url: URL?, productIds: [Int], listed: inout [CanonicalURL: [Int]]) async -> ImageJob? {
        guard let url else { return await setAside() }
        let canonical: CanonicalURL
        do {
            canonical = try CanonicalURL(url.absoluteString)
        } catch {
            // Not a URL any shard owns by hash: the first shard reports it.
            guard (shard?.index ?? 0) == 0 else { return await setAside() }
            await progress.scheduled()
            let failure = ImageFailure(url: url.absoluteString, productIds: productIds, cause: .cache(error))
            await progress.record(.failed(failure))
            return nil
        }
        // The first product naming a URL schedules it; later ones add their ids.
        let seen = listed[canonical] != nil
        listed[canonical, default: []].append(contentsOf: productIds)
        guard !seen else { return await setAside() }
        // Every shard crawls the whole list and keeps only its own images.
        guard shard?.owns(canonical) ?? true else { return await setAside(forOtherShard: true) }
        await progress.scheduled(selectedForMeasuring: compare.includes(canonical))
        return ImageJob(canonicalURL: canonical, fetchURL: url, productIds: productIds)
    }

    /// No job for this product: its thumbnail is missing, seen before or another shard's.
    private func setAside(forOtherShard: Bool = false) async -> ImageJob? {
        await progress.productSetAside(forOtherShard: forOtherShard)
        return nil
    }
}

struct ImageJob: Sendable {
    /// The cache key; `fetchURL` is what the API gave.
    var canonicalURL: CanonicalURL
    var fetchURL: URL
    var productIds: [Int]
    /// Read when its crawl page was admitted; nil: the warm reads them itself.
    var cached: [CacheEntry]? = nil

    func failure(_ cause: ImageFailure.Cause) -> ImageFailure {
        ImageFailure(url: fetchURL.absoluteString, productIds: productIds, cause: cause)
    }
}
