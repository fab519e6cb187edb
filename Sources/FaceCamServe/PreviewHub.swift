import FaceCam
import Foundation
import NIOCore

/// What the streaming routes carry: MJPEG parts (/stream.mjpg) or server-sent events (/events).
enum PreviewStream: Sendable {
    case mjpeg
    case events
}

/// The newest preview and record, and the clients streaming them. Publishing
/// hands each subscriber the new part and returns at once: a subscriber
/// keeps only the newest part it could not yet send (`PreviewHTTPHandler`),
/// so a slow client never holds up the publisher or the other clients.
final class PreviewHub: @unchecked Sendable {
    static let boundary = "facecamframe"

    struct Subscriber {
        var stream: PreviewStream
        var deliver: @Sendable (ByteBuffer) -> Void
        var close: @Sendable () -> Void
    }

    let maximumStreams: Int
    private let lock = NSLock()
    // Guarded by `lock`.
    private var subscribers: [Int: Subscriber] = [:]
    private var nextIdentifier = 0
    private var newestJPEG: ByteBuffer?
    private var newestPart: ByteBuffer?
    private var newestEvent: ByteBuffer?
    private var closed = false

    init(maximumStreams: Int) {
        self.maximumStreams = maximumStreams
    }

    /// The newest preview as a JPEG file, once there is one.
    var snapshot: ByteBuffer? { lock.withLock { newestJPEG } }

    /// The newest part of `stream`, to start a new client with.
    func newest(_ stream: PreviewStream) -> ByteBuffer? {
        lock.withLock {
            switch stream {
            case .mjpeg: newestPart
            case .events: newestEvent
            }
        }
    }

    var streamCount: Int { lock.withLock { subscribers.count } }

    /// Adds a streaming client; nil when `maximumStreams` are streaming already, or the hub closed.
    func subscribe(_ subscriber: Subscriber) -> Int? {
        lock.withLock {
            guard !closed, subscribers.count < maximumStreams else { return nil }
            nextIdentifier += 1
            subscribers[nextIdentifier] = subscriber
            return nextIdentifier
        }
    }

    func unsubscribe(_ identifier: Int) {
        _ = lock.withLock { subscribers.removeValue(forKey: identifier) }
    }

    /// A new preview: the snapshot, and one MJPEG part for every stream.
    func publish(jpeg: [UInt8]) {
        let header = "--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n"
        var part = ByteBuffer()
        part.reserveCapacity(header.utf8.count + jpeg.count + 2)
        part.writeString(header)
        part.writeBytes(jpeg)
        part.writeString("\r\n")
        // The snapshot is the part's JPEG bytes, sharing its storage rather than copied again.
        let file = part.getSlice(at: part.readerIndex + header.utf8.count, length: jpeg.count)
        deliver(part, to: .mjpeg) {
            newestJPEG = file
            newestPart = part
        }
    }

    /// A frame's record (one JSON object, no newline) as one server-sent event.
    func publish(record: String) {
        let event = ByteBuffer(string: "data: \(record)\n\n")
        deliver(event, to: .events) { newestEvent = event }
    }

    /// Ends every stream; later subscriptions are refused.
    func close() {
        let ending = lock.withLock {
            closed = true
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for subscriber in ending { subscriber.close() }
    }

    private func deliver(_ part: ByteBuffer, to stream: PreviewStream, updating: () -> Void) {
        let receivers = lock.withLock {
            updating()
            return subscribers.values.filter { $0.stream == stream }
        }
        for receiver in receivers { receiver.deliver(part) }
    }
}
