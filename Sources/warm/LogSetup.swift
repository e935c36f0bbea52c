import Foundation
import Logging

/// swift-log writes to standard error, one plain line per event (cron and
/// journald friendly), at the level `WARM_LOG_LEVEL` names (`warm --help`).
enum LogSetup {
    private static let bootstrapped: Void = {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["WARM_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return handler
        }
    }()

    static func logger(_ label: String = "warm") -> Logger {
        _ = bootstrapped
        return Logger(label: label)
    }
}
