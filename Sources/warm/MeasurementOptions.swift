import ArgumentParser
import WarmMetrics

/// Where the measuring commands measure each strategy's peak.
struct MeasurementOptions: ParsableArguments {
    @Flag(help: """
        Measure peaks in this process instead of one fresh child process per strategy and image \
        (faster, noisier: what earlier decodes left behind moves a peak by up to about 3%).
        """)
    var measureInProcess = false

    var isolation: PeakIsolation {
        measureInProcess ? .inProcess : .currentExecutable()
    }
}
