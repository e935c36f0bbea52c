import Crawl
import Foundation

/// Tests' hooks into a running catalog server: its list, list shifts, injected faults and what it answered.
/// Only tests call them; they live here so the server's store, hooks and fault injector stay internal.
extension CatalogServer {
    /// The server's `CatalogTestHooks`: what it answered (`snapshot()`), and the faults tests inject. A server
    /// started by `TestCatalog` or `withCatalog` has them; others pass `hooks: CatalogTestHooks()`.
    var stats: CatalogTestHooks {
        guard let hooks = hooks as? CatalogTestHooks else {
            preconditionFailure("start the catalog server with `hooks: CatalogTestHooks()` to reach its test hooks")
        }
        return hooks
    }

    /// The list as it is now, newest first, with absolute thumbnail URLs.
    public func products() async -> [Product] {
        await store.products()
    }

    /// `totalCount`.
    func productCount() async -> Int {
        await store.products().count
    }

    /// Lists `count` new products at the front, pushing the others back, as a live marketplace does.
    @discardableResult
    func insertNewestProducts(count: Int) async -> [Product] {
        await store.insertNewest(count: count)
    }

    /// Lists `count` new products right after list page `pageNo` is next served, so a crawl in progress
    /// sees the list shift under it.
    func insertNewestProducts(count: Int, afterServingPage pageNo: Int) async {
        await injectFault(.shift(count: count), path: "/api/products", query: ["page_no": String(pageNo)])
    }

    /// Serves `fault` to the next `count` requests for `path` whose query contains `query` (e.g.
    /// `["page_no": "3"]`), before any of the plan's.
    func injectFault(_ fault: CatalogFault, path: String, query: [String: String] = [:], count: Int = 1) async {
        await stats.add(fault, path: path, query: query, count: count)
    }

    func failNext(path: String, query: [String: String] = [:], count: Int = 1, status: Int = 503,
                         retryAfter: String? = nil) async {
        await injectFault(.status(status, retryAfter: retryAfter), path: path, query: query, count: count)
    }

    /// Serves `plan`'s faults from now on (nil: none), its request counts starting afresh.
    func setFaultPlan(_ plan: FaultPlan?) async {
        await stats.setPlan(plan)
    }

    /// The image a path such as `thumbnails/20230323/<key>_thumb` shows (made now if need be), or nil.
    func image(atPath path: String) async throws -> CatalogImage? {
        try await store.image(atPath: path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }
}
