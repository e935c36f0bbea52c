import WarmSupport
import Foundation

/// The parent's side of `MeasuringServer`: measuring processes started on first use, one job at a time
/// each; one that dies is started again for the next job.
public final class MeasuringPool: Sendable {
    private let pool: WorkerPool
    public var processes: Int { pool.processes.count }

    public init(executablePath: String, processes: Int) {
        pool = WorkerPool(command: [executablePath, MeasuringServer.commandName],
                          environment: MeasuringServer.environment(), count: processes)
    }

    /// The replies to `requests`, in their order, each from the first idle measuring process.
    func run(_ requests: [MeasureRequest]) async -> [MeasureReply] {
        let unanswered = MeasureReply(failure: "no measuring process answered")
        return await withTaskGroup(of: (Int, MeasureReply).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { [pool] in (index, await pool.run(ifShutDown: unanswered) { $0.measure(request) }) }
            }
            var replies = [MeasureReply](repeating: unanswered, count: requests.count)
            for await (index, reply) in group { replies[index] = reply }
            return replies
        }
    }
}

extension WorkerProcess {
    /// Sends one request to a `warm measure-server` process and reads its reply; one that does not answer is
    /// reaped, and the next request starts another.
    func measure(_ request: MeasureRequest) -> MeasureReply {
        do {
            if let reply = try exchange(request, answer: MeasureReply.self) { return reply }
        } catch {
            if case .spawn(let error) = error {
                return MeasureReply(failure: "the measuring process could not start (\(command[0])): \(error)")
            }
        }
        stop(killingAt: .now)
        return MeasureReply(failure: "the measuring process (\(command[0])) stopped answering")
    }
}
