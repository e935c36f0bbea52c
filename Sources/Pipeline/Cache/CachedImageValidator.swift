import Cache
import Downsample

/// How `warm cache verify` checks a cached file: it must decode completely
/// (not only its header: a file cut short keeps a readable header), and its
/// decoded size is compared with the manifest row.
public enum CachedImageValidator {
    public static let decodesCompletely: ImageValidator = { data in
        let source = try ImageSource(data: data)
        let image = try NaiveDecode().decode(
            source, target: DecodeTarget(longestSide: max(source.header.uprightWidth, source.header.uprightHeight)))
        return ImageDimensions(width: image.width, height: image.height)
    }
}
