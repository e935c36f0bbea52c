/// How `peakBytes` were measured. This version writes only `forkedProcess`; a name older versions wrote (`vmhwm`,
/// `fresh-process`, `forked-process-vmhwm`, `vips-tracked`) still reads, as a method whose peaks do not compare.
struct PeakMethod: RawRepresentable, Sendable, Codable, Hashable {
    public var rawValue: String

    init(rawValue: String) { self.rawValue = rawValue }

    static let forkedProcess = PeakMethod(rawValue: "forked-process")

    var explanation: String {
        guard self == .forkedProcess else {
            return "(older metrics) `\(rawValue)`, a method this version no longer uses; its peaks do not compare with forked-process ones"
        }
        return "in a child forked for this one strategy run from a measuring process that has loaded the code and started libvips but never decoded, the child's peak resident memory (VmHWM, reset through /proc/self/clear_refs just before the strategy) minus its resident memory (VmRSS) then"
    }
}
