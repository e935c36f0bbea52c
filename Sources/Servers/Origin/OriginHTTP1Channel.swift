import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's `HTTP1Channel` with the origin's `ThumbnailChannelHandler` where Hummingbird offers no place for one:
/// right after NIO's HTTP/1 decoder, before the conversion to the HTTP types. A hot thumbnail is answered from NIO's
/// own request head with headers made once, so it pays neither conversion (bench/findings.md, section 23); everything
/// else goes up converted, as through `HTTP1Channel`, to Hummingbird's router. Keep `setup` in step with
/// `HTTP1Channel.setup` (Hummingbird 2.x).
struct OriginHTTP1Channel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let origin: Origin
    let idleTimeout: TimeAmount
    let maxHeaderBytes: Int

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = maxHeaderBytes
            limits.maxHeaderListSize = maxHeaderBytes
            limits.maxHeaderFieldCount = 100
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false,
                                                     withOutboundHeaderValidation: false, withEncoderConfiguration: .init(),
                                                     withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(IdleStateHandler(readTimeout: idleTimeout))
            try pipeline.addHandler(ThumbnailChannelHandler(origin: origin))
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            // No idle timeout here: Hummingbird's would not see the requests answered below it (`ThumbnailChannelHandler`).
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
