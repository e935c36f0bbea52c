import Foundation
import Logging

/// Progress for people: a redrawn bar on a terminal, plain log lines (swift-log)
/// otherwise, so cron mail and journald get readable text. Failures are always
/// logged, each naming its image or page.
final class ProgressReporter: Sendable {
    private let logger: Logger
    private let interactive: Bool
    /// Non-interactive runs log progress every this many images.
    private let logEvery: Int

    init(logger: Logger, interactive: Bool = isatty(STDERR_FILENO) == 1, logEvery: Int = 250) {
        self.logger = logger
        self.interactive = interactive
        self.logEvery = logEvery
    }

    /// Redraws the bar; `finishedOne` is true when an image just finished (only
    /// then may a non-interactive run log a progress line).
    func update(done: Int, scheduled: Int, failed: Int, finishedOne: Bool) {
        if interactive {
            let width = 30
            let filled = scheduled == 0 ? 0 : min(width, done * width / scheduled)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(scheduled) thumbnails, \(failed) failed ".utf8))
        } else if finishedOne && done > 0 && done % logEvery == 0 {
            logger.info("progress", metadata: ["done": "\(done)", "scheduled": "\(scheduled)", "failed": "\(failed)"])
        }
    }

    func failure(_ text: String) {
        if interactive { FileHandle.standardError.write(Data("\r".utf8)) }
        logger.warning("\(text)")
    }

    func finish() {
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
