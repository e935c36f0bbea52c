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

    func spec(forKey key: UInt64) -> CatalogImageSpec {
        var draws = KeyDraws(key: key)
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
        let kind: String, encoding: CompositionEncoding
        switch roll {
        case 0..<58:
            kind = "server-thumbnail"; encoding = CompositionEncoding(format: .jpeg, quality: quality)
        case 58..<70:
            kind = "server-thumbnail-progressive"
            encoding = CompositionEncoding(format: .jpeg, quality: quality, progressive: true)
        case 70..<78:
            kind = "server-thumbnail-exif6"; encoding = CompositionEncoding(format: .jpeg, quality: quality, orientationTag: 6)
        case 78..<92:
            kind = "webp"; encoding = CompositionEncoding(format: .webp, quality: quality)
        default:
            kind = "png"; encoding = CompositionEncoding(format: .png)
        }
        return CatalogImageSpec(kind: kind, uprightSize: size, encoding: encoding, cut: draws.cut(size: size))
    }

    private func phoneSpec(_ draws: inout KeyDraws, divisor: Int) -> CatalogImageSpec {
        func size(_ width: Int, _ height: Int) -> PixelSize {
            PixelSize(width: max(8, width / divisor), height: max(8, height / divisor))
        }
        let step = draws.below(8) // varies some sizes
        let kind: String, upright: PixelSize, encoding: CompositionEncoding
        switch draws.below(8) {
        case 0:
            kind = "phone-photo"; upright = size(4032, 3024); encoding = CompositionEncoding(format: .jpeg, quality: 85)
        case 1:
            // Sensor-shaped 4032x3024 pixels tagged with orientation 6: viewers show 3024x4032.
            kind = "phone-photo-exif6"; upright = size(3024, 4032)
            encoding = CompositionEncoding(format: .jpeg, quality: 85, orientationTag: 6)
        case 2:
            kind = "phone-photo-progressive"; upright = size(4032, 3024)
            encoding = CompositionEncoding(format: .jpeg, quality: 82, progressive: true)
        case 3:
            let side = 640 + (step * 160) % 640
            kind = "server-thumbnail"; upright = size(side, side); encoding = CompositionEncoding(format: .jpeg, quality: 80)
        case 4:
            kind = "server-thumbnail"; upright = size(1280, 960); encoding = CompositionEncoding(format: .jpeg, quality: 85)
        case 5:
            kind = "screenshot-png"; upright = size(1170, 2532); encoding = CompositionEncoding(format: .png)
        case 6:
            kind = "webp"; upright = size(1600, 1200); encoding = CompositionEncoding(format: .webp, quality: 80)
        default:
            let side = 800 + (step * 96) % 480
            kind = "server-thumbnail-progressive"; upright = size(side, side)
            encoding = CompositionEncoding(format: .jpeg, quality: 80, progressive: true)
        }
        return CatalogImageSpec(kind: kind, uprightSize: upright, encoding: encoding, cut: draws.cut(size: upright))
    }
}

/// One image before it is made.
struct CatalogImageSpec: Sendable, Hashable {
    var kind: String
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
