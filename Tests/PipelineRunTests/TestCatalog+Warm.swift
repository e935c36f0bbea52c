@testable import DemoCatalog
@testable import Fetch
import Foundation
@testable import Pipeline
import WarmTestSupport

extension TestCatalog {
    /// A run of `server`'s catalog into `cache`: one small size, a few workers.
    static func configuration(_ server: CatalogServer, cache: URL, maxAgeSeconds: Double = 3600,
                              itemsPerPage: Int = 25) -> WarmConfiguration {
        var configuration = WarmConfiguration(apiURL: server.baseURL, cacheDirectory: cache.path)
        configuration.sizes = [64]
        configuration.itemsPerPage = itemsPerPage
        configuration.fetchConcurrency = 6
        configuration.decodeConcurrency = 2
        configuration.maxAgeSeconds = maxAgeSeconds
        return configuration
    }

    /// Fast retries, so retry tests take milliseconds.
    static let quickRetries = FetchConfiguration(requestTimeoutSeconds: 10, deadlineSeconds: 20, maxAttempts: 4,
                                                 backoffBaseSeconds: 0.01, backoffCapSeconds: 0.05)
}
