import FaceCam
import Foundation
import NIOCore
import Synchronization

/// What the streaming routes carry: MJPEG parts (/stream.mjpg) or server-sent events (/events).
enum PreviewStream: Sendable {
    case mjpeg
    case events
}

/// The newest preview and record, and the clients streaming them. Publishing
/// hands each subscriber the new part and returns at once: a subscriber
/// keeps only the newest part it could not yet send (`PreviewHTTPHandler`),
/// so a slow client never holds up the publisher or the other clients.
final class PreviewHub: Sendable {
    static let boundary = "facecamframe"

    struct Subscriber {
        var stream: PreviewStream
        var deliver: @Sendable (ByteBuffer) -> Void
        var close: @Sendable () -> Void
    }

    let maximumStreams: Int
    private let state = Mutex(State())

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextIdentifier = 0
        var newestJPEG: ByteBuffer?
        var newestPart: ByteBuffer?
        var newestEvent: ByteBuffer?
        var closed = false
    }

    init(maximumStreams: Int) {
        self.maximumStreams = maximumStreams
    }

    /// The newest preview as a JPEG file, once there is one.
    var snapshot: ByteBuffer? { state.withLock { $0.newestJPEG } }

    /// The newest part of `stream`, to start a new client with.
    func newest(_ stream: PreviewStream) -> ByteBuffer? {
        state.withLock { state in
            switch stream {
            case .mjpeg: state.newestPart
            case .events: state.newestEvent
            }
        }
    }

    var streamCount: Int { state.withLock { $0.subscribers.count } }

    /// Adds a streaming client; nil when `maximumStreams` are streaming already, or the hub closed.
    func subscribe(_ subscriber: Subscriber) -> Int? {
        state.withLock { state in
            guard !state.closed, state.subscribers.count < maximumStreams else { return nil }
            state.nextIdentifier += 1
            state.subscribers[state.nextIdentifier] = subscriber
            return state.nextIdentifier
        }
    }

    func unsubscribe(_ identifier: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: identifier) }
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
        deliver(part, to: .mjpeg) { state in
            state.newestJPEG = file
            state.newestPart = part
        }
    }

    /// A frame's record (one JSON object, no newline) as one server-sent event.
    func publish(record: String) {
        let event = ByteBuffer(string: "data: \(record)\n\n")
        deliver(event, to: .events) { $0.newestEvent = event }
    }

    /// Ends every stream; later subscriptions are refused.
    func close() {
        let ending = state.withLock { state in
            state.closed = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in ending { subscriber.close() }
    }

    private func deliver(_ part: ByteBuffer, to stream: PreviewStream, updating: (inout State) -> Void) {
        let receivers = state.withLock { state in
            updating(&state)
            return state.subscribers.values.filter { $0.stream == stream }
        }
        for receiver in receivers { receiver.deliver(part) }
    }
}
