import Foundation

/// Straight (not premultiplied) channels from 0 to 1, as the ThumbHash reference returns its average colour.
struct PlaceholderColor: Sendable, Equatable {
    var red: Double
    var green: Double
    var blue: Double
    var alpha: Double

    /// `#rrggbb` (lower case, alpha left out): the app manifest's `averageColor`.
    var hexRGB: String {
        let bytes = [red, green, blue].map { Int((min(1, max(0, $0)) * 255).rounded()) }
        return String(format: "#%02x%02x%02x", bytes[0], bytes[1], bytes[2])
    }
}
