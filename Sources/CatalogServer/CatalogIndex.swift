/// Makes entries in id order and remembers them: by id, and which pool image
/// each image path shows.
struct CatalogIndex: Sendable {
    let generator: CatalogGenerator
    let poolSize: Int
    private(set) var entryByID: [Int: CatalogEntry] = [:]
    private(set) var imageByPath: [String: Int] = [:]
    private var nextID = 1

    init(generator: CatalogGenerator, poolSize: Int) {
        self.generator = generator
        self.poolSize = poolSize
    }

    mutating func makeEntry() -> CatalogEntry {
        let id = nextID
        nextID += 1
        let known = entryByID
        let entry = generator.entry(id: id) { known[$0]?.thumbnailPath }
        entryByID[id] = entry
        for path in [entry.thumbnailPath].compactMap({ $0 }) + entry.imagePaths where imageByPath[path] == nil {
            imageByPath[path] = generator.imageIndex(forPath: path, poolSize: poolSize)
        }
        return entry
    }
}
