import Fetch
import Foundation

/// Reads a sitemap (`--sitemap URL`) and, when it is an index, every sitemap it lists, `limits.concurrency` at a
/// time through the run's fetcher (so its retries, deadlines, host allow-list and body limit apply to each file).
///
/// All or nothing: any sitemap that cannot be fetched or parsed fails the whole walk with an error naming that
/// sitemap, because a walk that stopped halfway is not tonight's list and the caller must prune nothing (exit 6).
/// An index listed by an index is followed up to `limits.maxIndexLevels`; an index that lists itself or an index
/// above it is refused (`SitemapError.loop`) rather than skipped, since such a file is broken and its author should
/// hear of it. A sitemap listed twice elsewhere is read once. Entries with a bad `<loc>` are counted problems.
///
/// Cost: the walk reads level by level (the root, then what it lists, then what those list) and keeps every parsed
/// document until the end, to return images in document order: memory grows with the images listed (about 200
/// bytes each, `limits.maxImages` at most), plus `limits.concurrency` bodies being parsed.
struct SitemapWalker: Sendable {
    let limits: SitemapLimits
    private let fetcher: any Fetching

    public init(fetcher: any Fetching, limits: SitemapLimits = SitemapLimits()) {
        self.fetcher = fetcher
        self.limits = limits
    }

    /// A sitemap of the walk: where it sits in the tree, and what it held once read.
    private struct Node {
        var url: URL
        var depth: Int
        var parent: Int?
        var document: SitemapDocument?
        var children: [Int] = []
    }

    func walk(_ root: URL) async throws(SitemapError) -> SitemapWalk {
        var nodes = [Node(url: root, depth: 0, parent: nil)]
        var listed: Set<String> = [root.absoluteString]
        var repeated = 0
        var level = [0]
        while !level.isEmpty {
            let documents = try await read(level.map { nodes[$0].url })
            var next: [Int] = []
            for (slot, document) in zip(level, documents) {
                nodes[slot].document = document
                guard case .index(let children) = document.content else { continue }
                if nodes[slot].depth >= limits.maxIndexLevels, let parent = nodes[slot].parent {
                    throw .tooDeep(sitemap: nodes[slot].url, listedBy: nodes[parent].url, maxIndexLevels: limits.maxIndexLevels)
                }
                for child in children {
                    if Self.isSelfOrAbove(child, slot, in: nodes) { throw .loop(sitemap: child, listedBy: nodes[slot].url) }
                    guard listed.insert(child.absoluteString).inserted else {
                        repeated += 1
                        continue
                    }
                    guard nodes.count < limits.maxSitemaps else { throw .tooManySitemaps(root: root, limit: limits.maxSitemaps) }
                    nodes.append(Node(url: child, depth: nodes[slot].depth + 1, parent: slot))
                    nodes[slot].children.append(nodes.count - 1)
                    next.append(nodes.count - 1)
                }
            }
            level = next
        }
        var walk = SitemapWalk(root: root)
        (walk.sitemapsRead, walk.sitemapsRepeated) = (nodes.count, repeated)
        try collect(nodes, into: &walk)
        return walk
    }

    /// The images of every urlset, depth first in listing order: the order a person reading the files meets them.
    private func collect(_ nodes: [Node], into walk: inout SitemapWalk) throws(SitemapError) {
        var seen = Set<String>()
        var pending = [0]
        while let slot = pending.popLast() {
            guard let document = nodes[slot].document else { continue }
            try walk.add(document, seen: &seen, limit: limits.maxImages)
            pending.append(contentsOf: nodes[slot].children.reversed())
        }
    }

    private static func isSelfOrAbove(_ url: URL, _ slot: Int, in nodes: [Node]) -> Bool {
        var current: Int? = slot
        while let index = current {
            if nodes[index].url.absoluteString == url.absoluteString { return true }
            current = nodes[index].parent
        }
        return false
    }

    /// Fetches and parses `urls`, `limits.concurrency` at a time; the documents in the order of `urls`. On the first
    /// failure the others are cancelled, and the failure of the earliest listed sitemap that failed is thrown.
    private func read(_ urls: [URL]) async throws(SitemapError) -> [SitemapDocument] {
        let results = await withTaskGroup(of: (Int, Result<SitemapDocument, SitemapError>).self) { group in
            var results = [Result<SitemapDocument, SitemapError>?](repeating: nil, count: urls.count)
            var next = 0
            func start() {
                guard next < urls.count else { return }
                let (index, url) = (next, urls[next])
                next += 1
                group.addTask { (index, await self.read(url)) }
            }
            for _ in 0..<limits.concurrency { start() }
            while let (index, result) = await group.next() {
                results[index] = result
                if case .failure = result {
                    group.cancelAll()
                    break
                }
                start()
            }
            return results
        }
        var documents: [SitemapDocument] = []
        for result in results {
            switch result {
            case .failure(let error): throw error
            case .success(let document): documents.append(document)
            case nil: break // cancelled after another sitemap failed; that failure is thrown above
            }
        }
        return documents
    }

    private func read(_ url: URL) async -> Result<SitemapDocument, SitemapError> {
        let outcome: FetchOutcome
        do {
            outcome = try await fetcher.get(url)
        } catch {
            return .failure(.fetchFailed(sitemap: url, error: error))
        }
        guard let resource = outcome.resource else { return .failure(.notModified(sitemap: url)) }
        do {
            return .success(try SitemapDocument.parse(resource.body, url: url, limits: limits))
        } catch {
            return .failure(error)
        }
    }
}
