extension Duration {
    /// The duration as a number of seconds (attosecond precision folded into a `Double`),
    /// for summaries, metrics and timeouts that count in seconds.
    public var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
