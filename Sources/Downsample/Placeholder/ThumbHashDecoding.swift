// The rest of the reference's decoder, which only the tests need, is in Tests/Support and Tests/PlaceholderTests.
extension ThumbHash {
    /// The average colour as the hash stores it: the reference's `thumbHashToAverageRGBA`.
    static func averageColor(_ hash: [UInt8]) throws(ThumbHashError) -> PlaceholderColor {
        guard hash.count >= 5 else { throw .truncatedHash(byteCount: hash.count, expectedByteCount: 5) }
        let constants = Int(hash[0]) | (Int(hash[1]) << 8) | (Int(hash[2]) << 16)
        let hasAlpha = constants >> 23 != 0
        guard !hasAlpha || hash.count >= 6 else { throw .truncatedHash(byteCount: hash.count, expectedByteCount: 6) }
        let l = Double(constants & 63) / 63
        let p = Double((constants >> 6) & 63) / 31.5 - 1
        let q = Double((constants >> 12) & 63) / 31.5 - 1
        let b = l - 2 / 3 * p
        let r = (3 * l - b + q) / 2
        let g = r - q
        return PlaceholderColor(red: max(0, min(1, r)), green: max(0, min(1, g)), blue: max(0, min(1, b)),
                                alpha: hasAlpha ? Double(hash[5] & 15) / 15 : 1)
    }
}
