/// How `peakBytes` were measured: only `forkedProcess` is written; the others are read from older files.
public enum PeakMethod: String, Sendable, Codable, Hashable, CaseIterable {
    case forkedProcess = "forked-process"
    case residentHighWaterMark = "vmhwm"
    case freshProcess = "fresh-process"
    case forkedProcessHighWaterMark = "forked-process-vmhwm"
    case vipsTracked = "vips-tracked"

    public var explanation: String {
        switch self {
        case .forkedProcess:
            return "in a child forked for this one strategy run from a measuring process that has loaded the code and started libvips but never decoded, the child's peak resident memory (VmHWM, reset through /proc/self/clear_refs just before the strategy) minus its resident memory (VmRSS) then"
        case .residentHighWaterMark:
            return "(older metrics) VmHWM minus VmRSS before the strategy, in the measuring process itself"
        case .freshProcess:
            return "(older metrics) VmHWM minus VmRSS before the strategy, in a fresh process run for it"
        case .forkedProcessHighWaterMark:
            return "(older metrics) VmHWM minus VmRSS before the strategy, in a forked child"
        case .vipsTracked:
            return "(older metrics) libvips' tracked pixel memory, a lower bound"
        }
    }
}
