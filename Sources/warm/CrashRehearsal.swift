import Cache
import Foundation

/// `WARM_CRASH_REHEARSAL=<fault point>` (hidden; tests and operators rehearsing
/// a crash): when the cache reaches that step (for example
/// `afterPrunedRowsDeleted`), `warm run` prints a line to stderr and stops
/// there until it is killed, so a `kill -9` lands at exactly that instant.
enum CrashRehearsal {
    static let variable = "WARM_CRASH_REHEARSAL"

    static func injector(environment: [String: String]) -> FaultInjector? {
        guard let name = environment[variable], let point = FaultPoint(rawValue: name) else { return nil }
        return { reached in
            guard reached == point else { return nil }
            FileHandle.standardError.write(Data("warm: crash rehearsal: stopped at \(point.rawValue), waiting to be killed\n".utf8))
            while true { pause() }
        }
    }
}
