@testable import WarmMetrics
import XCTest

final class CacheSimulationTests: XCTestCase {
    /// A strict LRU replayed request by request, the slow way: what `CacheSimulation.run`'s closed form must equal.
    static func replay(costs: [Int], costLimit: Int) -> CacheSimulation.Outcome {
        var held: [(image: Int, cost: Int)] = []  // least recently used first
        var hits = 0
        var refused = Set<Int>()
        let order = Array(costs.indices) + costs.indices.reversed()
        for image in order {
            if let index = held.firstIndex(where: { $0.image == image }) {
                hits += 1
                held.append(held.remove(at: index))
            } else if costs[image] > costLimit {
                refused.insert(image)
            } else {
                while held.reduce(0, { $0 + $1.cost }) + costs[image] > costLimit { held.removeFirst() }
                held.append((image, costs[image]))
            }
        }
        return CacheSimulation.Outcome(heldImages: held.count, heldBytes: held.reduce(0) { $0 + $1.cost }, hits: hits,
                                       requests: order.count, refusedImages: refused.count)
    }

    func testScrollSimulationEqualsAReplayedStrictLRU() {
        var state: UInt64 = 12345
        func next(_ bound: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(bound))
        }
        var sawRefused = false, sawHits = false
        for _ in 0..<2_000 {
            let costLimit = next(100)
            // Zero costs and costs larger than the whole limit included.
            let costs = (0..<next(30)).map { _ in next(4) == 0 ? 0 : next(130) }
            let outcome = CacheSimulation.run(costs: costs, costLimit: costLimit)
            XCTAssertEqual(outcome, Self.replay(costs: costs, costLimit: costLimit), "costs \(costs), limit \(costLimit)")
            XCTAssertLessThanOrEqual(outcome.heldBytes, costLimit)
            sawRefused = sawRefused || outcome.refusedImages > 0
            sawHits = sawHits || outcome.hits > 0
        }
        XCTAssertTrue(sawRefused && sawHits, "the random catalogs cover refused images and hits")
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
    }

    func testImageLargerThanTheLimitIsRefusedAndEvictsNothing() {
        // Image 1 alone exceeds the limit: 0 and 2 stay cached around it, and both are hit on the way up.
        let outcome = CacheSimulation.run(costs: [4, 9, 4], costLimit: 8)
        XCTAssertEqual(outcome.refusedImages, 1)
        XCTAssertEqual(outcome.hits, 2)
        XCTAssertEqual(outcome.heldImages, 2)
        XCTAssertEqual(outcome.heldBytes, 8)
    }
}
