import CatalogServer
import Foundation
import ServiceLifecycle

/// `warm serve`'s running catalog server as a ServiceLifecycle service: it
/// runs until the `ServiceGroup` turns SIGINT or SIGTERM into a graceful
/// shutdown or, with `exitWithParent` (`warm demo`'s server), until the
/// parent process is gone, so that a killed demo does not leave its server
/// holding the port.
struct CatalogService: Service {
    let server: CatalogServer
    let exitWithParent: Bool

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await gracefulShutdown() }
            if exitWithParent {
                group.addTask {
                    let parent = getppid()
                    while getppid() == parent, !Task.isCancelled { try? await Task.sleep(for: .seconds(1)) }
                }
            }
            await group.next()
            group.cancelAll()
        }
        await server.shutdown()
    }
}
