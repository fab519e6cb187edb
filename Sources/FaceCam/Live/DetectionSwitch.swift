import Synchronization

/// Whether a live run detects faces now: turned off and on from outside (MQTT's command topic).
/// While it is off, frames are captured and let go: nothing is detected, written or shown.
public final class DetectionSwitch: Sendable {
    private let on = Mutex(true)

    public init() {}

    public var isOn: Bool { on.withLock { $0 } }

    /// Sets it; true when that changed it.
    @discardableResult
    public func set(_ value: Bool) -> Bool {
        on.withLock { on in
            defer { on = value }
            return on != value
        }
    }
}
