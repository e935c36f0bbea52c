import CWarmVips
import Foundation

/// Process-wide libvips set-up (`warm_vips_init`), done once, on first use, from any thread.
public enum VipsRuntime {
    private static let started: Result<Void, DownsampleError> = {
        if warm_vips_init() != 0 {
            return .failure(.libraryUnavailable(reason: takeError()))
        }
        return .success(())
    }()

    public static func ensureStarted() throws(DownsampleError) {
        try started.get()
    }

    /// For a process that runs one pipeline at a time (a decode worker, a measuring child): libvips as those run it,
    /// ORC vector code on. Both call this, so that a measured thumbnail is the cached file byte for byte: ORC's
    /// resample rounds differently from the C one (a profiled PNG goes through libvips' resize). `warm_vips_init`
    /// leaves ORC off for the others: Debian 12's ORC 0.4.33 crashes when threads compile at once.
    public static func startForOnePipelineAtATime() throws(DownsampleError) {
        try ensureStarted()
        vips_vector_set_enabled(1)
    }

    /// The decoders this process links, with versions ("libvips 8.14.1, libjpeg-turbo 2.1.5, libpng 1.6.39, libwebp
    /// 1.2.4"): what the metrics and the baseline record, so that `warm check` never compares across them.
    public static let decoderVersions: String = {
        var text = [CChar](repeating: 0, count: 256)
        warm_decoder_versions(&text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// The libvips error buffer as one line, cleared. It is process-wide, so it may hold another image's message;
    /// callers add which image they were working on.
    static func takeError(or fallback: String = "unknown libvips error") -> String {
        guard let raw = vips_error_buffer_copy() else { return fallback }
        defer { g_free(raw) }
        var unique: [String] = []
        for line in String(cString: raw).split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty && !unique.contains(trimmed) { unique.append(trimmed) }
        }
        return unique.isEmpty ? fallback : unique.joined(separator: "; ")
    }
}
