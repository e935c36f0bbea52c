@testable import Downsample
import WarmTestSupport

// The reference's thumbHashToRGBA, ported as the encoder is: the shipped product only
// encodes, the tests render hashes back to check them.
extension ThumbHash {
    /// The placeholder image the hash renders to, 32 pixels on its long side: the
    /// reference's `thumbHashToRGBA`. Costs a few thousand cosines.
    static func decode(_ hash: [UInt8]) throws(ThumbHashError) -> ThumbHashImage {
        let header = try ThumbHashHeader(hash)
        let lx = max(3, header.lx), ly = max(3, header.ly)
        let lTermCount = termCount(nx: lx, ny: ly)
        let alphaTermCount = header.hasAlpha ? termCount(nx: 5, ny: 5) : 0
        let acStart = header.hasAlpha ? 6 : 5
        let needed = acStart + (lTermCount + 10 + alphaTermCount + 1) / 2
        guard hash.count >= needed else { throw .truncatedHash(byteCount: hash.count, expectedByteCount: needed) }

        // The varying factors (saturation boosted 1.25x, as the reference does, to make up for quantisation).
        let nibbles: [Double] = (0..<(lTermCount + 10 + alphaTermCount)).map { (index: Int) -> Double in
            let byte: UInt8 = hash[acStart + index / 2]
            let nibble: UInt8 = index % 2 == 0 ? byte & 15 : byte >> 4
            return Double(nibble) / 7.5 - 1
        }
        let lAC = nibbles[0..<lTermCount].map { $0 * header.lScale }
        let pAC = nibbles[lTermCount..<(lTermCount + 5)].map { $0 * header.pScale * 1.25 }
        let qAC = nibbles[(lTermCount + 5)..<(lTermCount + 10)].map { $0 * header.qScale * 1.25 }
        let aAC = nibbles[(lTermCount + 10)...].map { $0 * header.aScale }

        let ratio = Double(header.lx) / Double(header.ly)
        let width = jsRound(ratio > 1 ? 32 : 32 * ratio)
        let height = jsRound(ratio > 1 ? 32 / ratio : 32)
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        var fx = [Double](repeating: 0, count: max(lx, header.hasAlpha ? 5 : 3))
        var fy = [Double](repeating: 0, count: max(ly, header.hasAlpha ? 5 : 3))
        var i = 0
        for y in 0..<height {
            for x in 0..<width {
                for cx in fx.indices { fx[cx] = ReferenceCosine.cos(Double.pi / Double(width) * (Double(x) + 0.5) * Double(cx)) }
                for cy in fy.indices { fy[cy] = ReferenceCosine.cos(Double.pi / Double(height) * (Double(y) + 0.5) * Double(cy)) }
                let l = accumulate(header.lDC, lAC, nx: lx, ny: ly, fx: fx, fy: fy)
                let p = accumulate(header.pDC, pAC, nx: 3, ny: 3, fx: fx, fy: fy, chroma: true)
                let q = accumulate(header.qDC, qAC, nx: 3, ny: 3, fx: fx, fy: fy, chroma: true)
                let a = header.hasAlpha ? accumulate(header.aDC, aAC, nx: 5, ny: 5, fx: fx, fy: fy) : header.aDC
                let b = l - 2 / 3 * p
                let r = (3 * l - b + q) / 2
                let g = r - q
                // The reference stores into a Uint8Array, which truncates.
                rgba[i] = UInt8(max(0, 255 * min(1, r)))
                rgba[i + 1] = UInt8(max(0, 255 * min(1, g)))
                rgba[i + 2] = UInt8(max(0, 255 * min(1, b)))
                rgba[i + 3] = UInt8(max(0, 255 * min(1, a)))
                i += 4
            }
        }
        return ThumbHashImage(width: width, height: height, rgba: rgba)
    }

    /// The varying terms of an nx x ny channel, in the order the reference writes them.
    static func termCount(nx: Int, ny: Int) -> Int {
        var count = 0
        for cy in 0..<ny {
            var cx = cy > 0 ? 0 : 1
            while cx * ny < nx * (ny - cy) {
                count += 1
                cx += 1
            }
        }
        return count
    }

    /// One pixel's value of a channel: its constant plus its varying terms, added in the
    /// reference's order and grouping (`ac * fx * fy2` for L and A, `ac * (fx * fy2)` for P and Q).
    private static func accumulate(_ dc: Double, _ ac: [Double], nx: Int, ny: Int,
                                   fx: [Double], fy: [Double], chroma: Bool = false) -> Double {
        var value = dc
        var j = 0
        for cy in 0..<ny {
            let fy2 = fy[cy] * 2
            var cx = cy > 0 ? 0 : 1
            while cx * ny < nx * (ny - cy) {
                value += chroma ? ac[j] * (fx[cx] * fy2) : ac[j] * fx[cx] * fy2
                cx += 1
                j += 1
            }
        }
        return value
    }
}

/// The small image a ThumbHash renders to (at most 32 pixels a side), straight RGBA,
/// 8 bits a channel, row by row.
struct ThumbHashImage: Sendable, Equatable {
    var width: Int
    var height: Int
    var rgba: [UInt8]
}
