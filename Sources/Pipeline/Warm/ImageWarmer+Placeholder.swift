import Cache
import Downsample
import Foundation

extension ImageWarmer {
    /// Entries cached before placeholders existed keep `thumbHash` NULL: a run that finds the image fresh or 304 makes
    /// the placeholder from the first variant's cached file, the one a fresh run's comes from, with no download and no
    /// decode of the source (a thumbnail shrunk on load to 32 px, well under a millisecond). On the cache's thread
    /// pool, off the cooperative pool. Best effort: an unreadable file leaves the rows as they were, for `verify`
    /// to report and the next download to replace.
    func fillMissingPlaceholder(_ job: ImageJob, _ cached: [CacheEntry]) async {
        guard let first = cached.first, cached.contains(where: { $0.thumbHash == nil }) else { return }
        let url = job.canonicalURL
        await cache.perform { cache in
            guard let data = try? cache.fileBytes(of: first),
                  let placeholder = ImagePlaceholder.make(fromThumbnail: data) else { return }
            _ = try? cache.fillMissingPlaceholder(url: url, thumbHash: Data(placeholder.thumbHash),
                                                  averageColor: placeholder.averageColor)
        }
    }
}
