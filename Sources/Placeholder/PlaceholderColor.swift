/// A colour with straight (not premultiplied) channels from 0 to 1, as the
/// ThumbHash reference returns its average colour.
public struct PlaceholderColor: Sendable, Equatable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `#rrggbb` (lower case, alpha left out): the app manifest's `averageColor`.
    public var hexRGB: String {
        "#" + [red, green, blue].map { channel in
            let byte = Int((min(1, max(0, channel)) * 255).rounded())
            return String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
