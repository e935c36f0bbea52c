import Foundation

/// One keep-alive TCP connection to 127.0.0.1 that sends bytes as written (pipelined requests too) and reads answers
/// one at a time by their `Content-Length`: what a client library would hide (which connection, in which order).
final class RawConnection {
    struct Answer {
        var status: Int
        /// Header names in lower case.
        var headers: [String: String]
        var body: [UInt8]
    }

    private let fd: Int32
    private var received: [UInt8] = []

    init(port: Int, receiveTimeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw POSIXError(.EPIPE) }
            sent += count
        }
    }

    /// The next answer; nil when the server closed the connection first. Throws on the receive timeout.
    func readAnswer(head: Bool = false) throws -> Answer? {
        var headEnd: Int?
        while true {
            headEnd = received.indices.dropLast(3).first { received[$0..<$0 + 4].elementsEqual("\r\n\r\n".utf8) }
            if headEnd != nil { break }
            guard try receive() else { return nil }
        }
        let lines = String(decoding: received[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = lines[0].split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let length = head ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = headEnd! + 4
        while received.count < bodyStart + length {
            guard try receive() else { return nil }
        }
        let body = Array(received[bodyStart..<bodyStart + length])
        received.removeFirst(bodyStart + length)
        return Answer(status: status, headers: headers, body: body)
    }

    /// Sends what the server reads of `text`, stopping quietly where it stops reading.
    func sendWhileRead(_ text: String) {
        try? send(text)
    }

    /// Every byte until the server closes the connection or the receive timeout ends the wait.
    func readToClose() -> [UInt8] {
        while (try? receive()) == true {}
        defer { received.removeAll() }
        return received
    }

    /// Whether the server closed the connection: the next receive ends it (nothing else arrived).
    func isClosedByServer() throws -> Bool {
        try !receive() && received.isEmpty
    }

    /// false when the peer closed the connection.
    private func receive() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        received += buffer[0..<count]
        return count > 0
    }
}
