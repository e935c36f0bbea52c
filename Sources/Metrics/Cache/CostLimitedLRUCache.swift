/// A memory cache with a strict cost limit: its total cost never exceeds
/// `costLimit`, whatever is inserted. Inserting evicts least recently used
/// entries until the new one fits; an entry whose cost alone exceeds the limit
/// is refused. (NSCache's `totalCostLimit` is not strict: the seeds measured a
/// 100 MB-limited NSCache holding well over 100 MB.)
///
/// Every operation is O(1): a dictionary from key to slot, and a doubly linked
/// recency list threaded through an array of slots. Written by hand:
/// swift-collections has no LRU.
public struct CostLimitedLRUCache<Key: Hashable, Value> {
    public let costLimit: Int
    public private(set) var totalCost = 0

    fileprivate struct Slot {
        var key: Key
        var value: Value
        var cost: Int
        var older: Int  // towards the least recently used end, or -1
        var newer: Int  // towards the most recently used end, or -1
    }

    private var slots: [Slot?] = []
    private var freeSlots: [Int] = []
    private var index: [Key: Int] = [:]
    private var leastRecent = -1
    private var mostRecent = -1

    public init(costLimit: Int) {
        precondition(costLimit >= 0, "the cost limit cannot be negative")
        self.costLimit = costLimit
    }

    public var count: Int { index.count }

    /// The cached value, made the most recently used; nil on a miss.
    public mutating func value(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToMostRecent(slot)
        return slots[slot]!.value
    }

    /// Caches `value` at `cost`, evicting least recently used entries until it
    /// fits. Returns false, caching nothing (and dropping any older value for
    /// `key`), when `cost` alone exceeds the limit.
    @discardableResult
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int) -> Bool {
        precondition(cost >= 0, "an entry's cost cannot be negative")
        removeValue(forKey: key)
        guard cost <= costLimit else { return false }
        while totalCost + cost > costLimit, leastRecent >= 0 {
            removeSlot(leastRecent)
        }
        let slot: Int
        let entry = Slot(key: key, value: value, cost: cost, older: mostRecent, newer: -1)
        if let reused = freeSlots.popLast() {
            slot = reused
            slots[slot] = entry
        } else {
            slot = slots.count
            slots.append(entry)
        }
        if mostRecent >= 0 { slots[mostRecent]!.newer = slot }
        mostRecent = slot
        if leastRecent < 0 { leastRecent = slot }
        index[key] = slot
        totalCost += cost
        return true
    }

    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        return removeSlot(slot)
    }

    /// Keys from least to most recently used (O(n)).
    public var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = leastRecent
        while slot >= 0 {
            keys.append(slots[slot]!.key)
            slot = slots[slot]!.newer
        }
        return keys
    }

    @discardableResult
    private mutating func removeSlot(_ slot: Int) -> Value {
        let entry = slots[slot]!
        unlink(slot)
        slots[slot] = nil
        freeSlots.append(slot)
        index[entry.key] = nil
        totalCost -= entry.cost
        return entry.value
    }

    private mutating func unlink(_ slot: Int) {
        let older = slots[slot]!.older, newer = slots[slot]!.newer
        if older >= 0 { slots[older]!.newer = newer } else { leastRecent = newer }
        if newer >= 0 { slots[newer]!.older = older } else { mostRecent = older }
    }

    private mutating func moveToMostRecent(_ slot: Int) {
        guard slot != mostRecent else { return }
        unlink(slot)
        slots[slot]!.older = mostRecent
        slots[slot]!.newer = -1
        if mostRecent >= 0 { slots[mostRecent]!.newer = slot }
        mostRecent = slot
        if leastRecent < 0 { leastRecent = slot }
    }
}

extension CostLimitedLRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension CostLimitedLRUCache.Slot: Sendable where Key: Sendable, Value: Sendable {}
