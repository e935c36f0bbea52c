import ArgumentParser
import Foundation
import Logging
import Synchronization

/// swift-log to standard error, one event a line: plain text (cron and journald) or one JSON object (log pipelines),
/// at the level `WARM_LOG_LEVEL` names. The first `logger` call of a process installs the settings.
enum LogSetup {
    private static let installed = Mutex(false)

    /// What `WARM_LOG_LEVEL` and `WARM_LOG_FORMAT` say; `Entry` refuses a bad value (exit 64) before any command runs.
    static func settings(environment: [String: String]) throws(LogSettingError) -> LogSettings {
        var settings = LogSettings()
        if let text = environment[LogSettings.levelVariable] {
            guard let level = Logger.Level(rawValue: text.lowercased()) else { throw .unknownLevel(text) }
            settings.level = level
        }
        if let text = environment[LogSettings.formatVariable] {
            guard let format = LogFormat(rawValue: text.lowercased()) else { throw .unknownFormat(text) }
            settings.format = format
        }
        return settings
    }

    /// `format` (`--log-format`) wins over `WARM_LOG_FORMAT`, `level` (`--log-level`) over `WARM_LOG_LEVEL`;
    /// `defaultLevel` applies without either.
    static func logger(_ label: String = "warm", format: LogFormat? = nil, level: Logger.Level? = nil,
                       defaultLevel: Logger.Level = .info) -> Logger {
        installed.withLock { installed in
            guard !installed else { return }
            installed = true
            let settings = (try? Self.settings(environment: ProcessInfo.processInfo.environment)) ?? LogSettings()
            let (level, format) = (level ?? settings.level ?? defaultLevel, format ?? settings.format ?? .text)
            LoggingSystem.bootstrap { label in
                switch format {
                case .text:
                    var handler = StreamLogHandler.standardError(label: label)
                    handler.logLevel = level
                    return handler
                case .json:
                    return JSONLogHandler(label: label, logLevel: level)
                }
            }
        }
        return Logger(label: label)
    }
}

/// The log settings the environment gives; nil: not set there.
struct LogSettings: Sendable, Equatable {
    static let levelVariable = "WARM_LOG_LEVEL"
    static let formatVariable = "WARM_LOG_FORMAT"

    var level: Logger.Level?
    var format: LogFormat?
}

/// `--log-format` and `WARM_LOG_FORMAT`.
enum LogFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// swift-log's line: `2026-11-28T03:15:02+0000 warning warm: [Pipeline] ...`.
    case text
    /// One JSON object a line (`JSONLogHandler`).
    case json
}

/// A log setting in the environment that names nothing: a usage error, so a typo does not silently log at `info`.
enum LogSettingError: Error, CustomStringConvertible {
    case unknownLevel(String)
    case unknownFormat(String)

    var description: String {
        switch self {
        case .unknownLevel(let value):
            "\(LogSettings.levelVariable) is '\(value)', which is no log level: use one of "
                + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ") + "."
        case .unknownFormat(let value):
            "\(LogSettings.formatVariable) is '\(value)', which is no log format: use one of "
                + LogFormat.allCases.map(\.rawValue).joined(separator: ", ") + "."
        }
    }

    var reasonCode: String {
        switch self {
        case .unknownLevel: "unknown-log-level"
        case .unknownFormat: "unknown-log-format"
        }
    }
}
