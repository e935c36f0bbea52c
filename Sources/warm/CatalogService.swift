import CatalogServer
import Foundation
import ServiceLifecycle

/// `warm serve`'s running catalog server as a ServiceLifecycle service: it
/// runs until the `ServiceGroup` turns SIGINT or SIGTERM into a graceful
/// shutdown or, with `parentPID` (`warm demo`'s server), until that process
/// is no longer its parent, so that a killed demo does not leave its server
/// holding the port. The pid comes from the parent's command line: one read
/// here could already see the reaper, if the demo died during start-up.
struct CatalogService: Service {
    let server: CatalogServer
    let parentPID: pid_t?

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await gracefulShutdown() }
            if let parentPID {
                group.addTask {
                    while getppid() == parentPID, !Task.isCancelled { try? await Task.sleep(for: .seconds(1)) }
                }
            }
            await group.next()
            group.cancelAll()
        }
        await server.shutdown()
    }
}
