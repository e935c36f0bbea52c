import Foundation

/// What this machine offers, read in one place.
public enum Machine {
    /// The cores this process may run on: the default number of decoders, measuring processes and workers.
    public static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
}
