/// A process-wide readers-writer gate that keeps memory measurements apart
/// from other decodes: ordinary decodes take a shared permit (any number at
/// once), the measurer takes the exclusive permit (alone). Peak RSS and
/// process CPU time are process-wide, so a measurement is only honest while no
/// other image decodes in the same process.
///
/// Phase-fair: once an exclusive request waits, new shared requests queue
/// behind it (the measurer is not starved by a steady stream of decodes), and
/// when an exclusive permit is released every queued shared request is let in
/// before the next exclusive one (decodes are not starved by measurements).
/// Waiting is not cancellable; permits are held for one decode. Not
/// reentrant: asking for any permit while holding the exclusive one (or for
/// the exclusive one while holding a shared one) waits forever.
public actor MeasurementGate {
    /// The gate the pipeline and the measurer share.
    public static let shared = MeasurementGate()

    private var sharedHolders = 0
    private var exclusiveHeld = false
    private var sharedWaiters: [CheckedContinuation<Void, Never>] = []
    private var exclusiveWaiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Runs `body` while holding a shared permit (alongside other shared
    /// holders, never during an exclusive one).
    public func withSharedPermit<T, E: Error>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(E) -> T
    ) async throws(E) -> T {
        await acquireShared()
        do {
            let result = try await body()
            await releaseShared()
            return result
        } catch {
            await releaseShared()
            throw error
        }
    }

    /// Runs `body` while holding the exclusive permit (no other holder at all).
    public func withExclusivePermit<T, E: Error>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(E) -> T
    ) async throws(E) -> T {
        await acquireExclusive()
        do {
            let result = try await body()
            await releaseExclusive()
            return result
        } catch {
            await releaseExclusive()
            throw error
        }
    }

    // For tests: what the gate holds and queues right now.
    var sharedHolderCount: Int { sharedHolders }
    var queuedSharedCount: Int { sharedWaiters.count }
    var queuedExclusiveCount: Int { exclusiveWaiters.count }

    private func acquireShared() async {
        if !exclusiveHeld && exclusiveWaiters.isEmpty {
            sharedHolders += 1
            return
        }
        await withCheckedContinuation { sharedWaiters.append($0) }
        // The releaser counted this holder in before resuming it.
    }

    private func releaseShared() {
        precondition(sharedHolders > 0, "shared permit released twice")
        sharedHolders -= 1
        if sharedHolders == 0, !exclusiveWaiters.isEmpty {
            exclusiveHeld = true
            exclusiveWaiters.removeFirst().resume()
        }
    }

    private func acquireExclusive() async {
        if !exclusiveHeld && sharedHolders == 0 && exclusiveWaiters.isEmpty && sharedWaiters.isEmpty {
            exclusiveHeld = true
            return
        }
        await withCheckedContinuation { exclusiveWaiters.append($0) }
    }

    private func releaseExclusive() {
        precondition(exclusiveHeld, "exclusive permit released without being held")
        exclusiveHeld = false
        if !sharedWaiters.isEmpty {
            let admitted = sharedWaiters
            sharedWaiters.removeAll()
            sharedHolders += admitted.count
            for waiter in admitted { waiter.resume() }
        } else if !exclusiveWaiters.isEmpty {
            exclusiveHeld = true
            exclusiveWaiters.removeFirst().resume()
        }
    }
}
