import Dispatch
import Synchronization

/// `body` for each index in `0..<count`, two at a time (this machine has two cores), the results in index order: for
/// checks that each run a slow child process using about one core (promtool's rule tests, check-deploy.py).
public func twoAtATime<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
    let results = Mutex([Int: T]())
    DispatchQueue.concurrentPerform(iterations: 2) { lane in
        for index in stride(from: lane, to: count, by: 2) {
            let value = body(index)
            results.withLock { $0[index] = value }
        }
    }
    return results.withLock { done in (0..<count).map { done[$0]! } }
}
