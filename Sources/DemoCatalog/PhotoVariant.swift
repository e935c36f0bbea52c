import Downsample

/// How one image is cut from a `SourcePhoto` (`SourcePhoto.image(_:as:)`); equal variants give equal pixels.
struct PhotoVariant: Sendable, Hashable {
    var size: PixelSize
    /// Share of the largest region of `size`'s aspect that fits the (turned) photo, 0.3...1.
    var cropFraction: Double
    var cropX: Double
    var cropY: Double
    var quarterTurns: Int
    var mirrored: Bool
    var noiseAmplitude: Int
    var noiseSeed: UInt64

    init(size: PixelSize, cropFraction: Double = 1, cropX: Double = 0.5, cropY: Double = 0.5,
                quarterTurns: Int = 0, mirrored: Bool = false, noiseAmplitude: Int = 0, noiseSeed: UInt64 = 1) {
        self.size = size
        self.cropFraction = min(1, max(0.3, cropFraction))
        self.cropX = min(1, max(0, cropX))
        self.cropY = min(1, max(0, cropY))
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.mirrored = mirrored
        self.noiseAmplitude = max(0, min(64, noiseAmplitude))
        self.noiseSeed = noiseSeed
    }

    /// Seeded noise of up to `amplitude` levels either way on every sample.
    static func addNoise(to pixels: inout [UInt8], amplitude: Int, seed: UInt64) {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        let span = UInt64(2 * amplitude + 1)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                let value = Int(buffer[index]) + Int(state % span) - amplitude
                buffer[index] = UInt8(clamping: value)
            }
        }
    }
}
