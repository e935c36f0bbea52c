import Downsample
import Foundation
@testable import WarmMetrics
import XCTest

final class MeasurementGateTests: XCTestCase {
    /// Counts who is inside the gate and notes every overlap the gate should have prevented.
    actor Occupancy {
        var shared = 0, exclusive = 0, violations = 0, maxShared = 0, exclusiveRuns = 0
        func enter(exclusive isExclusive: Bool) {
            if isExclusive {
                if shared > 0 || exclusive > 0 { violations += 1 }
                exclusive += 1
                exclusiveRuns += 1
            } else {
                if exclusive > 0 { violations += 1 }
                shared += 1
                maxShared = max(maxShared, shared)
            }
        }
        func leave(exclusive isExclusive: Bool) {
            if isExclusive { exclusive -= 1 } else { shared -= 1 }
        }
    }

    /// A one-shot signal a task can wait for.
    actor Signal {
        private var fired = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        func fire() {
            fired = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
        func wait() async {
            if fired { return }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    actor Log {
        var entries: [String] = []
        func add(_ entry: String) { entries.append(entry) }
    }

    func testExclusivePermitNeverOverlapsAnyOtherPermit() async {
        let gate = MeasurementGate()
        let occupancy = Occupancy()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                let isExclusive = index % 5 == 0
                group.addTask {
                    let body = {
                        await occupancy.enter(exclusive: isExclusive)
                        for _ in 0..<3 { await Task.yield() }
                        await occupancy.leave(exclusive: isExclusive)
                    }
                    if isExclusive { await gate.withExclusivePermit(body) } else { await gate.withSharedPermit(body) }
                }
            }
        }
        let violations = await occupancy.violations, exclusiveRuns = await occupancy.exclusiveRuns
        XCTAssertEqual(violations, 0)
        XCTAssertEqual(exclusiveRuns, 12)
    }

    func testSharedPermitsAreHeldTogether() async throws {
        let gate = MeasurementGate()
        let first = Signal(), second = Signal()
        let done = Log()
        // Each holder waits, inside its permit, for the other to be inside too:
        // if the gate let only one in at a time, neither would finish.
        Task { await gate.withSharedPermit { await first.fire(); await second.wait() }; await done.add("a") }
        Task { await gate.withSharedPermit { await second.fire(); await first.wait() }; await done.add("b") }
        try await waitUntil { await done.entries.count == 2 }
        let holders = await gate.sharedHolderCount
        XCTAssertEqual(holders, 0)
    }

    func testWaitingExclusivePermitGoesBeforeLaterSharedOnes() async throws {
        let gate = MeasurementGate()
        let log = Log()
        let holding = Signal(), release = Signal()
        let reader = Task { await gate.withSharedPermit { await holding.fire(); await release.wait() } }
        await holding.wait()
        let writer = Task { await gate.withExclusivePermit { await log.add("exclusive") } }
        try await waitUntil { await gate.queuedExclusiveCount == 1 }
        let lateReader = Task { await gate.withSharedPermit { await log.add("shared") } }
        try await waitUntil { await gate.queuedSharedCount == 1 }
        await release.fire()
        _ = await (reader.value, writer.value, lateReader.value)
        let entries = await log.entries
        XCTAssertEqual(entries, ["exclusive", "shared"])
    }

    func testMeasuringWaitsForDecodesHoldingSharedPermits() async throws {
        let gate = MeasurementGate()
        let holding = Signal(), release = Signal()
        let decode = Task { await gate.withSharedPermit { await holding.fire(); await release.wait() } }
        await holding.wait()
        let data = try MetricsFixtures.image(width: 200, height: 150, as: CompositionEncoding(format: .jpeg))
        let measurer = StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: 64), quality: false))
        let measurement = Task { await measurer.measure(data: data, productId: nil, url: "gated", gate: gate) }
        try await waitUntil { await gate.queuedExclusiveCount == 1 }
        let holders = await gate.sharedHolderCount
        XCTAssertEqual(holders, 1, "the measurement waits while a decode holds a shared permit")
        await release.fire()
        await decode.value
        let record = await measurement.value
        XCTAssertTrue(record.isComplete)
    }

    func testPermitIsReleasedWhenTheBodyThrows() async {
        struct Failure: Error {}
        let gate = MeasurementGate()
        do {
            try await gate.withSharedPermit { throw Failure() }
            XCTFail("the error must reach the caller")
        } catch {
            XCTAssertTrue(error is Failure)
        }
        do {
            try await gate.withExclusivePermit { throw Failure() }
        } catch {}
        // Both permits were given back: the exclusive one can be taken again.
        let value = await gate.withExclusivePermit { 42 }
        XCTAssertEqual(value, 42)
        let holders = await gate.sharedHolderCount
        XCTAssertEqual(holders, 0)
    }

    /// Polls `condition` (a deadlock guard of 20 s, not a speed limit).
    func waitUntil(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(2))
        }
        XCTFail("condition not reached")
    }
}
