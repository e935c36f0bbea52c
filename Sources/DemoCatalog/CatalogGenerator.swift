import Crawl
import Foundation

/// Makes catalog entries from `(seed, product id)` alone, so a product is the same whenever it is made.
struct CatalogGenerator: Sendable {
    let configuration: CatalogConfiguration

    private static let adjectives = ["Vintage", "Compact", "Handmade", "Wireless", "Refurbished", "Classic",
                                     "Foldable", "Organic", "Limited", "Portable", "Minimal", "Ceramic"]
    private static let nouns = ["Camera", "Backpack", "Desk Lamp", "Keyboard", "Tea Set", "Sneakers",
                                "Wallet", "Speaker", "Jacket", "Mug", "Bicycle Bell", "Notebook", "Plant Pot"]
    private static let vendors = ["yagom", "wongbing", "odong", "summer", "jenna", "coda", "hyemory", "marisol"]

    /// `sharedPathOf` gives an earlier product's thumbnail path, for a product that re-uses it.
    func entry(id: Int, sharedPathOf: (Int) -> String?) -> CatalogEntry {
        let vendorIndex = Int(hash(id, 1) % UInt64(Self.vendors.count))
        let usd = hash(id, 2) % 10 == 0
        let price = usd ? Double(1 + hash(id, 3) % 2000) : Double((10 + hash(id, 3) % 20_000) * 100)
        let discount = hash(id, 4) % 3 == 0 ? (price * Double(hash(id, 5) % 30) / 100).rounded() : 0
        // Newest first means highest id newest: product n was listed n * 37 minutes after the epoch.
        let created = Date(timeIntervalSince1970: 1_672_531_200 + Double(id) * 37 * 60)
        let createdText = Self.isoText(created)
        let day = Self.dayText(created)

        var product = Product(id: id)
        product.vendorID = vendorIndex + 1
        product.vendorName = Self.vendors[vendorIndex]
        product.name = "\(Self.adjectives[Int(hash(id, 6) % 12)]) \(Self.nouns[Int(hash(id, 7) % 13)]) #\(id)"
        product.description = "Generated catalog item \(id)."
        product.currency = usd ? "USD" : "KRW"
        product.price = price
        product.bargainPrice = price - discount
        product.discountedPrice = discount
        product.stock = Int(hash(id, 8) % 500)
        product.createdAt = createdText
        product.issuedAt = createdText

        var thumbnailPath: String?
        if !chance(id, 9, configuration.withoutThumbnailFraction) {
            if id > 1, chance(id, 10, configuration.sharedThumbnailFraction),
               let shared = sharedPathOf(id - 1 - Int(hash(id, 11) % UInt64(min(id - 1, 40)))) {
                thumbnailPath = shared
            } else {
                thumbnailPath = "thumbnails/\(day)/\(key(id, 12))_thumb"
            }
        }
        let missing: CatalogEntry.MissingThumbnail = [.absentKey, .null, .emptyString][id % 3]
        return CatalogEntry(product: product, thumbnailPath: thumbnailPath, missingThumbnail: missing,
                            imagePaths: carouselPaths(id: id, day: day, thumbnailPath: thumbnailPath))
    }

    /// Percent of products showing 1, 2, ... 8 photos in their detail carousel: most 3 to 5, as sellers upload a
    /// cover and a few angles; a mean of 4.2.
    static let carouselPhotoPercents = [6, 10, 20, 24, 18, 10, 7, 5]

    /// The detail's `images[].url` paths: a count drawn from `carouselPhotoPercents`; for
    /// `carouselOpensWithThumbnailFraction` of the products with a thumbnail, the first is the thumbnail's own path
    /// (a listing whose cover photo is also its gallery's first); the others are full-size photos of their own.
    /// Draws of their own (salts 13, 14, 20...27), so the list, its thumbnails and their bytes do not depend on them.
    private func carouselPaths(id: Int, day: String, thumbnailPath: String?) -> [String] {
        var draw = Int(hash(id, 13) % 100)
        var count = 1
        for percent in Self.carouselPhotoPercents.dropLast() {
            if draw < percent { break }
            draw -= percent
            count += 1
        }
        var paths: [String] = []
        if let thumbnailPath, chance(id, 14, configuration.carouselOpensWithThumbnailFraction) {
            paths.append(thumbnailPath)
        }
        for index in 0..<(count - paths.count) {
            paths.append("thumbnails/\(day)/\(key(id, 20 + UInt64(index)))_origin")
        }
        return paths
    }

    /// A hash of seed and path, or with a pool, one of the pool's keys. A seller's upload (`isUpload`) is keyed
    /// apart (its own pool), so that no upload and list thumbnail share a key.
    func imageKey(forPath path: String) -> UInt64 {
        var value = configuration.seed
        for byte in path.utf8 { value = Self.mix(value ^ UInt64(byte)) }
        if let poolSize = configuration.imagePoolSize { value = Self.mix(configuration.seed ^ (value % UInt64(poolSize))) }
        return Self.isUpload(path: path) ? Self.mix(value ^ 0x5E11_E5_0F_0B1D) : value
    }

    /// A product detail's own carousel photo: made as a seller's upload (`CatalogImageMix.spec(forKey:upload:)`).
    static func isUpload(path: String) -> Bool {
        path.hasSuffix("_origin")
    }

    private func chance(_ id: Int, _ salt: UInt64, _ fraction: Double) -> Bool {
        Double(hash(id, salt) % 1_000_000) < fraction * 1_000_000
    }

    /// 32 hex digits. The mix is part of it, so a cache warmed from one mix never takes another's image.
    private func key(_ id: Int, _ salt: UInt64) -> String {
        var mixSalt: UInt64 = 0
        for byte in configuration.imageMix.rawValue.utf8 { mixSalt = Self.mix(mixSalt ^ UInt64(byte)) }
        let high = hash(id, salt ^ mixSalt), low = hash(id, (salt &+ 1000) ^ mixSalt)
        return String(format: "%016llx%016llx", high, low)
    }

    private func hash(_ id: Int, _ salt: UInt64) -> UInt64 {
        Self.mix(Self.mix(configuration.seed ^ Self.mix(UInt64(truncatingIfNeeded: id))) &+ salt)
    }

    /// SplitMix64's finaliser: a cheap, well-spread 64-bit hash.
    static func mix(_ input: UInt64) -> UInt64 {
        var z = input &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func isoText(_ date: Date) -> String {
        // OpenMarket writes local times without a zone: "2023-03-23T10:15:00".
        String(date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt)).dropLast())
    }

    private static func dayText(_ date: Date) -> String {
        String(isoText(date).prefix(10).filter { $0 != "-" })
    }
}

/// A product as the catalog keeps it, with its image paths (the host is added when rendering).
struct CatalogEntry: Sendable {
    enum MissingThumbnail: Sendable {
        case absentKey, null, emptyString
    }

    var product: Product
    var thumbnailPath: String?
    var missingThumbnail: MissingThumbnail
    /// `images[].url`, in carousel order; the first may be `thumbnailPath`.
    var imagePaths: [String]
}
