import AsyncAlgorithms
import Cache
import Crawl
import Fetch
import Foundation

/// Products (or a source's listed images) to image jobs: one per distinct canonical URL and role, this shard's only,
/// page 1's hosts allowed before its first job, each page's cache rows read together. With `details`, each page's
/// products' carousels are read before the page is admitted, so that a page's thumbnails and carousel images are one
/// batch (a cover photo that is also its carousel's first is one job at both sizes). One task; memory: the listed
/// URLs and one page's jobs and details.
struct JobAdmission: Sendable {
    let progress: SummaryRecorder
    let hostGate: HostGate?
    let shard: CacheShard?
    let compare: CompareSelection
    let cache: CacheIO
    /// Reads each product's carousel; nil: thumbnails only.
    var details: DetailReader? = nil
    /// Products whose detail is read, the first ones the list gives; nil: all.
    var detailLimit: Int? = nil

    /// Each `send` waits for a free worker: back-pressure up to the crawl. Returns the product ids naming each listed
    /// URL and where carousels show it, the only state of a run that grows with the catalog.
    func run(from events: AsyncChannel<CrawlEvent>, onto jobs: AsyncChannel<ImageJob>) async -> StageEnd {
        defer { jobs.finish() }
        var end = StageEnd()
        var roles: [CanonicalURL: ImageRoles] = [:]
        var detailsLeft = detailLimit ?? Int.max
        for await event in events {
            switch event {
            case .progress(let report):
                await progress.crawlProgressed(report)
            case .finished(let report):
                await progress.crawlFinished(report)
            case .products(let products):
                var images = products.map { Listing(url: $0.thumbnailURL, productIds: [$0.id], roles: .thumbnail) }
                if let details, detailsLeft > 0 {
                    let read = products.prefix(detailsLeft).map(\.id)
                    detailsLeft -= read.count
                    images += await carousels(of: read, with: details)
                }
                await admit(images, into: &end, roles: &roles, onto: jobs)
            case .images(let images):
                // The manifest keeps integer product ids (the API's); a source's other ids (a sitemap's page) are not kept.
                let listings = images.map {
                    Listing(url: $0.url, productIds: $0.productID.flatMap { Int($0) }.map { [$0] } ?? [], roles: .thumbnail)
                }
                await admit(listings, into: &end, roles: &roles, onto: jobs)
            }
        }
        return end
    }

    /// The carousel images of `productIds`, in the page's order; a product whose detail failed is counted and named,
    /// and gives none.
    private func carousels(of productIds: [Int], with details: DetailReader) async -> [Listing] {
        var carousels: [Int: ProductCarousel] = [:]
        await details.read(productIds) { result in
            switch result {
            case .success(let carousel): carousels[carousel.productID] = carousel
            case .failure(let failure): await progress.detailFailed(failure)
            }
        }
        await progress.detailsRead(productIds.count, failed: productIds.count - carousels.count,
                                   images: carousels.values.reduce(0) { $0 + $1.images.count })
        return productIds.compactMap { carousels[$0] }.flatMap { carousel in
            carousel.images.map { image in
                Listing(url: image.url, productIds: [carousel.productID], roles: .carousel,
                        placement: image.position.map { CarouselPlacement(productId: carousel.productID, position: $0) })
            }
        }
    }

    /// One page (or a whole source) of listed images, each with the product ids naming it and the roles it is shown in.
    private func admit(_ images: [Listing], into end: inout StageEnd, roles: inout [CanonicalURL: ImageRoles],
                       onto jobs: AsyncChannel<ImageJob>) async {
        // Page 1 comes first: its hosts join the allow-list (HostGate takes them once).
        await hostGate?.learnFirstPage(images.compactMap(\.url))
        var admitted: [ImageJob] = []
        var pageJobs: [CanonicalURL: Int] = [:]
        for image in images {
            let known = image.url.flatMap { try? CanonicalURL($0.absoluteString) }
            if let known, let placement = image.placement { end.carousels[known, default: []].append(placement) }
            // A role added to a job of this page is that job's; one added to an earlier page's job is a job of its own.
            if let known, let index = pageJobs[known], !admitted[index].roles.contains(image.roles) {
                admitted[index].roles.formUnion(image.roles)
                roles[known, default: []].formUnion(image.roles)
                end.listed[known, default: []].append(contentsOf: image.productIds)
                continue
            }
            guard let job = await admit(image, canonical: known, listed: &end.listed, roles: &roles) else { continue }
            pageJobs[job.canonicalURL] = admitted.count
            admitted.append(job)
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

    /// `known`: `image`'s canonical URL, when the caller has it (made here otherwise, to report why it cannot be).
    private func admit(_ image: Listing, canonical known: CanonicalURL?, listed: inout [CanonicalURL: [Int]],
                       roles: inout [CanonicalURL: ImageRoles]) async -> ImageJob? {
        let productIds = image.productIds
        guard let url = image.url else { return await setAside() }
        let canonical: CanonicalURL
        do throws(CacheError) {
            if let known { canonical = known } else { canonical = try CanonicalURL(url.absoluteString) }
        } catch {
            // Not a URL any shard owns by hash: the first shard reports it.
            guard (shard?.index ?? 0) == 0 else { return await setAside() }
            await progress.scheduled()
            let failure = ImageFailure(url: url.absoluteString, productIds: productIds, cause: .cache(error))
            await progress.record(.failed(failure))
            return nil
        }
        // The first product naming a URL schedules it; later ones add their ids, and a job for a role it lacked.
        let (seen, shownAs) = (listed[canonical] != nil, roles[canonical] ?? [])
        listed[canonical, default: []].append(contentsOf: productIds)
        guard !shownAs.contains(image.roles) else { return await setAside() }
        roles[canonical] = shownAs.union(image.roles)
        // Every shard crawls the whole list and keeps only its own images.
        guard shard?.owns(canonical) ?? true else { return await setAside(forOtherShard: true) }
        let job = ImageJob(canonicalURL: canonical, fetchURL: url, productIds: seen ? listed[canonical] ?? productIds : productIds,
                           roles: image.roles.subtracting(shownAs))
        await progress.scheduled(selectedForMeasuring: job.isSelected(by: compare))
        return job
    }

    /// No job for this product: its thumbnail is missing, seen before or another shard's.
    private func setAside(forOtherShard: Bool = false) async -> ImageJob? {
        await progress.productSetAside(forOtherShard: forOtherShard)
        return nil
    }
}

/// One image a page or source names, before admission.
private struct Listing {
    var url: URL?
    var productIds: [Int]
    var roles: ImageRoles
    var placement: CarouselPlacement? = nil
}

struct ImageJob: Sendable {
    /// The cache key; `fetchURL` is what the API gave.
    var canonicalURL: CanonicalURL
    var fetchURL: URL
    var productIds: [Int]
    /// Which sizes it is cached at (`WarmConfiguration.variants(for:)`): a second job for a URL has only the roles the
    /// first lacked.
    var roles: ImageRoles = .thumbnail
    /// Read when its crawl page was admitted; nil: the warm reads them itself.
    var cached: [CacheEntry]? = nil

    /// Measured three ways (at each role's size): in the `--compare` sample.
    func isSelected(by compare: CompareSelection) -> Bool {
        compare.includes(canonicalURL)
    }

    func failure(_ cause: ImageFailure.Cause) -> ImageFailure {
        ImageFailure(url: fetchURL.absoluteString, productIds: productIds, cause: cause)
    }
}
