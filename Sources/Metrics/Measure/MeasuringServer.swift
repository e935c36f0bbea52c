import WarmSupport
import Downsample
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The measuring process: forks a child per request. Single-threaded (checked) and never decoding,
/// so every child starts alike; a child answers on a pipe of its own, so a crash breaks no framing.
public enum MeasuringServer {
    /// The subcommand's name, as `warm` registers it (and serves before any thread starts).
    public static let commandName = "measure-server"

    /// One arena (free pages elsewhere hide growth), a fixed 64 KiB mmap threshold (the dynamic one keeps
    /// freed bitmaps resident), no top pad: resident memory follows allocations.
    static func environment() -> [String: String] {
        let tunables = "glibc.malloc.arena_max=1:glibc.malloc.top_pad=0:glibc.malloc.mmap_threshold=65536"
        var environment = ProcessInfo.processInfo.environment
        environment["GLIBC_TUNABLES"] = environment["GLIBC_TUNABLES"].map { "\($0):\(tunables)" } ?? tunables
        return environment
    }

    public enum Failure: Error, CustomStringConvertible {
        case threadsRunning([String])
        case cannotStart(String)

        public var description: String {
            switch self {
            case .threadsRunning(let names):
                "the measuring process has \(names.count) threads before forking (\(names.joined(separator: ", "))); forking it would copy locks held by the others"
            case .cannotStart(let reason): "the measuring process could not start libvips: \(reason)"
            }
        }
    }

    public static func serve() throws(Failure) -> Never {
        do {
            // Each child runs one pipeline, as a decode worker does.
            try VipsRuntime.startForOnePipelineAtATime()
        } catch {
            throw .cannotStart(error.description)
        }
        let mappedFiles = ProcessMemory.mappedFileRanges()
        ProcessMemory.faultIn(mappedFiles)
        let threads = threadNames()
        guard threads.count == 1 else { throw .threadsRunning(threads) }
        exit(FrameChannel(input: 0, output: 1).serve(MeasureRequest.self) { request in
            request.map { runForked($0, faultingIn: mappedFiles) }
                ?? MeasureReply(failure: "the measuring process got an unreadable request")
        })
    }

    /// Forks a child that runs `request` and writes its reply into a pipe; waits for it.
    static func runForked(_ request: MeasureRequest, faultingIn mappedFiles: [Range<Int>]) -> MeasureReply {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return MeasureReply(failure: "pipe failed: \(String(cString: strerror(errno)))") }
        let pid = fork()
        if pid == 0 {
            close(ends[0])
            let reply = request.runHere(faultingIn: mappedFiles)
            FileDescriptorIO.writeAll(ends[1], (try? JSONEncoder().encode(reply)) ?? Data())
            _exit(0)
        }
        close(ends[1])
        guard pid > 0 else {
            close(ends[0])
            return MeasureReply(failure: "fork failed: \(String(cString: strerror(errno)))")
        }
        let output = FileDescriptorIO.readAll(ends[0])
        close(ends[0])
        // This process has one thread and nothing else to do: it waits in place.
        let status = ChildProcess.waitForExit(pid: pid)
        guard status == .exited(0) else { return MeasureReply(failure: "the measuring child \(status)") }
        guard let reply = try? JSONDecoder().decode(MeasureReply.self, from: output) else {
            return MeasureReply(failure: "the measuring child wrote no reply")
        }
        return reply
    }

    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? ["self"]
        return tasks.map { task in
            ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? task)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
