extension Duration {
    /// For summaries, metrics and timeouts that count in seconds.
    public var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
