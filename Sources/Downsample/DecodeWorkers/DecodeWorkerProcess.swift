import WarmSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The child side of a decode worker (`warm decode-worker`): one image at a time until the parent closes the pipe.
public enum DecodeWorkerProcess {
    /// Debug-only test hook `WARM_DECODER_FAULT=KIND:MARK`: misbehave on an image whose path or first 64 KiB
    /// contain MARK (docs/faults-and-hostile-input.md).
    static let fault: (kind: String, marker: Data)? = {
        #if DEBUG
        guard let spec = ProcessInfo.processInfo.environment["WARM_DECODER_FAULT"],
              let colon = spec.firstIndex(of: ":") else { return nil }
        let kind = String(spec[..<colon])
        guard ["crash", "garbage", "huge-length", "hang", "sleep"].contains(kind) else { return nil }
        return (kind, Data(spec[spec.index(after: colon)...].utf8))
        #else
        return nil
        #endif
    }()

    /// Carries RLIMIT_AS in bytes (empty: none), so that the worker's command line is only its subcommand name.
    static let memoryLimitVariable = "WARM_DECODER_MEMORY_LIMIT"

    public static func serve() -> Int32 {
        // Whatever a library prints goes to standard error, not into the protocol.
        let frames = dup(1)
        dup2(2, 1)
        let channel = FrameChannel(input: 0, output: frames)
        let memoryLimit = ProcessInfo.processInfo.environment[memoryLimitVariable].flatMap { Int($0) }
        // A worker that cannot start answers every request with why.
        let startFailure = start(memoryLimit: memoryLimit)
        return channel.serve(WorkerCall.self) { call -> WorkerAnswer in
            switch (startFailure, call) {
            case (let failure?, _):
                return .failed(failure)
            case (nil, let call?):
                injectFault(call.input, frames: frames)
                switch Result(catching: { () throws(DownsampleError) in try Thumbnails.make(from: call.input, call.request) }) {
                case .success(let thumbnails): return .thumbnails(thumbnails)
                case .failure(let error): return .failed(memoryLimit.map { error.blamingMemoryLimit($0) } ?? error)
                }
            case (nil, nil):
                return .failed(.decoderUnavailable(reason: "the worker received a request it cannot read"))
            }
        }
    }

    private static func start(memoryLimit: Int?) -> DownsampleError? {
        if let bytes = memoryLimit {
            var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
            guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else {
                return .decoderUnavailable(reason: "cannot set the memory limit: \(String(cString: strerror(errno)))")
            }
        }
        do {
            try VipsRuntime.startForOnePipelineAtATime()
        } catch {
            return error
        }
        return nil
    }

    private static func injectFault(_ input: ThumbnailInput, frames: Int32) {
        guard let (kind, marker) = fault else { return }
        let searched = switch input {
        case .bytes(let data): data.prefix(64 << 10)
        case .file(let path): Data(path.utf8)
        }
        guard searched.range(of: marker) != nil else { return }
        switch kind {
        case "garbage":
            let garbage = Array("garbage, not a frame: \u{0}\u{ff}\u{7f}".utf8) + Array(repeating: 0xff, count: 64)
            _ = write(frames, garbage, garbage.count)
        case "huge-length":
            let json = Array(#"{"failed":{}}"#.utf8)
            var header: [UInt8] = withUnsafeBytes(of: UInt32(json.count).littleEndian, Array.init) + json
            header += withUnsafeBytes(of: UInt32(1).littleEndian, Array.init)
            header += withUnsafeBytes(of: (UInt64(1) << 63).littleEndian, Array.init)
            _ = write(frames, header, header.count)
        case "hang":
            close(frames)
        case "sleep":
            break
        default:
            // The default action: the runtime's crash handler would otherwise return from a raised signal.
            signal(SIGSEGV, SIG_DFL)
            raise(SIGSEGV)
        }
        while true { sleep(3600) }
    }
}

extension DownsampleError {
    /// An allocation failure under the worker's address-space limit: the image is too big, not corrupt.
    func blamingMemoryLimit(_ limit: Int) -> DownsampleError {
        let reason: String
        switch self {
        case .corrupt(_, _, _, let text), .unreadableHeader(_, let text), .encodeFailed(_, let text): reason = text
        default: return self
        }
        let lower = reason.lowercased()
        guard lower.contains("out of memory") || lower.contains("insufficient memory") || lower.contains("cannot allocate") else { return self }
        return .overMemoryLimit(limitBytes: limit, reason: reason)
    }
}

/// Thumbnails of `input`; its bytes, if any, travel as a raw blob.
struct WorkerCall: Codable {
    var input: ThumbnailInput
    var request: ThumbnailRequest
}

enum WorkerAnswer: Codable {
    case thumbnails(Thumbnails)
    case failed(DownsampleError)
}
