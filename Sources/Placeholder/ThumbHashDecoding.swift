import Foundation

// Reading a ThumbHash: the reference's thumbHashToAverageRGBA,
// thumbHashToApproximateAspectRatio and thumbHashToRGBA, ported as the encoder is.
extension ThumbHash {
    /// The image's average colour as the hash stores it (6 bits of luminance, 6 of each
    /// chroma axis, 4 of alpha): the reference's `thumbHashToAverageRGBA`.
    public static func averageColor(_ hash: [UInt8]) throws(ThumbHashError) -> PlaceholderColor {
        let header = try Header(hash)
        let b = header.lDC - 2 / 3 * header.pDC
        let r = (3 * header.lDC - b + header.qDC) / 2
        let g = r - header.qDC
        return PlaceholderColor(
            red: max(0, min(1, r)), green: max(0, min(1, g)), blue: max(0, min(1, b)), alpha: header.aDC)
    }

    /// Width over height as the hash stores it: the long side is 7 terms (5 with alpha),
    /// the short side the nearest whole number of terms in proportion, at least 1.
    /// The reference's `thumbHashToApproximateAspectRatio`.
    public static func approximateAspectRatio(_ hash: [UInt8]) throws(ThumbHashError) -> Double {
        let header = try Header(hash)
        return Double(header.lx) / Double(header.ly)
    }

    /// The placeholder image the hash renders to, 32 pixels on its long side: the
    /// reference's `thumbHashToRGBA`. Costs a few thousand cosines; for tests and previews.
    public static func decode(_ hash: [UInt8]) throws(ThumbHashError) -> ThumbHashImage {
        let header = try Header(hash)
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

/// The constants at the start of a hash (5 bytes, 6 with alpha).
private struct Header {
    let lDC, pDC, qDC, lScale, pScale, qScale, aDC, aScale: Double
    let hasAlpha: Bool
    /// Terms along x and y of the luminance, as stored (before the decoder's minimum of 3).
    let lx, ly: Int

    init(_ hash: [UInt8]) throws(ThumbHashError) {
        guard hash.count >= 5 else { throw .truncatedHash(byteCount: hash.count, expectedByteCount: 5) }
        let header24 = Int(hash[0]) | (Int(hash[1]) << 8) | (Int(hash[2]) << 16)
        let header16 = Int(hash[3]) | (Int(hash[4]) << 8)
        hasAlpha = header24 >> 23 != 0
        guard !hasAlpha || hash.count >= 6 else { throw .truncatedHash(byteCount: hash.count, expectedByteCount: 6) }
        lDC = Double(header24 & 63) / 63
        pDC = Double((header24 >> 6) & 63) / 31.5 - 1
        qDC = Double((header24 >> 12) & 63) / 31.5 - 1
        lScale = Double((header24 >> 18) & 31) / 31
        pScale = Double((header16 >> 3) & 63) / 63
        qScale = Double((header16 >> 9) & 63) / 63
        aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
        aScale = hasAlpha ? Double(hash[5] >> 4) / 15 : 0
        let longSide = hasAlpha ? 5 : 7
        let isLandscape = header16 >> 15 != 0
        lx = isLandscape ? longSide : header16 & 7
        ly = isLandscape ? header16 & 7 : longSide
        guard lx > 0, ly > 0 else {
            throw .malformedHash(reason: "its short side has 0 luminance terms (an encoder writes at least 1)")
        }
    }
}
