import Downsample

/// Which images a catalog holds: the kinds, sizes and encodings one kind of marketplace serves. Each image
/// is drawn from the mix by a 64-bit key (`spec(forKey:)`), so it depends only on the seed and its path.
public enum CatalogImageMix: String, Sendable, Hashable, CaseIterable {
    /// Like the seed apps' catalog: JPEGs (some progressive, some EXIF-6), WebP and a few PNGs, longest side
    /// 600-1150 px; about 2.5 MB of naive decode per image.
    case seeds
    /// Phone uploads and their neighbours, eight equal kinds: 4032x3024 photos (plain, EXIF-rotated,
    /// progressive), 640-1280 px thumbnails, PNG screenshots, WebP; about 22 MB of naive decode per image.
    case phone
    /// The phone mix at an eighth of the size, for tests.
    case miniature

    /// Larger outputs are upscaled from the source photos.
    var sourcePhotoMaxSide: Int {
        switch self {
        case .seeds: return 1600
        case .phone: return 2560
        case .miniature: return 512
        }
    }

    /// `upload`: a product detail's own carousel photo, a seller's upload whatever the list's thumbnails are: a phone
    /// photo as a marketplace app uploads it, halved to 2016x1512 (or EXIF-rotated), at the mix's scale. A phone's
    /// full-width carousel decodes such an original, which is what the report's carousel table is about. Half, not
    /// the sensor's 4032x3024: the server makes each on first request, and a 4032x3024 one cost it so much that under
    /// load (a release build beside the demo) 26 of the demo's 211 timed out after 4 attempts of 30 s.
    func spec(forKey key: UInt64, upload: Bool = false) -> CatalogImageSpec {
        var draws = KeyDraws(key: key)
        if upload { return uploadSpec(&draws, divisor: self == .miniature ? 8 : 1) }
        switch self {
        case .seeds: return seedsSpec(&draws)
        case .phone, .miniature: return phoneSpec(&draws, divisor: self == .phone ? 1 : 8)
        }
    }

    private func seedsSpec(_ draws: inout KeyDraws) -> CatalogImageSpec {
        let longest = 600 + draws.below(551)
        // Product photos: square, 4:3 either way, 3:2.
        let shape = [(1, 1), (1, 1), (4, 3), (3, 4), (3, 2)][draws.below(5)]
        let size = shape.0 >= shape.1
            ? PixelSize(width: longest, height: longest * shape.1 / shape.0)
            : PixelSize(width: longest * shape.0 / shape.1, height: longest)
        let quality = 72 + draws.below(19)
        let roll = draws.below(100)
        let (_, kind, encoding) = [
            (58, "server-thumbnail", CompositionEncoding(format: .jpeg, quality: quality)),
            (70, "server-thumbnail-progressive", CompositionEncoding(format: .jpeg, quality: quality, progressive: true)),
            (78, "server-thumbnail-exif6", CompositionEncoding(format: .jpeg, quality: quality, orientationTag: 6)),
            (92, "webp", CompositionEncoding(format: .webp, quality: quality)),
            (100, "png", CompositionEncoding(format: .png)),
        ].first { roll < $0.0 }!
        return CatalogImageSpec(kind: kind, uprightSize: size, encoding: encoding, cut: draws.cut(size: size))
    }

    /// A phone's photo as a seller uploads it (kind, upright width and height, encoding).
    private static let phonePhotos: [(String, Int, Int, CompositionEncoding)] = [
        ("phone-photo", 4032, 3024, CompositionEncoding(format: .jpeg, quality: 85)),
        // Sensor-shaped 4032x3024 pixels tagged with orientation 6: viewers show 3024x4032.
        ("phone-photo-exif6", 3024, 4032, CompositionEncoding(format: .jpeg, quality: 85, orientationTag: 6)),
        ("phone-photo-progressive", 4032, 3024, CompositionEncoding(format: .jpeg, quality: 82, progressive: true)),
    ]

    /// The phone mix's three photo kinds, equally, at half their size.
    private func uploadSpec(_ draws: inout KeyDraws, divisor: Int) -> CatalogImageSpec {
        let (kind, width, height, encoding) = Self.phonePhotos[draws.below(Self.phonePhotos.count)]
        let upright = PixelSize(width: width / (2 * divisor), height: height / (2 * divisor))
        return CatalogImageSpec(kind: kind, uprightSize: upright, encoding: encoding, cut: draws.cut(size: upright))
    }

    private func phoneSpec(_ draws: inout KeyDraws, divisor: Int) -> CatalogImageSpec {
        let step = draws.below(8) // varies some sizes
        let thumbnailSide = 640 + (step * 160) % 640, progressiveSide = 800 + (step * 96) % 480
        let (kind, width, height, encoding) = (Self.phonePhotos + [
            ("server-thumbnail", thumbnailSide, thumbnailSide, CompositionEncoding(format: .jpeg, quality: 80)),
            ("server-thumbnail", 1280, 960, CompositionEncoding(format: .jpeg, quality: 85)),
            ("screenshot-png", 1170, 2532, CompositionEncoding(format: .png)),
            ("webp", 1600, 1200, CompositionEncoding(format: .webp, quality: 80)),
            ("server-thumbnail-progressive", progressiveSide, progressiveSide,
             CompositionEncoding(format: .jpeg, quality: 80, progressive: true)),
        ])[draws.below(8)]
        let upright = PixelSize(width: max(8, width / divisor), height: max(8, height / divisor))
        return CatalogImageSpec(kind: kind, uprightSize: upright, encoding: encoding, cut: draws.cut(size: upright))
    }
}

/// One image before it is made.
struct CatalogImageSpec: Sendable, Hashable {
    /// What it imitates: "server-thumbnail", "phone-photo-exif6", "screenshot-png"...
    var kind: String
    /// Size as a viewer shows it (after the EXIF orientation).
    var uprightSize: PixelSize
    var encoding: CompositionEncoding
    var cut: PhotoVariant
}

/// Successive draws from one key (SplitMix64 steps), so a spec needs no shared state.
private struct KeyDraws {
    var state: UInt64

    init(key: UInt64) { state = key }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return CatalogGenerator.mix(state)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A quarter of images turned, a third mirrored, all with light noise.
    mutating func cut(size: PixelSize) -> PhotoVariant {
        let turns = below(4) == 0 ? 1 + below(3) : 0
        return PhotoVariant(size: size, cropFraction: 0.55 + 0.45 * unit(), cropX: unit(), cropY: unit(),
                            quarterTurns: turns, mirrored: below(3) == 0, noiseAmplitude: 1 + below(3), noiseSeed: next())
    }
}
