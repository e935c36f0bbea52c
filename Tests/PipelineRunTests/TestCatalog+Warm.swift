@testable import DemoCatalog
@testable import Fetch
import Foundation
@testable import Pipeline
import WarmTestSupport

extension TestCatalog {
    /// A run of `server`'s catalog into `cache`: one small size, a few workers.
    static func configuration(_ server: CatalogServer, cache: URL, maxAgeSeconds: Double = 3600,
                              itemsPerPage: Int = 25) -> WarmConfiguration {
        WarmConfiguration(source: .openMarket(api: server.baseURL), cacheDirectory: cache.path,
                          thumbnails: .init(sizes: [64]), freshness: .init(maxAgeSeconds: maxAgeSeconds),
                          fetching: .init(itemsPerPage: itemsPerPage, concurrency: 6), decoding: .init(concurrency: 2))
    }

    /// Fast retries, so retry tests take milliseconds.
    static let quickRetries = FetchConfiguration(requestTimeoutSeconds: 10, deadlineSeconds: 20, maxAttempts: 4,
                                                 backoffBaseSeconds: 0.01, backoffCapSeconds: 0.05)
}
