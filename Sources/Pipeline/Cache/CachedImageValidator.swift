import Cache
import Downsample

/// For `warm cache verify`: decodes completely, not only the header, since a file cut short keeps a readable header.
public enum CachedImageValidator {
    public static let decodesCompletely: ImageValidator = { data in
        let source = try ImageSource(data: data)
        let image = try NaiveDecode().decode(
            source, target: DecodeTarget(longestSide: max(source.header.uprightWidth, source.header.uprightHeight)))
        return ImageDimensions(width: image.width, height: image.height)
    }
}
