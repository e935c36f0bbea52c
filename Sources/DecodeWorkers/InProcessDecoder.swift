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

extension NIOThreadPool {
    /// Runs one decode on the pool and waits for it, even when the waiting
    /// task is cancelled: a decode takes milliseconds, and a stopping run
    /// (disk full, Ctrl-C) must not count the images in flight as failed
    /// (`runIfActive` would throw `CancellationError` for a queued one).
    func decode(_ body: @escaping @Sendable () -> Result<Thumbnails, DownsampleError>) async -> Result<Thumbnails, DownsampleError> {
        await withCheckedContinuation { continuation in
            submit { state in
                guard case .active = state else {
                    continuation.resume(returning: .failure(.decoderUnavailable(reason: "the decoder was shut down")))
                    return
                }
                continuation.resume(returning: body())
            }
        }
    }
}
