import ChildProcesses
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The parent's side of `MeasuringServer`: measuring processes started on first use, one job at a time
/// each; one that dies is started again for the next job.
public final class MeasuringPool: Sendable {
    public let executablePath: String
    public let processes: Int
    private let slots: [Slot]

    /// One measuring process (started on first use), used under its lock.
    private final class Slot: Sendable {
        let process = Mutex<MeasuringProcess?>(nil)
    }

    public init(executablePath: String, processes: Int) {
        self.executablePath = executablePath
        self.processes = max(1, processes)
        slots = (0..<max(1, processes)).map { _ in Slot() }
    }

    /// The replies to `requests`, in their order; the blocking pipe I/O runs
    /// on NIO's shared thread pool (`BlockingWork`), one Dispatch thread per process.
    func run(_ requests: [MeasureRequest]) async -> [MeasureReply] {
        await BlockingWork.run { self.runBlocking(requests) }
    }

    private func runBlocking(_ requests: [MeasureRequest]) -> [MeasureReply] {
        guard !requests.isEmpty else { return [] }
        let next = Mutex(0)
        let replies = Mutex([MeasureReply?](repeating: nil, count: requests.count))
        DispatchQueue.concurrentPerform(iterations: min(processes, requests.count)) { slot in
            slots[slot].process.withLock { (process: inout MeasuringProcess?) in
                while true {
                    let index: Int? = next.withLock { value in
                        guard value < requests.count else { return nil }
                        defer { value += 1 }
                        return value
                    }
                    guard let index else { return }
                    let reply = Self.ask(&process, executable: executablePath, requests[index])
                    replies.withLock { $0[index] = reply }
                }
            }
        }
        return replies.withLock { $0.map { $0 ?? MeasureReply(failure: "no measuring process answered") } }
    }

    private static func ask(_ process: inout MeasuringProcess?, executable: String, _ request: MeasureRequest) -> MeasureReply {
        if process == nil {
            do {
                process = try MeasuringProcess(executable: executable)
            } catch {
                return MeasureReply(failure: "the measuring process could not start (\(executable)): \(error)")
            }
        }
        guard let reply = process?.ask(request) else {
            process = nil  // it died; the next job starts another
            return MeasureReply(failure: "the measuring process (\(executable)) stopped answering")
        }
        return reply
    }
}

/// One `warm measure-server` process and its two pipes; used by one thread at a time (inside its pool slot's lock).
final class MeasuringProcess {
    private let child: ChildProcess
    private let requests: Int32
    private let reader: LineReader

    init(executable: String) throws(SpawnError) {
        // A measuring process that died must not take this one with it on the next write.
        signal(SIGPIPE, SIG_IGN)
        child = try ChildProcess.spawn(executable, arguments: [MeasuringServer.commandName],
                                       environment: MeasuringServer.environment(),
                                       standardInput: .pipe, standardOutput: .pipe)
        // Both ends exist: they were asked for.
        requests = child.standardInput!
        reader = LineReader(fd: child.standardOutput!)
    }

    /// Sends one request and reads its reply; nil when the process is gone.
    func ask(_ request: MeasureRequest) -> MeasureReply? {
        guard var line = try? JSONEncoder().encode(request) else { return nil }
        line.append(UInt8(ascii: "\n"))
        FileDescriptorIO.writeAll(requests, line)
        guard let answer = reader.next() else { return nil }
        return try? JSONDecoder().decode(MeasureReply.self, from: Data(answer.utf8))
    }

    deinit {
        close(requests)  // the server reads the end of its input and exits
        reader.close()
        _ = child.waitForExit()
    }
}

extension MeasuringPool: Hashable {
    public static func == (lhs: MeasuringPool, rhs: MeasuringPool) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
