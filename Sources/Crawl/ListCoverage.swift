/// Which positions of the product list the crawl has seen, numbered as the
/// list stood when page 1 was first read (position 0 = newest product then;
/// negative positions = products inserted in front of it since).
///
/// The list is newest-first, so a new product pushes every older one a place
/// back, and `totalCount` grows by one. A page fetched when the list held
/// `totalCount` products therefore shows start-positions shifted by
/// `totalCount - baseCount`. Deletions shift only what follows them; they are
/// treated like a shrink at the front, which is wrong for the positions before
/// the deletion (harmless: at worst a page is fetched again for nothing).
/// Memory: one set entry per position seen.
struct ListCoverage {
    let baseCount: Int
    let pageSize: Int
    /// `totalCount` of the most recently handled page.
    private(set) var latestCount: Int
    /// Most products ever seen added in front of the start list.
    private(set) var frontGrowth = 0
    private var covered: Set<Int> = []

    init(baseCount: Int, pageSize: Int) {
        self.baseCount = max(0, baseCount)
        self.pageSize = max(1, pageSize)
        self.latestCount = self.baseCount
    }

    /// The positions to cover: the start list and whatever was added in front.
    var domain: Range<Int> { -frontGrowth..<baseCount }

    var coveredCount: Int { covered.count }
    var uncoveredCount: Int { domain.count - covered.count }

    /// Positions (start-list numbering) held by page `pageNo` of a list of `totalCount`.
    func positions(pageNo: Int, entryCount: Int, totalCount: Int) -> Range<Int> {
        let start = (pageNo - 1) * pageSize - (totalCount - baseCount)
        return start..<(start + max(0, entryCount))
    }

    /// Positions page `pageNo` is expected to hold now (for a page that failed).
    func expectedPositions(pageNo: Int) -> Range<Int> {
        positions(pageNo: pageNo, entryCount: pageSize, totalCount: latestCount)
    }

    /// Marks the page's positions seen, but for `excluding` (positions whose
    /// product was seen before at another position: the page does not hold
    /// what its number says, e.g. it repeats another page).
    mutating func record(pageNo: Int, entryCount: Int, totalCount: Int, excluding: Set<Int> = []) {
        latestCount = totalCount
        frontGrowth = max(frontGrowth, totalCount - baseCount)
        let domain = self.domain
        for position in positions(pageNo: pageNo, entryCount: entryCount, totalCount: totalCount)
        where domain.contains(position) && !excluding.contains(position) {
            covered.insert(position)
        }
    }

    /// Forgets positions seen before (their page was shown to hold something else).
    mutating func uncover(_ positions: some Sequence<Int>) {
        covered.subtract(positions)
    }

    /// The positions seen so far, to tell whether a pass changed anything.
    var coveredPositions: Set<Int> { covered }

    func isCovered(_ range: Range<Int>) -> Bool {
        range.clamped(to: domain).allSatisfy { covered.contains($0) }
    }

    /// The pages that hold uncovered positions in the list as it is now.
    func pagesHoldingUncovered() -> [Int] {
        let shift = latestCount - baseCount
        var pages = Set<Int>()
        for position in domain where !covered.contains(position) {
            pages.insert(max(0, position + shift) / pageSize + 1)
        }
        return pages.sorted()
    }
}
