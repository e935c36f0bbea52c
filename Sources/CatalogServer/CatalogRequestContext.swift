import Hummingbird
import NIOCore

/// The catalog's request context: Hummingbird's basic one plus the
/// connection, so that a fault can close it mid-answer or without one.
public struct CatalogRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
