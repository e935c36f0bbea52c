import Foundation
import WarmSupport
#if canImport(Glibc)
import Glibc
#endif

/// Debug only: `WARM_TEST_DECODE_LOG=PATH` appends a line per source decode (`direct|libvips HASH SIZE`, HASH the
/// source bytes' SHA-256) to PATH, from every decode worker, so a test can count decodes per image and size.
/// Release builds never read the variable.
enum DecodeCount {
    enum Engine: String { case direct, libvips }

    static func note(_ engine: Engine, _ source: ImageSource, _ target: DecodeTarget) {
        #if DEBUG
        guard let path else { return }
        let line = Array("\(engine.rawValue) \(SHA256Hex.digest(of: source.data)) \(target.longestSide)\n".utf8)
        // O_APPEND: one short write per line, so lines from several processes never interleave.
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #endif
    }

    #if DEBUG
    private static let path = ProcessInfo.processInfo.environment["WARM_TEST_DECODE_LOG"].flatMap { $0.isEmpty ? nil : $0 }
    #endif
}
