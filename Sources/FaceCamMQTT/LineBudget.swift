/// How many lines a flood of messages may make: `burst` at once, then one a second, counting those held back. Anyone
/// on the broker can send commands as fast as they like; what each did is worth a line, but not thousands. A value
/// that reads no clock (`now` is given), so that its rule is tested without waiting.
struct LineBudget {
    static let burst = 5.0

    private var allowed = LineBudget.burst
    /// When `allowed` was last refilled; nil before the first line (it starts full).
    private var refilled: Double?
    /// Lines held back since the last one written.
    private(set) var heldBack = 0

    /// Whether a line may be written at `now`: nil when it is held back, else how many were held back before it.
    mutating func take(at now: Double) -> Int? {
        if let refilled { allowed = min(Self.burst, allowed + (now - refilled)) }
        refilled = now
        guard allowed >= 1 else {
            heldBack += 1
            return nil
        }
        allowed -= 1
        defer { heldBack = 0 }
        return heldBack
    }
}
