import ArgumentParser
import Fetch
import Foundation
import Pipeline

/// How `warm run` and `warm demo` talk to servers: how much at once, timeouts, retries, sizes and the hosts images
/// may come from (`--help`'s "Fetching").
struct FetchOptions: ParsableArguments {
    /// Defaults written once, in `WarmConfiguration.Fetching`.
    private static let defaults = WarmConfiguration.Fetching()

    @Option(help: "Downloads in flight at once.")
    var concurrency: Int = Self.defaults.concurrency

    @Option(help: "Products per list page requested from the API.")
    var itemsPerPage: Int = Self.defaults.itemsPerPage

    @Option(help: "List pages fetched at once.")
    var pageConcurrency: Int = Self.defaults.pageConcurrency

    @Option(help: "Refuse source images larger than this; a download stops there.")
    var maxImageSize = ByteCount(bytes: Self.defaults.http.maxBodyBytes)

    @Option(help: "Time allowed for one HTTP attempt, from request to last body byte (a number is seconds).")
    var requestTimeout = DurationArgument(seconds: Self.defaults.http.requestTimeoutSeconds)

    @Option(help: "Attempts per URL, the first included (retries: connection errors, timeouts, 429, 5xx).")
    var maxAttempts: Int = Self.defaults.http.maxAttempts

    @Option(help: "Time allowed for all attempts of one URL, backoff waits included (a number is seconds).")
    var fetchDeadline = DurationArgument(seconds: Self.defaults.http.deadlineSeconds)

    @Option(help: ArgumentHelp(
        "Also fetch images from this host (host, host:port or [v6]:port), even at a loopback or private address; repeatable.",
        discussion: """
            By default images come only from the API's own host and the hosts its first page names, and a named \
            host that is or resolves to a loopback, private or link-local address (127/8, 10/8, 172.16/12, \
            192.168/16, 169.254/16, ::1, fc00::/7, fe80::/10) is refused. Redirects are checked the same way. \
            A refused image fails with reason host-not-allowed and no request is made to its host.
            """))
    var allowHost: [String] = []

    @Option(help: "The User-Agent header of every request, for a CDN or firewall rule that lets the warmer through.")
    var userAgent: String = Self.defaults.http.userAgent

    func validate() throws {
        guard !userAgent.isEmpty, !userAgent.contains(where: \.isNewline) else {
            throw ValidationError("--user-agent must be one non-empty line.")
        }
        try OptionCheck.count(concurrency, in: 1...10_000, option: "--concurrency")
        try OptionCheck.count(pageConcurrency, in: 1...1000, option: "--page-concurrency")
        guard (1...1000).contains(itemsPerPage) else { throw ValidationError("--items-per-page must be between 1 and 1000.") }
        guard maxImageSize.bytes > 0 else { throw ValidationError("--max-image-size must be positive.") }
        for host in allowHost where HostPattern(parsing: host) == nil {
            throw ValidationError("--allow-host must be a host, host:port or [v6]:port, got '\(host)'.")
        }
        try OptionCheck.seconds(requestTimeout.seconds, option: "--request-timeout")
        try OptionCheck.seconds(fetchDeadline.seconds, option: "--fetch-deadline")
        try OptionCheck.count(maxAttempts, in: 1...1000, option: "--max-attempts")
    }

    /// How the run fetches; a download stops at `--max-image-size`, the same limit the decoder applies (one limit, as
    /// `--help` says: `WarmConfiguration.limits`).
    var settings: WarmConfiguration.Fetching {
        let defaults = Self.defaults.http
        let http = FetchConfiguration(
            connectTimeoutSeconds: min(defaults.connectTimeoutSeconds, requestTimeout.seconds),
            readTimeoutSeconds: min(defaults.readTimeoutSeconds, requestTimeout.seconds),
            requestTimeoutSeconds: requestTimeout.seconds, deadlineSeconds: fetchDeadline.seconds, maxAttempts: maxAttempts,
            maxBodyBytes: maxImageSize.bytes, userAgent: userAgent)
        return WarmConfiguration.Fetching(itemsPerPage: itemsPerPage, pageConcurrency: pageConcurrency, concurrency: concurrency,
                                          allowedHosts: allowHost.compactMap(HostPattern.init(parsing:)), http: http)
    }
}
