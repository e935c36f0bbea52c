import ArgumentParser
import Fetch
import Foundation

/// How `warm run` and `warm demo` talk to servers: timeouts, retries and the
/// hosts images may come from.
struct FetchOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Also fetch images from this host (host, host:port or [v6]:port), even at a loopback or private address; repeatable.",
        discussion: """
            By default images come only from the API's own host and the hosts its first page names, and a named \
            host that is or resolves to a loopback, private or link-local address (127/8, 10/8, 172.16/12, \
            192.168/16, 169.254/16, ::1, fc00::/7, fe80::/10) is refused. Redirects are checked the same way. \
            A refused image fails with reason host-not-allowed and no request is made to its host.
            """))
    var allowHost: [String] = []

    @Option(help: "Seconds allowed for one HTTP attempt, from request to last body byte.")
    var requestTimeout: Double = FetchConfiguration().requestTimeoutSeconds

    @Option(help: "Attempts per URL, the first included (retries: connection errors, timeouts, 429, 5xx).")
    var maxAttempts: Int = FetchConfiguration().maxAttempts

    @Option(help: "Seconds allowed for all attempts of one URL, backoff waits included.")
    var fetchDeadline: Double = FetchConfiguration().deadlineSeconds

    func validate() throws {
        for host in allowHost where HostPattern(parsing: host) == nil {
            throw ValidationError("--allow-host must be a host, host:port or [v6]:port, got '\(host)'.")
        }
        try OptionCheck.seconds(requestTimeout, option: "--request-timeout")
        try OptionCheck.seconds(fetchDeadline, option: "--fetch-deadline")
        try OptionCheck.count(maxAttempts, in: 1...1000, option: "--max-attempts")
    }

    var allowedHosts: [HostPattern] { allowHost.compactMap(HostPattern.init(parsing:)) }

    /// The fetch settings; a download stops at `maxBodyBytes` (`--max-image-size`, when lower than the default).
    func configuration(maxBodyBytes: Int) -> FetchConfiguration {
        let defaults = FetchConfiguration()
        return FetchConfiguration(
            connectTimeoutSeconds: min(defaults.connectTimeoutSeconds, requestTimeout),
            readTimeoutSeconds: min(defaults.readTimeoutSeconds, requestTimeout),
            requestTimeoutSeconds: requestTimeout, deadlineSeconds: fetchDeadline, maxAttempts: maxAttempts,
            maxBodyBytes: min(defaults.maxBodyBytes, maxBodyBytes))
    }
}
