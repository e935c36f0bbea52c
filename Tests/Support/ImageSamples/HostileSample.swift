import Downsample
import Foundation

/// One hostile or odd image and what a correct decoder does with it.
public struct HostileSample: Sendable {
    public enum Outcome: Sendable, Hashable {
        /// Decodes to an image of this upright size (first frame of an animation).
        case decodes(upright: PixelSize)
        /// Refused with this `DownsampleError.reasonCode`.
        case refused(reasonCode: String)
    }

    /// A file-name-safe name ("bomb-png", "orientation-65535"), unique in a set.
    public var name: String
    public var data: Data
    public var outcome: Outcome
}
