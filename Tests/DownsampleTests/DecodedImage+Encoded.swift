@testable import Downsample
import Foundation
@testable import WarmSupport

extension DecodedImage {
    /// A strategy's bitmap encoded as the engine encodes (`OutputFormat.encode`), metadata stripped by
    /// the saver: JPEG flattens alpha onto white, WebP and PNG keep it unless opaque.
    func encoded(as format: OutputFormat, quality: Int = 82) throws(DownsampleError) -> Data {
        try format.encode(image, quality: quality)
    }
}
