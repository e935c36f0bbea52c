import Foundation
import WarmSupport

/// Width and height of a decoded image, in pixels.
public typealias ImageDimensions = PixelSize

/// Why a validator rejected a file's bytes, as a sentence.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Decodes (at least the header of) a cached file and returns its size. The
/// decoder lives in another module, so the caller supplies it.
public typealias ImageValidator = @Sendable (Data) -> Result<ImageDimensions, ValidationFailure>
