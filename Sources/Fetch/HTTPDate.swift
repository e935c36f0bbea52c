import Foundation
import WarmSupport

/// The HTTP date forms a server may put in `Retry-After` (IMF-fixdate, and the obsolete RFC 850 and asctime).
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        if let seconds = HTTPDateText.parse(text) { return Date(timeIntervalSince1970: Double(seconds)) }
        let formats = ["EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]
        // DateFormatter is not Sendable; a fresh one per call is fine at the rate of Retry-After headers.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in formats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text.trimmingCharacters(in: .whitespaces)) { return date }
        }
        return nil
    }

    /// Delta-seconds or an HTTP date, as seconds from `now`.
    static func retryAfterSeconds(_ value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds.isFinite { return max(0, seconds) }
        guard let date = parse(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
