import Foundation

// Hand-written (no ThumbHash package on the mirror): a line-by-line port of evanw/thumbhash js/thumbhash.js (MIT)
// in Double with JavaScript's rounding, so its bytes equal the reference's.

/// An image placeholder of at most 25 bytes. Takes at most 100x100 pixels, as the reference does (the caller
/// downsizes first); costs about terms x pixels cosine products and four Double planes of the input's size.
public enum ThumbHash {
    static let maxSide = 100

    /// The ThumbHash of an image of 8-bit straight (not premultiplied) RGBA pixels, row by row.
    public static func encode(width: Int, height: Int, rgba: [UInt8]) throws(ThumbHashError) -> [UInt8] {
        guard width > 0, height > 0 else { throw .emptyImage(width: width, height: height) }
        guard width <= maxSide, height <= maxSide else {
            throw .tooLarge(width: width, height: height, maxSide: maxSide)
        }
        guard rgba.count == width * height * 4 else {
            throw .wrongPixelByteCount(width: width, height: height, byteCount: rgba.count)
        }
        let planes = LPQAPlanes(width: width, height: height, rgba: rgba)
        let lLimit = planes.hasAlpha ? 5.0 : 7.0
        let longSide = Double(max(width, height))
        let lx = max(1, jsRound(lLimit * Double(width) / longSide))
        let ly = max(1, jsRound(lLimit * Double(height) / longSide))

        let l = EncodedChannel(planes.l, width: width, height: height, nx: max(3, lx), ny: max(3, ly))
        let p = EncodedChannel(planes.p, width: width, height: height, nx: 3, ny: 3)
        let q = EncodedChannel(planes.q, width: width, height: height, nx: 3, ny: 3)
        let a = planes.hasAlpha ? EncodedChannel(planes.a, width: width, height: height, nx: 5, ny: 5) : nil

        let isLandscape = width > height
        let header24 = jsRound(63 * l.dc) | (jsRound(31.5 + 31.5 * p.dc) << 6) | (jsRound(31.5 + 31.5 * q.dc) << 12)
            | (jsRound(31 * l.scale) << 18) | ((planes.hasAlpha ? 1 : 0) << 23)
        let header16 = (isLandscape ? ly : lx) | (jsRound(63 * p.scale) << 3) | (jsRound(63 * q.scale) << 9)
            | ((isLandscape ? 1 : 0) << 15)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16),
            UInt8(header16 & 255), UInt8(header16 >> 8),
        ]
        if let a {
            hash.append(UInt8(jsRound(15 * a.dc) | (jsRound(15 * a.scale) << 4)))
        }
        // The varying factors, two 4-bit values a byte, low nibble first.
        let factors = l.ac + p.ac + q.ac + (a?.ac ?? [])
        for (index, factor) in factors.enumerated() {
            let nibble = UInt8(jsRound(15 * factor))
            if index & 1 == 0 {
                hash.append(nibble)
            } else {
                hash[hash.count - 1] |= nibble << 4
            }
        }
        return hash
    }

    /// JavaScript's `Math.round`: halves toward positive infinity (Swift's `.rounded()` takes them away from zero).
    static func jsRound(_ value: Double) -> Int {
        let floor = value.rounded(.down)
        return Int(value - floor >= 0.5 ? floor + 1 : floor)
    }
}

/// Luminance, chroma and alpha planes, each pixel composited over the average colour as the reference does.
struct LPQAPlanes {
    var l: [Double] = []
    var p: [Double] = []
    var q: [Double] = []
    var a: [Double] = []
    let hasAlpha: Bool

    init(width: Int, height: Int, rgba: [UInt8]) {
        let count = width * height
        var averageR = 0.0, averageG = 0.0, averageB = 0.0, averageA = 0.0
        for j in stride(from: 0, to: count * 4, by: 4) {
            let alpha = Double(rgba[j + 3]) / 255
            averageR += alpha / 255 * Double(rgba[j])
            averageG += alpha / 255 * Double(rgba[j + 1])
            averageB += alpha / 255 * Double(rgba[j + 2])
            averageA += alpha
        }
        if averageA != 0 {
            averageR /= averageA
            averageG /= averageA
            averageB /= averageA
        }
        hasAlpha = averageA < Double(count)
        l.reserveCapacity(count)
        p.reserveCapacity(count)
        q.reserveCapacity(count)
        a.reserveCapacity(count)
        for j in stride(from: 0, to: count * 4, by: 4) {
            let alpha = Double(rgba[j + 3]) / 255
            let r = averageR * (1 - alpha) + alpha / 255 * Double(rgba[j])
            let g = averageG * (1 - alpha) + alpha / 255 * Double(rgba[j + 1])
            let b = averageB * (1 - alpha) + alpha / 255 * Double(rgba[j + 2])
            l.append((r + g + b) / 3)
            p.append((r + g) / 2 - b)
            q.append(r - g)
            a.append(alpha)
        }
    }
}

/// One channel's DCT as the reference encodes it, varying terms normalised by their largest magnitude; computed
/// in the reference's order of operations, because the hash's nibbles depend on the last bit of halves like 7.5.
struct EncodedChannel {
    var dc = 0.0
    var ac: [Double] = []
    var scale = 0.0

    init(_ channel: [Double], width: Int, height: Int, nx: Int, ny: Int) {
        var fx = [Double](repeating: 0, count: width)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<width {
                    fx[x] = ReferenceCosine.cos(Double.pi / Double(width) * Double(cx) * (Double(x) + 0.5))
                }
                for y in 0..<height {
                    let fy = ReferenceCosine.cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<width {
                        f += channel[x + y * width] * fx[x] * fy
                    }
                }
                f /= Double(width * height)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale != 0 {
            ac = ac.map { 0.5 + 0.5 / scale * $0 }
        }
    }
}
