import Cache
import Foundation

/// Debug builds only (docs/faults-and-hostile-input.md): with
/// `WARM_CRASH_REHEARSAL=<fault point>` (for example `afterPrunedRowsDeleted`),
/// `warm run` prints a line to stderr at that step of the cache and waits
/// there to be killed, so a test's `kill -9` lands at exactly that instant.
enum CrashRehearsal {
    static func injector(environment: [String: String]) -> FaultInjector? {
        #if DEBUG
        guard let name = environment["WARM_CRASH_REHEARSAL"], let point = FaultPoint(rawValue: name) else { return nil }
        return { reached in
            guard reached == point else { return nil }
            FileHandle.standardError.write(Data("warm: crash rehearsal: stopped at \(point.rawValue), waiting to be killed\n".utf8))
            while true { pause() }
        }
        #else
        return nil
        #endif
    }
}
