import AsyncAlgorithms
import Fetch
import Foundation
import WarmSupport

/// A catalog source read whole before the warm starts (a URL list, a sitemap), handed over as a crawl is: its counts
/// as a `CrawlReport` and its images in one `.images` event. Read whole so that a source that fails halfway warms and
/// prunes nothing (the caller's exit 6); memory: the listed images, about 200 bytes each.
public struct ImageListing: Sendable {
    public var images: [ListedImage]
    /// Entries skipped (a line or a `<loc>` that is not an http(s) URL): the list was not read whole, so the caller
    /// prunes nothing.
    public var problems: ListingProblems
    var report: CrawlReport
    /// One line for the log.
    public var summary: String

    /// `path` "-" is standard input. At most `limits.maxBytes + 1` bytes are read, so a huge file is refused without
    /// being held; the read runs off the cooperative pool.
    public static func urlList(path: String, limits: URLList.Limits = URLList.Limits()) async throws(URLListError) -> ImageListing {
        let started = ContinuousClock.now
        let name = path == "-" ? "standard input" : path
        let read: Result<Data, URLListError> = await BlockingWork.run {
            let handle = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path)
            guard let handle else { return .failure(.unreadable(list: name, reason: "no such readable file")) }
            defer { if path != "-" { try? handle.close() } }
            do {
                return .success(try handle.read(upToCount: limits.maxBytes + 1) ?? Data())
            } catch {
                return .failure(.unreadable(list: name, reason: "\(error)"))
            }
        }
        let list = try URLList.parse(try read.get(), name: name, limits: limits)
        return ImageListing(
            images: list.images, problems: list.problems,
            report: CrawlReport(documents: 1, entries: list.images.count + list.duplicates, images: list.images.count,
                                durationSeconds: (ContinuousClock.now - started).inSeconds),
            summary: "Read the URL list \(name): \(list.lines) lines, \(list.images.count) images, \(list.duplicates) repeated"
                + (list.problems.isEmpty ? "." : "; \(list.problems.count) lines skipped."))
    }

    /// The sitemap and, for an index, every sitemap it lists, through `fetcher` (`SitemapWalker`).
    public static func sitemap(_ url: URL, fetcher: any Fetching,
                               limits: SitemapLimits = SitemapLimits()) async throws(SitemapError) -> ImageListing {
        let started = ContinuousClock.now
        let walk = try await SitemapWalker(fetcher: fetcher, limits: limits).walk(url)
        return ImageListing(
            images: walk.images, problems: walk.problems,
            report: CrawlReport(documents: walk.sitemapsRead, entries: walk.images.count + walk.duplicates,
                                images: walk.images.count, durationSeconds: (ContinuousClock.now - started).inSeconds),
            summary: walk.description)
    }

    /// Progress, the images, then the end, as `Crawler.run(into:)` sends a crawl; finishes `events`.
    public func send(into events: AsyncChannel<CrawlEvent>) async {
        defer { events.finish() }
        await events.send(.progress(report))
        await events.send(.images(images))
        await events.send(.finished(report))
    }
}
