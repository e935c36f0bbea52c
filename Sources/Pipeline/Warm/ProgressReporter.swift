import Foundation
import Logging

/// What the progress display shows at one moment.
struct ProgressSnapshot: Sendable, Equatable {
    /// Fresh, revalidated, written or failed.
    var done = 0
    /// Page 1's `totalCount` at first, corrected as products share, lack or leave a thumbnail to another shard;
    /// exact once the crawl has finished (`totalIsFinal`).
    var total = 0
    var totalIsFinal = false
    var failed = 0
    /// nil: not measuring.
    var measured = 0
    var measureTotal: Int?
}

/// A bar on a terminal; otherwise log lines every `logIntervalSeconds` and tenth of the total, so cron mail and
/// journald get readable text. Owned by the `SummaryRecorder` actor.
struct ProgressReporter {
    private let logger: Logger
    private let interactive: Bool
    private let logIntervalSeconds: Double
    private let clock: @Sendable () -> Double
    private var startedAt: Double?
    private var measuringStartedAt: Double?
    private var warmEndedAt: Double?
    private var lastDrawnAt = -Double.infinity
    private var lastLoggedAt: Double?
    private var lastLoggedTenth = 0
    private var lastLine = ""
    private var drewMeasureLine = false
    private var latest = ProgressSnapshot()

    init(logger: Logger, interactive: Bool, logIntervalSeconds: Double = 10,
         clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.logger = logger
        self.interactive = interactive
        self.logIntervalSeconds = logIntervalSeconds
        self.clock = clock
    }

    /// Call it on every change and about once a second besides, so that a quiet stretch still gets its log line.
    mutating func update(_ snapshot: ProgressSnapshot) {
        let now = clock()
        latest = snapshot
        if startedAt == nil { startedAt = now }
        // Once every image is done, the warm's rate stops at what it was.
        if snapshot.totalIsFinal && snapshot.done >= snapshot.total {
            if warmEndedAt == nil { warmEndedAt = now }
        } else {
            warmEndedAt = nil
        }
        if snapshot.measureTotal != nil, measuringStartedAt == nil, snapshot.measured > 0 || snapshot.done > 0 {
            measuringStartedAt = now
        }
        // Formatted only when they may be shown: this runs for every image (bench/findings.md section 10).
        let elapsed = (warmEndedAt ?? now) - (startedAt ?? now)
        let measuring = measuringStartedAt.map { now - $0 }
        if interactive {
            guard now - lastDrawnAt >= 0.1 else { return }
            lastDrawnAt = now
            let lines = Self.lines(snapshot, elapsedSeconds: elapsed, measuringSeconds: measuring)
            var text = "\r\u{1B}[2K" + lines.warm
            if let measure = lines.measure {
                text += "\n\u{1B}[2K" + measure + "\u{1B}[1A\r"
                drewMeasureLine = true
            }
            FileHandle.standardError.write(Data(text.utf8))
            return
        }
        let tenth = Self.tenth(snapshot)
        let logDue = lastLoggedAt.map { now - $0 >= logIntervalSeconds } ?? (snapshot.done > 0 || snapshot.measured > 0)
        guard logDue || tenth > lastLoggedTenth else { return }
        let shown = Self.lines(snapshot, elapsedSeconds: elapsed, measuringSeconds: measuring)
        let text = shown.warm + (shown.measure.map { "; " + $0 } ?? "")
        guard text != lastLine || logDue else { return }
        lastLoggedAt = now
        lastLoggedTenth = max(lastLoggedTenth, tenth)
        lastLine = text
        logger.info("\(text)")
    }

    /// Warm and measuring together, 0...10.
    private static func tenth(_ snapshot: ProgressSnapshot) -> Int {
        let total = snapshot.total + (snapshot.measureTotal ?? 0)
        guard total > 0, snapshot.totalIsFinal || snapshot.total > 0 else { return 0 }
        return min(10, (snapshot.done + snapshot.measured) * 10 / total)
    }

    static func lines(_ snapshot: ProgressSnapshot, elapsedSeconds: Double, measuringSeconds: Double?) -> (warm: String, measure: String?) {
        let total = max(snapshot.total, snapshot.done)
        let width = 30
        let filled = total == 0 ? 0 : min(width, snapshot.done * width / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = total == 0 ? 0 : snapshot.done * 100 / total
        var warm = "warm [\(bar)] \(snapshot.done)/\(snapshot.totalIsFinal ? "" : "~")\(total) thumbnails (\(percent)%)"
        warm += rateAndTimeLeft(done: snapshot.done, total: total, seconds: elapsedSeconds)
        warm += ", \(snapshot.failed) failed"
        guard let measureTotal = snapshot.measureTotal else { return (warm, nil) }
        let measureAll = max(measureTotal, snapshot.measured)
        var measure = "measure \(snapshot.measured)/\(snapshot.totalIsFinal ? "" : "~")\(measureAll) images"
        measure += rateAndTimeLeft(done: snapshot.measured, total: measureAll, seconds: measuringSeconds ?? 0)
        return (warm, measure)
    }

    private static func rateAndTimeLeft(done: Int, total: Int, seconds: Double) -> String {
        guard done > 0, seconds > 0 else { return ", -/s" }
        let rate = Double(done) / seconds
        let left = Double(max(0, total - done)) / rate
        return String(format: ", %.1f/s, ", rate) + duration(left) + " left"
    }

    /// "0:42", "12:05", "1:02:03".
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, secs) = (whole / 3600, (whole % 3600) / 60, whole % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    /// One failed image or page as it happens, at info: a run within its failure budget is a good night, and a
    /// `--no-progress` run (notice and up) then writes nothing to standard error. `failedRun` repeats them when it is not.
    func failure(_ text: String) {
        if interactive { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        logger.info("\(text)")
    }

    /// A run that did not succeed names its failures at warning, unless they were already shown as they happened.
    func failedRun(_ lines: [String]) {
        guard logger.logLevel > .info else { return }
        for line in lines { logger.warning("\(line)") }
    }

    mutating func finish() {
        lastDrawnAt = -Double.infinity
        lastLoggedAt = -Double.infinity
        update(latest)
        if interactive { FileHandle.standardError.write(Data((drewMeasureLine ? "\n\n" : "\n").utf8)) }
    }
}
