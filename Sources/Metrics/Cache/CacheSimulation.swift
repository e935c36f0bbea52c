/// Feeds one strategy's decoded sizes, in catalog order, through a strict
/// `CostLimitedLRUCache`, as a list screen would: the user scrolls down the
/// whole catalog, then back up to the top.
public enum CacheSimulation {
    /// The access pattern, as the report states it.
    public static let accessPattern = """
        Each image is one cache entry whose cost is the strategy's retained bytes. \
        Scroll down: images 1, 2, ..., N are requested in catalog order; scroll back up: N, N-1, ..., 1. \
        A request is a hit when the image is cached (it becomes the most recently used); \
        a miss decodes it and inserts it, evicting least recently used images until it fits \
        (an image larger than the whole limit is refused and never cached). \
        Hit rate = hits / 2N; the first pass can only miss, so it is at most 50%.
        """

    public struct Outcome: Sendable, Equatable {
        /// Images cached after the last request.
        public var heldImages: Int
        /// Their total cost (never above the limit).
        public var heldBytes: Int
        public var hits: Int
        public var requests: Int
        /// Images refused because they alone exceed the limit.
        public var refusedImages: Int
        public var hitRate: Double { requests == 0 ? 0 : Double(hits) / Double(requests) }
    }

    /// Runs the scroll-down, scroll-up pattern over `costs` (bytes per image, catalog order).
    public static func run(costs: [Int], costLimit: Int) -> Outcome {
        var cache = CostLimitedLRUCache<Int, Void>(costLimit: costLimit)
        var hits = 0
        var refused = Set<Int>()
        let order = Array(costs.indices) + costs.indices.reversed()
        for image in order {
            if cache.value(forKey: image) != nil {
                hits += 1
            } else if !cache.insert((), forKey: image, cost: costs[image]) {
                refused.insert(image)
            }
        }
        return Outcome(heldImages: cache.count, heldBytes: cache.totalCost, hits: hits,
                       requests: order.count, refusedImages: refused.count)
    }
}
