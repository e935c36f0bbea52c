import Servers
import Crawl
import Foundation

/// Tests' hooks into a running catalog server: its list, list shifts, injected faults and what it answered.
/// Here, not in the shipped module, because only tests call them.
extension CatalogServer {
    /// The server's `CatalogTestHooks`: what it answered (`snapshot()`), and the faults tests inject. A server
    /// started by `TestCatalog` or `withCatalog` has them; others pass `hooks: CatalogTestHooks()`.
    public var stats: CatalogTestHooks {
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
    public func productCount() async -> Int {
        await store.products().count
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
        await stats.add(fault, path: path, query: query, count: count)
    }

    public func failNext(path: String, query: [String: String] = [:], count: Int = 1, status: Int = 503,
                         retryAfter: String? = nil) async {
        await injectFault(.status(status, retryAfter: retryAfter), path: path, query: query, count: count)
    }

    /// Serves `plan`'s faults from now on (nil: none), its request counts starting afresh.
    public func setFaultPlan(_ plan: FaultPlan?) async {
        await stats.setPlan(plan)
    }

    /// The image a path such as `thumbnails/20230323/<key>_thumb` shows (made now if need be), or nil.
    public func image(atPath path: String) async throws -> CatalogImage? {
        try await store.image(atPath: path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }
}

/// The faults a test added for a number of requests to a path whose query holds `query`, then a plan's; and the
/// counts of what the server answered.
public actor CatalogTestHooks: CatalogHooks {
    private struct Rule {
        var path: String
        var query: [String: String]
        var fault: CatalogFault
        var remaining: Int
    }

    private var rules: [Rule] = []
    private var plan: FaultInjector?
    private var statistics = CatalogStatistics()

    public init() {}

    func add(_ fault: CatalogFault, path: String, query: [String: String], count: Int) {
        guard count > 0 else { return }
        rules.append(Rule(path: path, query: query, fault: fault, remaining: count))
    }

    func setPlan(_ plan: FaultPlan?) {
        self.plan = plan.map(FaultInjector.init)
    }

    /// The first rule's fault for this request, used up by one; else the plan's.
    public func fault(path: String, query: [String: String]) async -> CatalogFault? {
        if let index = rules.firstIndex(where: { rule in
            rule.path == path && rule.query.allSatisfy { query[$0.key] == $0.value }
        }) {
            let fault = rules[index].fault
            rules[index].remaining -= 1
            if rules[index].remaining == 0 { rules.remove(at: index) }
            return fault
        }
        return await plan?.take(path: path, query: query)
    }

    public func answered(path: String, query: [String: String], status: Int, bodyBytes: Int, fault: Bool) {
        let route = switch path {
        case "/api/products": "products"
        case "/healthChecker": "health"
        case _ where path.hasPrefix("/api/products/"): "product"
        case _ where path.hasPrefix("/thumbnails/"): "thumbnail"
        default: "other"
        }
        statistics.requestsByRoute[route, default: 0] += 1
        statistics.requestsByPath[path, default: 0] += 1
        if route == "products" { statistics.pageRequests[query["page_no"].flatMap { Int($0) } ?? 1, default: 0] += 1 }
        switch status {
        case 200...299: statistics.okResponses += 1
        case 304: statistics.notModifiedResponses += 1
        default: break
        }
        if fault { statistics.faultsServed += 1 }
        statistics.bytesSent += bodyBytes
    }

    public func snapshot() -> CatalogStatistics { statistics }

    /// Starts the counts again from zero (between phases of a test).
    public func reset() { statistics = CatalogStatistics() }
}

public struct CatalogStatistics: Sendable, Hashable {
    /// "products", "product", "health", "thumbnail", "other".
    public var requestsByRoute: [String: Int] = [:]
    /// Query left out.
    public var requestsByPath: [String: Int] = [:]
    public var pageRequests: [Int: Int] = [:]
    public var okResponses = 0
    public var notModifiedResponses = 0
    public var faultsServed = 0
    public var bytesSent = 0

    public func requests(route: String) -> Int { requestsByRoute[route, default: 0] }
    public func requests(path: String) -> Int { requestsByPath[path, default: 0] }
}

extension FaultPlan {
    public func rule(forImagePath path: String) -> FaultRule? { rule(for: .image, key: path) }
    public func rule(forPage pageNo: Int) -> FaultRule? { rule(for: .page, key: "page_no=\(pageNo)") }
}

extension RunningServer {
    /// The port bound.
    public var port: Int { baseURL.port ?? 0 }

    /// `pathAndQuery` such as `/api/products?page_no=1`.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery) ?? baseURL
    }
}
