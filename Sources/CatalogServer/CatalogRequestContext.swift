import Hummingbird
import NIOCore

/// Hummingbird's basic request context plus the connection, so that a fault can close it.
public struct CatalogRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
