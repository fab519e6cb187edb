import Dispatch
import Foundation

/// Hands items to `process` on a serial queue, in order, one at a time.
/// While one is being processed at most one more waits: a newer item
/// replaces the waiting one, which counts as dropped. So memory stays
/// bounded and what gets processed is never more than about one item
/// behind what was offered.
public final class LatestFrameQueue<Item: Sendable>: @unchecked Sendable {
    private let queue: DispatchQueue
    private let process: @Sendable (Item) -> Void
    private let running = DispatchGroup()
    private let lock = NSLock()
    // Guarded by `lock`.
    private var waiting: Item?
    private var busy = false
    private var droppedCount = 0
    private var processedCount = 0

    public init(label: String, process: @escaping @Sendable (Item) -> Void) {
        queue = DispatchQueue(label: label)
        self.process = process
    }

    /// Items replaced while waiting.
    public var dropped: Int { lock.withLock { droppedCount } }
    public var processed: Int { lock.withLock { processedCount } }

    public func offer(_ item: Item) {
        let startNow = lock.withLock {
            guard busy else {
                busy = true
                return true
            }
            if waiting != nil { droppedCount += 1 }
            waiting = item
            return false
        }
        guard startNow else { return }
        running.enter()
        queue.async { [self] in
            var next: Item? = item
            while let current = next {
                process(current)
                next = lock.withLock {
                    processedCount += 1
                    defer { waiting = nil }
                    if waiting == nil { busy = false }
                    return waiting
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
