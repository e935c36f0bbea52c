import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Length-prefixed frames over pipes: a JSON message whose `Data` values follow it as raw blobs, so images are never
/// base64'd. Blocking: used only by the thread that owns a worker process, never on Swift's cooperative pool.
package struct FrameChannel: Sendable {
    package let input: Int32
    package let output: Int32

    package init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    package enum Failure: Error, Equatable {
        /// The other end closed its pipe (the process exited or died).
        case closed
        case timedOut
        case io(errno: Int32)
        case malformed
    }

    /// Each `Data` in `message` is written as a JSON blob index, its bytes after the JSON.
    func send<Message: Encodable>(_ message: Message) throws(Failure) {
        let blobs = Blobs()
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .custom { data, encoder in
            var index = encoder.singleValueContainer()
            try index.encode(blobs.list.withLock { $0.append(data); return $0.count - 1 })
        }
        guard let json = try? encoder.encode(message) else { throw .malformed }
        let all = blobs.list.withLock { $0 }
        try write(Self.littleEndian(UInt32(json.count)) + json + Self.littleEndian(UInt32(all.count)))
        for blob in all {
            try write(Self.littleEndian(UInt64(blob.count)))
            try write(blob)
        }
    }

    /// The `Data` values of one message, in order; a class, as the encoder's `@Sendable` hook captures it (a `Mutex`
    /// alone cannot be captured by an escaping closure).
    private final class Blobs: Sendable {
        let list = Mutex<[Data]>([])
    }

    /// `deadline` bounds the whole read (nil: wait forever); nil for a well-framed message that does not decode.
    func receive<Message: Decodable>(_ type: Message.Type,
                                             deadline: ContinuousClock.Instant? = nil) throws(Failure) -> Message? {
        let jsonLength = try integer(UInt32.self, deadline: deadline)
        guard jsonLength <= 64 << 20 else { throw .malformed }
        let json = try read(count: Int(jsonLength), deadline: deadline)
        let blobCount = try integer(UInt32.self, deadline: deadline)
        guard blobCount <= 1024 else { throw .malformed }
        let blobs = try (0..<blobCount).map { _ throws(Failure) in
            // Checked before `Int(_:)`, which traps on a UInt64 over Int.max (a garbage or hostile stream).
            let length = try integer(UInt64.self, deadline: deadline)
            guard length <= 1 << 31 else { throw .malformed }
            return try read(count: Int(length), deadline: deadline)
        }
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .custom { decoder in
            let index = try decoder.singleValueContainer().decode(Int.self)
            guard blobs.indices.contains(index) else { throw Failure.malformed }
            return blobs[index]
        }
        return try? decoder.decode(type, from: json)
    }

    /// The child's loop: answers each message (nil: one that does not decode) until the parent closes its end;
    /// returns the exit status, 0 once it closed.
    package func serve<Request: Decodable, Reply: Encodable>(_ type: Request.Type,
                                                             _ answer: (Request?) -> Reply) -> Int32 {
        while true {
            let request: Request?
            do {
                request = try receive(type)
            } catch {
                return error == .closed ? 0 : 1
            }
            guard (try? send(answer(request))) != nil else { return 1 }
        }
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, deadline: ContinuousClock.Instant?) throws(Failure) -> T {
        T(littleEndian: try read(count: MemoryLayout<T>.size, deadline: deadline).withUnsafeBytes { $0.loadUnaligned(as: T.self) })
    }

    private func write(_ data: Data) throws(Failure) {
        guard FileDescriptorIO.writeAll(output, data) else { throw errno == EPIPE ? .closed : .io(errno: errno) }
    }

    /// By hand over poll and read: each read is bounded by the request's deadline.
    private func read(count: Int, deadline: ContinuousClock.Instant?) throws(Failure) -> Data {
        var data = Data(count: count)
        guard count > 0 else { return data }
        let failure: Failure? = data.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < count {
                if let deadline {
                    let left = deadline - ContinuousClock.now
                    let milliseconds = max(0, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                    var poller = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                    let ready = poll(&poller, 1, milliseconds)
                    if ready == 0 { return .timedOut }
                    if ready < 0 {
                        if errno == EINTR { continue }
                        return .io(errno: errno)
                    }
                }
                let got = Glibc.read(input, raw.baseAddress! + offset, count - offset)
                if got > 0 {
                    offset += got
                } else if got == 0 {
                    return .closed
                } else if errno != EINTR {
                    return .io(errno: errno)
                }
            }
            return nil
        }
        if let failure { throw failure }
        return data
    }
}
