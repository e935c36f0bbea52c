import ChildProcesses
import CWarmVips
import Downsample
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The measuring process (`warm measure-server`, hidden): started once per
/// measuring run with glibc's measuring tunables (`IsolatedStrategyRun.childEnvironment()`),
/// it loads everything a measurement needs and then forks one child per
/// `MeasureRequest` read from standard input; the child runs the job and
/// exits, this process writes its `MeasureReply` as one line to standard output.
///
/// What is initialised before the fork, and why it is safe: the allocator
/// settings, libvips' `vips_init` (type system, no threads: checked, a
/// process with more than one thread refuses to fork and says so) and every
/// page of the mapped files (binary, libraries) made resident. Nothing is
/// ever decoded here, so no libvips worker thread, codec state or pixel
/// buffer exists to be inherited: each child starts from the same state, the
/// same address layout, and pays what a first decode costs besides code, as
/// an exec'd fresh process did. What the fork saves: the exec, the dynamic
/// loader and the Swift runtime start (measured 2.0-3.6 s per image over
/// seven execs before, see README).
///
/// The child writes its reply into a pipe of its own, read after it exited,
/// so that a child that crashes mid-write cannot break the framing.
public enum MeasuringServer {
    /// The subcommand's name, as `warm` registers it (and serves it before
    /// any thread starts).
    public static let commandName = "measure-server"

    /// The command line after the executable that starts a measuring process.
    static var commandLine: [String] { [commandName] }

    /// Its environment: glibc's measuring tunables from its first allocation.
    static func environment() -> [String: String] {
        ChildProcess.inheritedEnvironment(adding: IsolatedStrategyRun.childEnvironment())
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

    /// Serves requests until standard input ends.
    public static func serve() throws(Failure) -> Never {
        startWithoutAddressRandomisation()
        StrategyMeasurer.prepareProcess()
        do {
            try VipsRuntime.ensureStarted()
        } catch {
            throw .cannotStart(error.description)
        }
        ProcessMemory.faultInMappedFiles()
        let threads = threadNames()
        guard threads.count == 1 else { throw .threadsRunning(threads) }
        let input = LineReader(fd: 0)
        while let line = input.next() {
            let reply: MeasureReply
            if let request = try? JSONDecoder().decode(MeasureRequest.self, from: Data(line.utf8)) {
                reply = runForked(request)
            } else {
                reply = MeasureReply(failure: "the measuring process got an unreadable request: \(line.prefix(200))")
            }
            var out = (try? JSONEncoder().encode(reply)) ?? Data("{\"failure\":\"unencodable reply\"}".utf8)
            out.append(UInt8(ascii: "\n"))
            FileDescriptorIO.writeAll(1, out)
        }
        exit(0)
    }

    /// Set to 1 in the environment, measuring processes keep address-space randomisation.
    static let keepRandomisationVariable = "WARM_MEASURE_ASLR"

    /// Runs this process again without address-space randomisation (once:
    /// the exec'd process finds it off), unless `WARM_MEASURE_ASLR=1`.
    ///
    /// Why: with the exact peak (`PeakWatch`), one measuring process's
    /// children read the same image within 4-24 KiB, but two measuring
    /// processes differed by up to 148 KiB on the same 881x881 PNG (naive
    /// 8,776-8,924 KiB over four processes), one level per process: where
    /// the heap, stacks and mappings land moves how many pages a decode
    /// touches. Without randomisation, four processes read 8,964-8,968 KiB.
    /// What it costs: the children decode downloaded, untrusted images at
    /// predictable addresses, so a memory-safety bug in a codec is easier to
    /// exploit there; they run nothing else, hold no credentials and exit
    /// after one strategy, and `WARM_MEASURE_ASLR=1` turns this off.
    static func startWithoutAddressRandomisation() {
        guard ProcessInfo.processInfo.environment[keepRandomisationVariable] != "1" else { return }
        _ = warm_exec_self_without_aslr(CommandLine.unsafeArgv)
    }

    /// Whether this process's address space is laid out without randomisation.
    static var addressRandomisationIsOff: Bool {
        let status = (try? String(contentsOfFile: "/proc/self/personality", encoding: .utf8)) ?? ""
        guard let value = UInt32(status.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) else { return false }
        return value & 0x0040000 != 0  // ADDR_NO_RANDOMIZE
    }

    /// Forks a child that runs `request` and writes its reply into a pipe; waits for it.
    /// While the child runs, this process serves its peak watch (`PeakWatch`):
    /// it reads the child's exact resident memory at every call that can lower it.
    static func runForked(_ request: MeasureRequest) -> MeasureReply {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return MeasureReply(failure: "pipe failed: \(String(cString: strerror(errno)))") }
        // Without a channel the child measures with VmHWM (`PeakMethod.forkedProcessHighWaterMark`).
        let channel = PeakWatch.isEnabled ? PeakWatch.Channel.make() : nil
        let pid = fork()
        if pid == 0 {
            close(ends[0])
            channel?.becomeChildSide()
            let reply = request.runHere()
            FileDescriptorIO.writeAll(ends[1], (try? JSONEncoder().encode(reply)) ?? Data())
            _exit(0)
        }
        close(ends[1])
        guard pid > 0 else {
            close(ends[0])
            channel?.close()
            return MeasureReply(failure: "fork failed: \(String(cString: strerror(errno)))")
        }
        let output: Data?
        if let channel {
            output = channel.serve(child: pid, reply: ends[0])
        } else {
            output = FileDescriptorIO.readAll(ends[0])
        }
        close(ends[0])
        // This process has one thread and nothing else to do: it waits in place.
        let status = ChildProcess.waitForExit(pid: pid)
        guard status == .exited(0) else { return MeasureReply(failure: "the measuring child \(status)") }
        guard let output, let reply = try? JSONDecoder().decode(MeasureReply.self, from: output) else {
            return MeasureReply(failure: "the measuring child wrote no reply")
        }
        return reply
    }

    /// The names of this process's threads (`/proc/self/task/*/comm`).
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? ["self"]
        return tasks.map { task in
            ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? task)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

/// Reads lines from a file descriptor (no Foundation run loop, no threads).
final class LineReader {
    private let fd: Int32
    private var buffer = [UInt8]()

    init(fd: Int32) { self.fd = fd }

    func close() { _ = Glibc.close(fd) }

    /// The next line without its newline; nil at the end of input.
    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if let chunk = FileDescriptorIO.readChunk(fd) {
                buffer.append(contentsOf: chunk)
                continue
            }
            guard !buffer.isEmpty else { return nil }
            let line = String(decoding: buffer, as: UTF8.self)
            buffer.removeAll()
            return line
        }
    }
}
