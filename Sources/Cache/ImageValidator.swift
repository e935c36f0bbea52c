import Foundation

/// Width and height of a decoded image, in pixels.
public struct ImageDimensions: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)" }
}

/// Why a validator rejected a file's bytes, as a sentence.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Decodes (at least the header of) a cached file and returns its size. The
/// decoder lives in another module, so the caller supplies it.
public typealias ImageValidator = @Sendable (Data) -> Result<ImageDimensions, ValidationFailure>
