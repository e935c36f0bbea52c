import Cache

/// What the cache holds for one request, found in one hop off the cooperative pool: the stored variants
/// (one manifest read), the format chosen, and that variant's file read and hashed.
enum ThumbnailLookup: Sendable {
    case found(CachedFile, negotiated: Bool)
    /// No such image, size or format (or its file was just evicted).
    case miss(negotiated: Bool)
    /// The image is there, but `Accept` allows none of its formats.
    case notAcceptable
    case failed(CacheError)

    /// Blocks.
    static func run(_ query: ThumbnailQuery, accept: String?, reader: CacheReader, maxFileBytes: Int) -> ThumbnailLookup {
        let negotiated = query.format == nil
        do throws(CacheError) {
            let held = try reader.storedVariants(of: query.url, longestSide: query.longestSide)
                .compactMap { variant in ThumbnailFormat(fileExtension: variant.format).map { (format: $0, variant: variant) } }
            let format: ThumbnailFormat
            if let named = query.format {
                format = named
            } else {
                guard !held.isEmpty else { return .miss(negotiated: true) }
                guard let chosen = FormatNegotiation.choose(accept: accept, held: held.map(\.format)) else { return .notAcceptable }
                format = chosen
            }
            guard let variant = held.first(where: { $0.format == format })?.variant,
                  let file = try reader.file(of: query.url, variant: variant, maxBytes: maxFileBytes) else {
                return .miss(negotiated: negotiated)
            }
            return .found(file, negotiated: negotiated)
        } catch {
            return .failed(error)
        }
    }
}
