import Downsample

/// The kinds of images a marketplace's object store holds, and their sizes.
public enum CatalogImageMix: String, Sendable, Hashable, CaseIterable {
    /// Real sizes: 4032x3024 phone photos (some EXIF-rotated, some
    /// progressive), 640..1280 px server thumbnails, 1170x2532 PNG
    /// screenshots, 1600x1200 WebP. About 0.3 s of encoding per phone photo.
    case marketplace
    /// The same kinds and proportions at an eighth of the size, for tests.
    case miniature

    /// The pool's images, cycling through the kinds.
    func specs(count: Int) -> [CatalogImageSpec] {
        let divisor = self == .marketplace ? 1 : 8
        func size(_ width: Int, _ height: Int) -> PixelSize {
            PixelSize(width: max(8, width / divisor), height: max(8, height / divisor))
        }
        return (0..<count).map { index in
            let step = index / 8 // varies sizes a little between rounds
            switch index % 8 {
            case 0:
                return CatalogImageSpec(kind: "phone-photo", uprightSize: size(4032, 3024),
                                        encoding: CompositionEncoding(format: .jpeg, quality: 85))
            case 1:
                // A phone held upright stores sensor-shaped 4032x3024 pixels and
                // tags them with orientation 6, so viewers show 3024x4032.
                return CatalogImageSpec(kind: "phone-photo-exif6", uprightSize: size(3024, 4032),
                                        encoding: CompositionEncoding(format: .jpeg, quality: 85, orientationTag: 6))
            case 2:
                return CatalogImageSpec(kind: "phone-photo-progressive", uprightSize: size(4032, 3024),
                                        encoding: CompositionEncoding(format: .jpeg, quality: 82, progressive: true))
            case 3:
                let side = 640 + (step * 160) % 640
                return CatalogImageSpec(kind: "server-thumbnail", uprightSize: size(side, side),
                                        encoding: CompositionEncoding(format: .jpeg, quality: 80))
            case 4:
                return CatalogImageSpec(kind: "server-thumbnail", uprightSize: size(1280, 960),
                                        encoding: CompositionEncoding(format: .jpeg, quality: 85))
            case 5:
                return CatalogImageSpec(kind: "screenshot-png", uprightSize: size(1170, 2532),
                                        encoding: CompositionEncoding(format: .png))
            case 6:
                return CatalogImageSpec(kind: "webp", uprightSize: size(1600, 1200),
                                        encoding: CompositionEncoding(format: .webp, quality: 80))
            default:
                let side = 800 + (step * 96) % 480
                return CatalogImageSpec(kind: "server-thumbnail-progressive", uprightSize: size(side, side),
                                        encoding: CompositionEncoding(format: .jpeg, quality: 80, progressive: true))
            }
        }
    }
}

/// One image of the pool before it is made: what it imitates, its upright
/// size and how it is encoded.
struct CatalogImageSpec: Sendable, Hashable {
    var kind: String
    var uprightSize: PixelSize
    var encoding: CompositionEncoding
}
