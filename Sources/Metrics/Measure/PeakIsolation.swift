/// Where `StrategyMeasurer` measures each strategy's peak.
public enum PeakIsolation: Sendable, Hashable {
    /// In this process, between other work: cheap, but what earlier decodes
    /// left behind (free heap, libvips buffers released late, thread stacks)
    /// moves a full decode's peak by up to about 3% between runs (measured on
    /// the demo catalog), more than a renderer's canvas adds to it.
    case inProcess
    /// In a fresh child process per strategy and image: `executablePath` is
    /// run as `<executable> measure-strategy ...` (`IsolatedStrategyRun`), the
    /// child decodes the image once unmeasured, then measures it. Costs a
    /// process start (about 60 ms) and one more decode per strategy.
    case childProcess(executablePath: String)

    /// The running executable, as a child-process isolation (Linux: `/proc/self/exe`).
    public static func currentExecutable() -> PeakIsolation {
        .childProcess(executablePath: ChildProcess.currentExecutablePath())
    }
}
