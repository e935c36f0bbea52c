import Dispatch
import Foundation

/// Suspends until SIGINT or SIGTERM, for commands that serve until stopped.
enum SignalWaiter {
    static func waitForInterrupt() async {
        let queue = DispatchQueue(label: "warm.signals")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = Once(continuation)
            queue.sync {
                for signalNumber in [SIGINT, SIGTERM] {
                    signal(signalNumber, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                    source.setEventHandler { once.resume() }
                    source.resume()
                    once.sources.append(source)
                }
            }
        }
    }

    /// Resumes a continuation at most once, from whichever signal comes first,
    /// and keeps the signal sources alive until then.
    private final class Once: @unchecked Sendable {
        // Safe: every member is only touched on the one serial signal queue.
        private var continuation: CheckedContinuation<Void, Never>?
        var sources: [any DispatchSourceSignal] = []
        init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }
        func resume() {
            continuation?.resume()
            continuation = nil
            sources.forEach { $0.cancel() }
        }
    }
}
