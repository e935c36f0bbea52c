import WarmMetrics
import XCTest

final class CostLimitedLRUCacheTests: XCTestCase {
    func testLRUCacheNeverExceedsItsLimit() {
        var cache = CostLimitedLRUCache<Int, Int>(costLimit: 1_000)
        var costs: [Int: Int] = [:]  // the cost each key was last inserted with
        var state: UInt64 = 12345
        func next(_ bound: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(bound))
        }
        var refused = 0
        for _ in 0..<20_000 {
            let key = next(200)
            switch next(4) {
            case 0, 1:
                let cost = next(1_300)  // sometimes larger than the whole limit
                if cache.insert(key, forKey: key, cost: cost) {
                    costs[key] = cost
                    XCTAssertEqual(cache.keysByRecency.last, key, "an inserted key is the most recent")
                } else {
                    refused += 1
                    XCTAssertGreaterThan(cost, 1_000)
                    XCTAssertFalse(cache.keysByRecency.contains(key))
                }
            case 2:
                if let value = cache.value(forKey: key) { XCTAssertEqual(value, key) }
            default:
                cache.removeValue(forKey: key)
            }
            XCTAssertLessThanOrEqual(cache.totalCost, cache.costLimit)
            let held = cache.keysByRecency
            XCTAssertEqual(held.count, cache.count)
            XCTAssertEqual(cache.totalCost, held.reduce(0) { $0 + costs[$1]! }, "the total is the sum of what is held")
        }
        XCTAssertGreaterThan(refused, 0)
        XCTAssertGreaterThan(cache.count, 0)
    }

    func testLeastRecentlyUsedIsEvictedFirst() {
        var cache = CostLimitedLRUCache<String, Int>(costLimit: 30)
        cache.insert(1, forKey: "a", cost: 10)
        cache.insert(2, forKey: "b", cost: 10)
        cache.insert(3, forKey: "c", cost: 10)
        XCTAssertEqual(cache.value(forKey: "a"), 1)  // a is now the most recent
        cache.insert(4, forKey: "d", cost: 10)       // evicts b
        XCTAssertEqual(cache.keysByRecency, ["c", "a", "d"])
        XCTAssertNil(cache.value(forKey: "b"))
        cache.insert(5, forKey: "e", cost: 20)       // evicts c and a
        XCTAssertEqual(cache.keysByRecency, ["d", "e"])
        XCTAssertEqual(cache.totalCost, 30)
    }

    func testItemLargerThanTheLimitIsRefusedAndEvictsNothing() {
        var cache = CostLimitedLRUCache<String, Int>(costLimit: 100)
        cache.insert(1, forKey: "a", cost: 60)
        XCTAssertFalse(cache.insert(2, forKey: "huge", cost: 101))
        XCTAssertEqual(cache.keysByRecency, ["a"])
        XCTAssertEqual(cache.totalCost, 60)
        XCTAssertTrue(cache.insert(3, forKey: "exact", cost: 100))
        XCTAssertEqual(cache.keysByRecency, ["exact"])
    }

    func testReinsertingAKeyReplacesItsCost() {
        var cache = CostLimitedLRUCache<String, Int>(costLimit: 100)
        cache.insert(1, forKey: "a", cost: 40)
        cache.insert(2, forKey: "b", cost: 40)
        cache.insert(3, forKey: "a", cost: 10)
        XCTAssertEqual(cache.totalCost, 50)
        XCTAssertEqual(cache.keysByRecency, ["b", "a"])
        XCTAssertEqual(cache.value(forKey: "a"), 3)
    }

    func testScrollSimulationHitsOnlyWhatSurvivedTheWayDown() {
        // Limit 8, four images of 4: the way down leaves images 2 and 3;
        // the way up hits 3 and 2, then misses 1 and 0.
        let outcome = CacheSimulation.run(costs: [4, 4, 4, 4], costLimit: 8)
        XCTAssertEqual(outcome.requests, 8)
        XCTAssertEqual(outcome.hits, 2)
        XCTAssertEqual(outcome.heldImages, 2)
        XCTAssertEqual(outcome.heldBytes, 8)
        XCTAssertEqual(outcome.refusedImages, 0)
        XCTAssertEqual(CacheSimulation.run(costs: [4, 9, 4], costLimit: 8).refusedImages, 1)
    }
}
