import Foundation
import WarmSupport

/// `Retry-After`: delta-seconds or an HTTP date in any of its forms (IMF-fixdate, and the obsolete RFC 850 and
/// asctime), as seconds from `now`.
enum HTTPDate {
    static func retryAfterSeconds(_ value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds.isFinite { return max(0, seconds) }
        if let seconds = HTTPDateText.parse(trimmed) { return max(0, Double(seconds) - now.timeIntervalSince1970) }
        // DateFormatter is not Sendable; a fresh one per call is fine at the rate of Retry-After headers.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
