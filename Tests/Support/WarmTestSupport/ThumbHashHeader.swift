import Downsample

/// The constants at the start of a hash (5 bytes, 6 with alpha), as the reference's decoder reads them: the
/// product only writes hashes (and reads their average colour back), the tests read back the rest.
package struct ThumbHashHeader {
    package let lDC, pDC, qDC, lScale, pScale, qScale, aDC, aScale: Double
    package let hasAlpha: Bool
    /// Terms along x and y of the luminance, as stored (before the decoder's minimum of 3).
    package let lx, ly: Int

    package init(_ hash: [UInt8]) throws(ThumbHashError) {
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
        precondition(lx > 0 && ly > 0, "the hash's short side has 0 luminance terms (an encoder writes at least 1)")
    }
}

extension ThumbHash {
    /// The longest hash the encoder writes: 5 header bytes, one alpha byte and 19 of varying factors.
    package static let maxByteCount = 25

    /// Width over height as the hash stores it (in whole terms): the reference's `thumbHashToApproximateAspectRatio`.
    package static func approximateAspectRatio(_ hash: [UInt8]) throws(ThumbHashError) -> Double {
        let header = try ThumbHashHeader(hash)
        return Double(header.lx) / Double(header.ly)
    }
}
