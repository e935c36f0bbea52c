/// A strict LRU memory cache under a list screen's pattern: scroll down the whole catalog, then back up.
enum CacheSimulation {
    /// The access pattern, as the report states it.
    static let accessPattern = """
        Each image is one cache entry whose cost is the strategy's retained bytes. \
        Scroll down: images 1, 2, ..., N are requested in catalog order; scroll back up: N, N-1, ..., 1. \
        A request is a hit when the image is cached (it becomes the most recently used); \
        a miss decodes it and inserts it, evicting least recently used images until it fits \
        (an image larger than the whole limit is refused and never cached). \
        Hit rate = hits / 2N; the first pass can only miss, so it is at most 50%.
        """

    struct Outcome: Sendable, Equatable {
        /// Images cached after the last request.
        var heldImages: Int
        /// Their total cost (never above the limit).
        var heldBytes: Int
        var hits: Int
        var requests: Int
        /// Images refused because they alone exceed the limit.
        var refusedImages: Int
        var hitRate: Double { requests == 0 ? 0 : Double(hits) / Double(requests) }
    }

    /// Closed form, no replay: down leaves the longest run ending at the last image that fits, up hits
    /// those, then leaves the longest run from the first (`CacheSimulationTests` replays a real LRU).
    static func run(costs: [Int], costLimit: Int) -> Outcome {
        let cacheable = costs.filter { $0 <= costLimit }
        let held = longestRun(cacheable, costLimit: costLimit)
        return Outcome(heldImages: held.images, heldBytes: held.bytes,
                       hits: longestRun(cacheable.reversed(), costLimit: costLimit).images,
                       requests: 2 * costs.count, refusedImages: costs.count - cacheable.count)
    }

    /// How many of `costs`, taken in order, fit before their running total would exceed `costLimit`.
    static func longestRun(_ costs: some Sequence<Int>, costLimit: Int) -> (images: Int, bytes: Int) {
        var images = 0, bytes = 0
        for cost in costs {
            guard bytes + cost <= costLimit else { break }
            images += 1
            bytes += cost
        }
        return (images, bytes)
    }
}
