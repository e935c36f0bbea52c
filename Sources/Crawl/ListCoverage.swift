/// Positions seen, numbered as the list stood at page 1 (negative: inserted in front since); a page shifts by
/// `totalCount - baseCount`. Deletions count as a shrink at the front: at worst a page is fetched again.
struct ListCoverage {
    let baseCount: Int
    let pageSize: Int
    private(set) var latestCount: Int
    private(set) var frontGrowth = 0
    private var covered: Set<Int> = []

    init(baseCount: Int, pageSize: Int) {
        self.baseCount = max(0, baseCount)
        self.pageSize = max(1, pageSize)
        self.latestCount = self.baseCount
    }

    var domain: Range<Int> { -frontGrowth..<baseCount }

    var uncoveredCount: Int { domain.count - covered.count }

    func positions(pageNo: Int, entryCount: Int, totalCount: Int) -> Range<Int> {
        let start = (pageNo - 1) * pageSize - (totalCount - baseCount)
        return start..<(start + max(0, entryCount))
    }

    /// For a page that failed.
    func expectedPositions(pageNo: Int) -> Range<Int> {
        positions(pageNo: pageNo, entryCount: pageSize, totalCount: latestCount)
    }

    /// `excluding`: positions whose product was seen before elsewhere (the page does not hold what its number says).
    mutating func record(pageNo: Int, entryCount: Int, totalCount: Int, excluding: Set<Int> = []) {
        latestCount = totalCount
        frontGrowth = max(frontGrowth, totalCount - baseCount)
        let domain = self.domain
        for position in positions(pageNo: pageNo, entryCount: entryCount, totalCount: totalCount)
        where domain.contains(position) && !excluding.contains(position) {
            covered.insert(position)
        }
    }

    mutating func uncover(_ positions: some Sequence<Int>) {
        covered.subtract(positions)
    }

    var coveredPositions: Set<Int> { covered }

    func isCovered(_ range: Range<Int>) -> Bool {
        range.clamped(to: domain).allSatisfy { covered.contains($0) }
    }

    func pagesHoldingUncovered() -> [Int] {
        let shift = latestCount - baseCount
        var pages = Set<Int>()
        for position in domain where !covered.contains(position) {
            pages.insert(max(0, position + shift) / pageSize + 1)
        }
        return pages.sorted()
    }
}
