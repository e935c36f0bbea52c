/// Counts calls from concurrent handlers (the requests a loopback server got, by key).
public actor Counter {
    public private(set) var counts: [String: Int] = [:]

    public init() {}

    @discardableResult
    public func increment(_ key: String = "") -> Int {
        counts[key, default: 0] += 1
        return counts[key, default: 0]
    }

    public func count(_ key: String = "") -> Int { counts[key, default: 0] }
}
