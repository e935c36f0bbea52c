/// The problems of a source: all counted, the first `keptLimit` kept, so that a file of a million bad lines costs
/// a counter, not a million messages.
public struct ListingProblems: Sendable, Hashable {
    static let keptLimit = 100

    /// In the order they were found.
    public private(set) var kept: [ListingProblem] = []
    public private(set) var count = 0

    init() {}

    public var isEmpty: Bool { count == 0 }

    mutating func append(_ problem: ListingProblem) {
        count += 1
        if kept.count < Self.keptLimit { kept.append(problem) }
    }

    mutating func append(contentsOf other: ListingProblems) {
        for problem in other.kept where kept.count < Self.keptLimit { kept.append(problem) }
        count += other.count
    }
}
