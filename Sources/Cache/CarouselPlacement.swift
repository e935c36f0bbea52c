/// Where a product's detail shows an image: the product and the image's index in its `images` (the carousel's
/// position, 0-based). Stored with the image's rows and written in the app manifest's `carousel`.
public struct CarouselPlacement: Sendable, Hashable, Codable, Comparable {
    public var productId: Int
    public var position: Int

    public init(productId: Int, position: Int) {
        self.productId = productId
        self.position = position
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.productId, lhs.position) < (rhs.productId, rhs.position)
    }

    /// As the manifest's column holds them: `[{"productId":7,"position":0},...]`.
    static func json(_ placements: [CarouselPlacement]) -> String {
        "[" + placements.map { #"{"productId":\#($0.productId),"position":\#($0.position)}"# }.joined(separator: ",") + "]"
    }
}
