import Dispatch
import Synchronization

/// Hands items to `process` on a serial queue, in order, one at a time.
/// While one is being processed at most one more waits: a newer item
/// replaces the waiting one, which counts as dropped. So memory stays
/// bounded and what gets processed is never more than about one item
/// behind what was offered.
public final class LatestFrameQueue<Item: Sendable>: Sendable {
    private let queue: DispatchQueue
    private let process: @Sendable (Item) -> Void
    private let running = DispatchGroup()
    private let state = Mutex(State())

    private struct State {
        var waiting: Item?
        var busy = false
        var dropped = 0
        var processed = 0
    }

    public init(label: String, process: @escaping @Sendable (Item) -> Void) {
        queue = DispatchQueue(label: label)
        self.process = process
    }

    /// Items replaced while waiting.
    public var dropped: Int { state.withLock { $0.dropped } }
    public var processed: Int { state.withLock { $0.processed } }

    public func offer(_ item: Item) {
        let startNow = state.withLock { state in
            guard state.busy else {
                state.busy = true
                return true
            }
            if state.waiting != nil { state.dropped += 1 }
            state.waiting = item
            return false
        }
        guard startNow else { return }
        running.enter()
        queue.async { [self] in
            var next: Item? = item
            while let current = next {
                process(current)
                next = state.withLock { state in
                    state.processed += 1
                    defer { state.waiting = nil }
                    if state.waiting == nil { state.busy = false }
                    return state.waiting
                }
            }
            running.leave()
        }
    }

    /// Waits until the waiting item, if any, has been processed too.
    public func drain() {
        running.wait()
    }
}
