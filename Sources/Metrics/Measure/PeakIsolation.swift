import ChildProcesses

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
    /// In children forked, one per measurement, by measuring processes that
    /// loaded everything first and never decode (`MeasuringServer`,
    /// `MeasuringPool`): the same isolation as `childProcess` without an exec
    /// per measurement (about 1 ms a fork instead of tens of ms and the
    /// faulting-in of every library); the pool's processes run that many
    /// measurements at once.
    case measuringProcesses(MeasuringPool)

    /// The running executable, as a child-process isolation (Linux: `/proc/self/exe`).
    public static func currentExecutable() -> PeakIsolation {
        .childProcess(executablePath: ChildProcess.currentExecutablePath())
    }

    /// `processes` measuring processes of the running executable.
    public static func measuringProcesses(_ processes: Int) -> PeakIsolation {
        .measuringProcesses(MeasuringPool(executablePath: ChildProcess.currentExecutablePath(), processes: processes))
    }
}
