import Crawl

/// A product as the catalog keeps it, with its image paths (the host is added when rendering).
struct CatalogEntry: Sendable {
    enum MissingThumbnail: Sendable {
        case absentKey, null, emptyString
    }

    var product: Product
    var thumbnailPath: String?
    var missingThumbnail: MissingThumbnail
    /// `images[].url`.
    var imagePaths: [String]
}
