@testable import Downsample

/// The real in-process decoder, its images handed back in reverse order: a decoder whose order is not the run's
/// variants', under which the cache must still store each image under its own format and size.
struct ReversingDecoder: ThumbnailDecoding {
    private let decoder: InProcessDecoder

    init(concurrency: Int) {
        decoder = InProcessDecoder(concurrency: concurrency)
    }

    func thumbnails(of input: ThumbnailInput, _ request: ThumbnailRequest) async -> Result<Thumbnails, DownsampleError> {
        await decoder.thumbnails(of: input, request).map { thumbnails in
            var reversed = thumbnails
            reversed.images.reverse()
            return reversed
        }
    }

    func shutdown() async {
        await decoder.shutdown()
    }
}
