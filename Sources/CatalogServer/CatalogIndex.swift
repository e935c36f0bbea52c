/// Makes entries in id order and remembers them: by id, and which image
/// (key) each image path shows.
struct CatalogIndex: Sendable {
    let generator: CatalogGenerator
    private(set) var entryByID: [Int: CatalogEntry] = [:]
    private(set) var imageByPath: [String: UInt64] = [:]
    private var nextID = 1

    init(generator: CatalogGenerator) {
        self.generator = generator
    }

    mutating func makeEntry() -> CatalogEntry {
        let id = nextID
        nextID += 1
        let known = entryByID
        let entry = generator.entry(id: id) { known[$0]?.thumbnailPath }
        entryByID[id] = entry
        for path in [entry.thumbnailPath].compactMap({ $0 }) + entry.imagePaths where imageByPath[path] == nil {
            imageByPath[path] = generator.imageKey(forPath: path)
        }
        return entry
    }
}
