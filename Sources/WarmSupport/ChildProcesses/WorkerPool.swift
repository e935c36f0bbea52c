import Foundation
import Synchronization
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Long-lived worker processes (decode workers, measuring processes), one job at a time each: one `NIOThreadPool`
/// thread per process blocks on its pipes. A process is started on first use and again after it stopped.
package final class WorkerPool: Sendable {
    package let processes: [WorkerProcess]
    private let threads: NIOThreadPool
    private let idle: Mutex<[WorkerProcess]>

    package init(command: [String], environment: [String: String], count: Int) {
        // A process that dies between jobs must not kill the parent writing to its pipe: EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        processes = (0..<max(1, count)).map { _ in WorkerProcess(command: command, environment: environment) }
        idle = Mutex(processes)
        threads = NIOThreadPool(numberOfThreads: processes.count)
        threads.start()
    }

    /// `body` on a thread of the pool with an idle process; `ifShutDown` once the pool is shut down.
    package func run<T: Sendable>(ifShutDown: T, _ body: @escaping @Sendable (WorkerProcess) -> T) async -> T {
        await BlockingWork.run(on: threads, ifShutDown: ifShutDown) { [self] in
            // As many threads as processes: a running job always finds one idle.
            guard let process = idle.withLock({ $0.popLast() }) else { return ifShutDown }
            defer { idle.withLock { $0.append(process) } }
            return body(process)
        }
    }

    /// Lets the jobs under way finish, then reaps the processes, so that the parent's resource usage includes theirs.
    package func shutdown() async {
        try? await threads.shutdownGracefully()
        for process in processes { process.stop() }
    }

    deinit {
        // NIO asserts that a pool it frees was shut down; the processes stop as they are freed.
        threads.shutdownGracefully { _ in }
    }
}

/// One worker process spoken to in frames on its standard input and output. `@unchecked Sendable`: `WorkerPool`
/// hands it to one thread at a time, and only that thread touches `child`.
package final class WorkerProcess: @unchecked Sendable {
    package let command: [String]
    private let environment: [String: String]
    private var child: (process: ChildProcess, channel: FrameChannel)?

    init(command: [String], environment: [String: String]) {
        self.command = command
        self.environment = environment
    }

    /// Why an exchange with the worker failed: it could not be started, or its channel failed.
    package enum ExchangeFailure: Error {
        case spawn(SpawnError)
        case channel(FrameChannel.Failure)
    }

    /// Sends `request` and reads one answer (nil: a frame that is not an `Answer`), the process started first when
    /// none runs. The pools' one exchange; what a failure means is theirs to say.
    package func exchange<Request: Encodable, Answer: Decodable>(
        _ request: Request, answer: Answer.Type, deadline: ContinuousClock.Instant? = nil
    ) throws(ExchangeFailure) -> Answer? {
        let channel: FrameChannel
        do { channel = try self.channel() } catch { throw .spawn(error) }
        do {
            try channel.send(request)
            return try channel.receive(Answer.self, deadline: deadline)
        } catch {
            throw .channel(error)
        }
    }

    /// The running process's channel, the process started first when none runs.
    package func channel() throws(SpawnError) -> FrameChannel {
        if let child { return child.channel }
        let process = try ChildProcess.spawn(command.first ?? "", arguments: Array(command.dropFirst()),
                                             environment: environment, standardInput: .pipe, standardOutput: .pipe)
        // Both ends exist: they were asked for.
        let channel = FrameChannel(input: process.standardOutput!, output: process.standardInput!)
        child = (process, channel)
        return channel
    }

    /// Closes its pipes (it reads the end of its input and exits) and reaps it, SIGKILLed if still running at
    /// `deadline`; nil when none ran.
    @discardableResult
    package func stop(killingAt deadline: ContinuousClock.Instant = .now + .seconds(5)) -> ExitStatus? {
        guard let child else { return nil }
        close(child.channel.output)
        close(child.channel.input)
        self.child = nil
        return child.process.waitForExit(killingAt: deadline)
    }

    deinit {
        stop()
    }
}
