import Downsample
import NIOPosix

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
