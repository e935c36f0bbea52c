import CatalogServer
import Crawl
import Foundation
import Serving

/// Tests' hooks into a running catalog server: its list, list shifts and injected faults. Here, not in
/// the shipped module, because only tests call them.
extension CatalogServer {
    /// The list as it is now, newest first, with absolute thumbnail URLs.
    public func products() async -> [Product] {
        await store.products()
    }

    /// `totalCount`.
    public func productCount() async -> Int {
        await store.count
    }

    /// Lists `count` new products at the front, pushing the others back, as a live marketplace does.
    @discardableResult
    public func insertNewestProducts(count: Int) async -> [Product] {
        await store.insertNewest(count: count)
    }

    /// Lists `count` new products right after list page `pageNo` is next served, so a crawl in progress
    /// sees the list shift under it.
    public func insertNewestProducts(count: Int, afterServingPage pageNo: Int) async {
        await injectFault(.shift(count: count), path: "/api/products", query: ["page_no": String(pageNo)])
    }

    /// Serves `fault` to the next `count` requests for `path` whose query contains `query` (e.g.
    /// `["page_no": "3"]`), before any of the plan's.
    public func injectFault(_ fault: CatalogFault, path: String, query: [String: String] = [:], count: Int = 1) async {
        await faults.add(fault, path: path, query: query, count: count)
    }

    public func failNext(path: String, query: [String: String] = [:], count: Int = 1, status: Int = 503,
                         retryAfter: String? = nil) async {
        await injectFault(.status(status, retryAfter: retryAfter), path: path, query: query, count: count)
    }

    /// Serves `plan`'s faults from now on (nil: none), its request counts starting afresh.
    public func setFaultPlan(_ plan: FaultPlan?) async {
        await faults.setPlan(plan)
    }

    /// The image a path such as `thumbnails/20230323/<key>_thumb` shows (made now if need be), or nil.
    public func image(atPath path: String) async throws -> CatalogImage? {
        try await store.image(atPath: path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }
}

extension CatalogStats {
    public func snapshot() -> CatalogStatistics { statistics }

    /// Starts the counts again from zero (between phases of a test).
    public func reset() { statistics = CatalogStatistics() }
}

extension CatalogStatistics {
    public func requests(route: String) -> Int { requestsByRoute[route, default: 0] }
    public func requests(path: String) -> Int { requestsByPath[path, default: 0] }
}

extension FaultPlan {
    public func rule(forImagePath path: String) -> FaultRule? { rule(for: .image, key: path) }
    public func rule(forPage pageNo: Int) -> FaultRule? { rule(for: .page, key: "page_no=\(pageNo)") }
}

extension RunningServer {
    /// `pathAndQuery` such as `/api/products?page_no=1`.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery) ?? baseURL
    }
}
