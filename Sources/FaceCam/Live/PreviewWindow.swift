#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Synchronization
internal import CFaceDetect

/// A desktop window showing the live preview (live --show), through OpenCV's
/// highgui. One thread of its own owns the window from open to close, since
/// highgui's Qt back end must be driven from one thread; it shows the newest
/// preview it was handed and drops the rest, so a slow screen slows nothing.
/// q, Q or Esc, or closing the window, sets `quitRequested`.
public final class PreviewWindow: LiveObserver, Sendable {
    public let title: String
    private struct State {
        var newest: Frame?
        var closing = false
        var quit = false
        var failureText: String?
    }
    private let state = Mutex(State())
    /// Signalled at each preview handed over and at `close`: the window's thread waits on it until the window opens.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when the window's thread has ended, and again by each `close` that saw it.
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the window's thread; the window opens at the first preview's size. Check first that
    /// a window can be shown (`PreviewWindow.problem`).
    public init(title: String) {
        self.title = title
        let thread = Thread { [self] in run() }
        thread.name = "facecam.window"
        thread.start()
    }

    deinit { close() }

    public var wantsPreviews: Bool { true }

    /// True once the user pressed q or Esc or closed the window, or the window failed.
    public var quitRequested: Bool { state.withLock { $0.quit } }

    /// Why the window failed, if it did.
    public var failure: String? { state.withLock { $0.failureText } }

    public func processed(_ result: FrameResult, latency: Double) {}

    public func preview(_ preview: Frame, of result: FrameResult) {
        state.withLock { $0.newest = preview }
        wake.signal()
    }

    /// Closes the window and waits for its thread to end.
    public func close() {
        state.withLock { $0.closing = true }
        wake.signal()
        finished.wait()
        finished.signal()
    }

    private func run() {
        var opened = false
        defer {
            if opened { cfd_window_close(title) }
            finished.signal()
        }
        while true {
            // Before the window is open there is nothing to poll: wait for a frame.
            if !opened, state.withLock({ $0.newest == nil && !$0.closing }) { wake.wait() }
            let (frame, closing): (Frame?, Bool) = state.withLock { state in
                defer { state.newest = nil }
                return (state.closing ? nil : state.newest, state.closing)
            }
            if closing { return }
            var error = cfd_error()
            if let frame {
                if !opened {
                    guard cfd_window_open(title, Int32(frame.width), Int32(frame.height), &error) == CFD_OK else {
                        return give(up: error)
                    }
                    opened = true
                }
                let status = frame.withImageView { view in cfd_window_show(title, &view, &error) }
                guard status == CFD_OK else { return give(up: error) }
            }
            guard opened else { continue }
            var key: Int32 = -1
            var visible: Int32 = 1
            guard cfd_window_poll(title, 15, &key, &visible, &error) == CFD_OK else { return give(up: error) }
            let pressed = key & 0xFF
            if visible == 0 || pressed == 27 || pressed == Int32(UInt8(ascii: "q")) || pressed == Int32(UInt8(ascii: "Q")) {
                state.withLock { $0.quit = true }
                return
            }
        }
    }

    private func give(up error: cfd_error) {
        state.withLock { state in
            state.failureText = "the preview window failed: \(error.text)"
            state.quit = true
        }
    }
}

extension PreviewWindow {
    /// Why no window can be shown here, or nil when one can: OpenCV's highgui must
    /// load (it is not linked, so that facecam needs no Qt) and an X server must answer at `display`.
    public static func problem(display: String?) -> String? {
        var error = cfd_error()
        guard cfd_window_available(&error) == CFD_OK else { return error.text }
        return Display.problem(display: display).map { $0 + ": run it in a desktop session" }
    }
}

/// The X display a window would open on.
public enum Display {
    /// Why no X display answers at `display` (DISPLAY's value), or nil when one does: a window
    /// must not be tried without one, since Qt ends the process when it cannot connect.
    public static func problem(display: String?) -> String? {
        guard let display, !display.isEmpty else { return "DISPLAY is not set" }
        guard let colon = display.lastIndex(of: ":"),
              let number = Int(display[display.index(after: colon)...].prefix { $0.isNumber }) else {
            return "DISPLAY=\(display) is not HOST:N"
        }
        let host = String(display[..<colon])
        if host.isEmpty || host == "unix" {
            let path = "/tmp/.X11-unix/X\(number)"
            // The socket in the file system, or the one X servers also bind in Linux's abstract namespace.
            if connects(unixPath: path, abstract: false) || connects(unixPath: path, abstract: true) { return nil }
            return "no X server answers at DISPLAY=\(display) (\(path))"
        }
        return connects(host: host, port: 6000 + number) ? nil : "no X server answers at DISPLAY=\(display) (\(host), TCP port \(6000 + number))"
    }

    private static func connects(unixPath path: String, abstract: Bool) -> Bool {
        let socketDescriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketDescriptor >= 0 else { return false }
        defer { close(socketDescriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(path.utf8)
        let offset = abstract ? 1 : 0
        guard name.count + offset < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in name.enumerated() { bytes[index + offset] = byte }
        }
        let length = abstract
            ? socklen_t(MemoryLayout<sa_family_t>.size + offset + name.count) : socklen_t(MemoryLayout<sockaddr_un>.size)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                (try? syscall("connect", path: path) { connect(socketDescriptor, generic, length) }) != nil
            }
        }
    }

    private static func connects(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0 else { return false }
        defer { freeaddrinfo(results) }
        var entry = results
        while let info = entry?.pointee {
            let socketDescriptor = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
            if socketDescriptor >= 0 {
                // connect waits at most SO_SNDTIMEO on Linux: an unreachable host answers "no" in 2 s.
                var limit = timeval(tv_sec: 2, tv_usec: 0)
                setsockopt(socketDescriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                let connected = (try? syscall("connect", path: host) { connect(socketDescriptor, info.ai_addr, info.ai_addrlen) }) != nil
                close(socketDescriptor)
                if connected { return true }
            }
            entry = info.ai_next
        }
        return false
    }
}
