/// Where `StrategyMeasurer` measures each strategy's peak.
public enum PeakIsolation: Sendable, Hashable {
    /// In this process, between other work: cheap, but what earlier decodes
    /// left behind (free heap, libvips buffers released late, thread stacks)
    /// moves a full decode's peak by up to about 3% between runs (measured on
    /// the demo catalog), more than a renderer's canvas adds to it.
    case inProcess
    /// In fresh child processes, one per measurement (each repeat of each
    /// strategy on each image): `executablePath` is run as
    /// `<executable> measure-strategy ...` (`IsolatedStrategyRun`), which
    /// measures the decode straight away, with no warm-up decode. Costs a
    /// process start per measurement (about 60 ms), and this process decodes
    /// the image once more per strategy, unmeasured, for SSIM and PSNR.
    case childProcess(executablePath: String)

    /// The running executable, as a child-process isolation (Linux: `/proc/self/exe`).
    public static func currentExecutable() -> PeakIsolation {
        .childProcess(executablePath: ChildProcess.currentExecutablePath())
    }
}
