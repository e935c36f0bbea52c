import WarmSupport
import NIOPosix

/// Decodes on threads of its own, never Swift's cooperative pool. ORC stays off: Debian 12's ORC 0.4.33 crashes
/// when several threads compile at once. For tests, library callers and `--decode-in-process`.
public final class InProcessDecoder: ThumbnailDecoding {
    private let threads: NIOThreadPool

    public init(concurrency: Int) {
        threads = NIOThreadPool(numberOfThreads: max(1, concurrency))
        threads.start()
    }

    public func thumbnails(of input: ThumbnailInput, _ request: ThumbnailRequest) async -> Result<Thumbnails, DownsampleError> {
        // Waits even when cancelled: a stopping run (disk full, Ctrl-C) must not count images in flight as failed.
        await BlockingWork.run(on: threads, ifShutDown: .decoderShutDown) {
            Result { () throws(DownsampleError) in try Thumbnails.make(from: input, request) }
        }
    }

    public func shutdown() async {
        try? await threads.shutdownGracefully()
    }
}

extension Result where Success == Thumbnails, Failure == DownsampleError {
    static var decoderShutDown: Self { .failure(.decoderUnavailable(reason: "the decoder was shut down")) }
}
