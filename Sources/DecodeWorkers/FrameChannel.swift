import ChildProcesses
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Length-prefixed frames over pipes: JSON, then raw blobs so images are never base64'd. Blocking: used only by
/// the threads that own a decode worker, never on Swift's cooperative pool.
struct FrameChannel: Sendable {
    let input: Int32
    let output: Int32

    enum Failure: Error, Equatable {
        /// The other end closed its pipe (the process exited or died).
        case closed
        case timedOut
        case io(errno: Int32)
        case malformed
    }

    struct Frame {
        var json: Data
        var blobs: [Data]
    }

    func send(_ frame: Frame) throws(Failure) {
        var header = Data()
        header.appendLittleEndian(UInt32(frame.json.count))
        header.append(frame.json)
        header.appendLittleEndian(UInt32(frame.blobs.count))
        try write(header)
        for blob in frame.blobs {
            var length = Data()
            length.appendLittleEndian(UInt64(blob.count))
            try write(length)
            try write(blob)
        }
    }

    /// `deadline` bounds the whole read (nil: wait forever).
    func receive(deadline: ContinuousClock.Instant? = nil) throws(Failure) -> Frame {
        let jsonLength = Int(try read(count: 4, deadline: deadline).littleEndianInteger(as: UInt32.self))
        guard jsonLength <= 64 << 20 else { throw .malformed }
        let json = try read(count: jsonLength, deadline: deadline)
        let blobCount = Int(try read(count: 4, deadline: deadline).littleEndianInteger(as: UInt32.self))
        guard blobCount <= 1024 else { throw .malformed }
        var blobs: [Data] = []
        for _ in 0..<blobCount {
            // Checked before `Int(_:)`, which traps on a UInt64 over Int.max (a garbage or hostile stream).
            let length = try read(count: 8, deadline: deadline).littleEndianInteger(as: UInt64.self)
            guard length <= 1 << 31 else { throw .malformed }
            blobs.append(try read(count: Int(length), deadline: deadline))
        }
        return Frame(json: json, blobs: blobs)
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

extension Data {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    fileprivate func littleEndianInteger<T: FixedWidthInteger>(as type: T.Type) -> T {
        var value: T = 0
        Swift.withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: prefix(MemoryLayout<T>.size)) }
        return T(littleEndian: value)
    }
}
