import Downsample
import NIOPosix

/// Decodes in this process on `concurrency` threads of its own (an
/// `NIOThreadPool`, never Swift's cooperative pool). libvips' run-time SIMD
/// code stays off here, because several threads would compile it at once
/// (Debian 12's ORC 0.4.33 crashes then). Used by tests, by library callers
/// without a worker executable, and by `--decode-in-process`.
public final class InProcessDecoder: ThumbnailDecoding {
    private let threads: NIOThreadPool

    public init(concurrency: Int) {
        threads = NIOThreadPool(numberOfThreads: max(1, concurrency))
        threads.start()
    }

    public func thumbnails(of input: ThumbnailInput, _ request: ThumbnailRequest) async -> Result<Thumbnails, DownsampleError> {
        await threads.decode {
            Result { () throws(DownsampleError) in try Thumbnails.make(from: input, request) }
        }
    }

    public func shutdown() async {
        try? await threads.shutdownGracefully()
    }
}
