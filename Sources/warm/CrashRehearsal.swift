import Cache
import Foundation

/// Debug builds only: `WARM_CRASH_REHEARSAL=<fault point>` makes `warm run` wait at that step of the
/// cache, so a test's `kill -9` lands exactly there (docs/faults-and-hostile-input.md).
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
