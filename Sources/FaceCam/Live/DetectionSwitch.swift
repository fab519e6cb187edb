import Foundation

/// Whether a live run detects faces now: turned off and on from outside (MQTT's command topic).
/// While it is off, frames are captured and let go: nothing is detected, written or shown.
public final class DetectionSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var on = true

    public init() {}

    public var isOn: Bool { lock.withLock { on } }

    /// Sets it; true when that changed it.
    @discardableResult
    public func set(_ value: Bool) -> Bool {
        lock.withLock {
            defer { on = value }
            return on != value
        }
    }
}
