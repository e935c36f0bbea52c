import Downsample
import Foundation

/// SSIM (BT.601 luma, 8x8 uniform windows, K1 0.01, K2 0.03) and capped PSNR of RGBA bitmaps over
/// white. Written by hand: no maintained Swift package computes SSIM on Linux.
enum ImageSimilarity {
    static let ssimWindow = 8
    static let psnrCapDecibels = 100.0

    static func compare(_ image: DecodedImage, to reference: DecodedImage) -> (ssim: Double, psnr: Double)? {
        guard image.size == reference.size else { return nil }
        let a = image.rgbaPixels(), b = reference.rgbaPixels()
        guard a.count == b.count, a.count == image.width * image.height * 4 else { return nil }
        return (ssim(a, b, width: image.width, height: image.height), psnr(a, b, width: image.width, height: image.height))
    }

    static func ssim(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double {
        precondition(a.count == width * height * 4 && b.count == a.count, "SSIM needs two RGBA bitmaps of the same size")
        guard width > 0, height > 0 else { return 1 }
        let ya = luma(a, count: width * height), yb = luma(b, count: width * height)

        // Integral images (one extra zero row and column) of x, y, x^2, y^2, xy.
        let stride = width + 1
        var sx = [Int](repeating: 0, count: stride * (height + 1))
        var sy = sx, sxx = sx, syy = sx, sxy = sx
        for row in 0..<height {
            var rx = 0, ry = 0, rxx = 0, ryy = 0, rxy = 0
            for col in 0..<width {
                let x = Int(ya[row * width + col]), y = Int(yb[row * width + col])
                rx += x; ry += y; rxx += x * x; ryy += y * y; rxy += x * y
                let i = (row + 1) * stride + col + 1, above = row * stride + col + 1
                sx[i] = sx[above] + rx
                sy[i] = sy[above] + ry
                sxx[i] = sxx[above] + rxx
                syy[i] = syy[above] + ryy
                sxy[i] = sxy[above] + rxy
            }
        }

        let window = min(ssimWindow, width, height)
        let n = Double(window * window)
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        var total = 0.0
        for top in 0...(height - window) {
            for left in 0...(width - window) {
                let tl = top * stride + left, tr = tl + window
                let bl = (top + window) * stride + left, br = bl + window
                func box(_ s: [Int]) -> Double { Double(s[br] - s[bl] - s[tr] + s[tl]) }
                let meanX = box(sx) / n, meanY = box(sy) / n
                let varX = box(sxx) / n - meanX * meanX
                let varY = box(syy) / n - meanY * meanY
                let cov = box(sxy) / n - meanX * meanY
                total += ((2 * meanX * meanY + c1) * (2 * cov + c2))
                    / ((meanX * meanX + meanY * meanY + c1) * (varX + varY + c2))
            }
        }
        return total / Double((height - window + 1) * (width - window + 1))
    }

    /// PSNR in dB of the RGB samples of two RGBA bitmaps, capped at `psnrCapDecibels`.
    static func psnr(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double {
        precondition(a.count == width * height * 4 && b.count == a.count, "PSNR needs two RGBA bitmaps of the same size")
        guard width > 0, height > 0 else { return psnrCapDecibels }
        var squaredError = 0
        for p in 0..<(width * height) {
            for channel in 0..<3 {
                let d = composited(a, p, channel) - composited(b, p, channel)
                squaredError += d * d
            }
        }
        guard squaredError > 0 else { return psnrCapDecibels }
        let mse = Double(squaredError) / Double(width * height * 3)
        return min(psnrCapDecibels, 10 * log10(255 * 255 / mse))
    }

    /// Sample `channel` of pixel `p` composited over white.
    @inline(__always)
    private static func composited(_ rgba: [UInt8], _ p: Int, _ channel: Int) -> Int {
        let alpha = Int(rgba[p * 4 + 3])
        let value = Int(rgba[p * 4 + channel])
        return alpha == 255 ? value : (value * alpha + 255 * (255 - alpha) + 127) / 255
    }

    private static func luma(_ rgba: [UInt8], count: Int) -> [UInt8] {
        var y = [UInt8](repeating: 0, count: count)
        for p in 0..<count {
            let r = composited(rgba, p, 0), g = composited(rgba, p, 1), b = composited(rgba, p, 2)
            y[p] = UInt8((77 * r + 150 * g + 29 * b + 128) >> 8)
        }
        return y
    }
}
