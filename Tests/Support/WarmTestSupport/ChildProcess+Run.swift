import WarmSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// What a child that ran to its end left: how it ended and what it printed.
    public struct Outcome: Sendable {
        public var status: ExitStatus
        public var standardOutput: Data
        public var standardError: Data

        public var stdout: String { String(decoding: standardOutput, as: UTF8.self) }
        public var stderr: String { String(decoding: standardError, as: UTF8.self) }
    }

    /// Tests' one way to run a program to its end: `path` with exactly `environment`, in `workingDirectory` (nil:
    /// this process's), `input` on its standard input (nil: /dev/null). Standard output and error are read as they
    /// come, both at once with `poll`, so a child that fills one pipe never waits for a reader of the other. Blocks
    /// the calling thread until the child has exited: from async code, use the async form.
    public static func run(_ path: String, arguments: [String], environment: [String: String],
                           input: Data? = nil, workingDirectory: String? = nil) throws(SpawnError) -> Outcome {
        let child = try spawnForRun(path, arguments: arguments, environment: environment, input: input,
                                    workingDirectory: workingDirectory)
        return child.finish(input: input ?? Data())
    }

    /// The same, waited for on a thread of its own: neither Swift's cooperative pool nor NIO's shared thread pool
    /// (two threads on a 2-core machine) is held while a child runs, as the child may talk to a server that needs them.
    public static func run(_ path: String, arguments: [String], environment: [String: String],
                           input: Data? = nil, workingDirectory: String? = nil) async throws(SpawnError) -> Outcome {
        let child = try spawnForRun(path, arguments: arguments, environment: environment, input: input,
                                    workingDirectory: workingDirectory)
        return await onOwnThread { child.finish(input: input ?? Data()) }
    }

    /// Waits for the child's exit on a thread of its own (see the async `run`); for children started with `spawn`.
    public func waitForExit() async -> ExitStatus {
        await Self.onOwnThread { waitForExit() }
    }

    private static func spawnForRun(_ path: String, arguments: [String], environment: [String: String],
                                    input: Data?, workingDirectory: String?) throws(SpawnError) -> ChildProcess {
        // A child that exits without reading all its input must not kill this process by SIGPIPE: EPIPE instead
        // (children get the default action back: `spawn` resets it).
        if input != nil { signal(SIGPIPE, SIG_IGN) }
        return try spawn(path, arguments: arguments, environment: environment,
                         standardInput: input == nil ? .file("/dev/null") : .pipe,
                         standardOutput: .pipe, standardError: .pipe, workingDirectory: workingDirectory)
    }

    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// Writes `input`, reads standard output and error to their ends (closing every pipe end), then reaps the child.
    private func finish(input: Data) -> Outcome {
        var collected: [Int32: Data] = [:]
        var readable = [standardOutput, standardError].compactMap { $0 }
        var writable = standardInput
        var written = 0
        if let fd = writable {
            if input.isEmpty {
                close(fd)
                writable = nil
            } else {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        while !readable.isEmpty || writable != nil {
            var polled = readable.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if let writable { polled.append(pollfd(fd: writable, events: Int16(POLLOUT), revents: 0)) }
            if poll(&polled, nfds_t(polled.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in polled where entry.revents != 0 {
                if entry.fd == writable {
                    let count = input.withUnsafeBytes { write(entry.fd, $0.baseAddress! + written, input.count - written) }
                    if count > 0 { written += count }
                    if written == input.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
                        close(entry.fd)
                        writable = nil
                    }
                } else if let chunk = FileDescriptorIO.readChunk(entry.fd) {
                    collected[entry.fd, default: Data()].append(contentsOf: chunk)
                } else {
                    close(entry.fd)
                    readable.removeAll { $0 == entry.fd }
                }
            }
        }
        for fd in readable { close(fd) }
        if let writable { close(writable) }
        return Outcome(status: waitForExit(), standardOutput: standardOutput.flatMap { collected[$0] } ?? Data(),
                       standardError: standardError.flatMap { collected[$0] } ?? Data())
    }
}

extension ExitStatus {
    /// The status as a shell reports it: the exit status, or 128 + the signal that ended the process.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): 128 + signal
        }
    }
}
