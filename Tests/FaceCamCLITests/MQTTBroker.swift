import Foundation
import Testing

/// Debian's mosquitto on a free loopback port, with a configuration of the test's: started and
/// stopped by the test, as the broker a user runs.
final class MosquittoBroker {
    static let executable = URL(fileURLWithPath: "/usr/sbin/mosquitto")
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    let port: Int
    let directory: URL
    private let configuration: String
    private var process: BackgroundProcess?

    /// `configuration` is added to the listener's lines (TLS files, a password file).
    init(port: Int? = nil, configuration: String = "allow_anonymous true") throws {
        self.port = port ?? freeLoopbackPort()
        directory = try temporaryDirectory("mosquitto")
        self.configuration = configuration
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// Starts it and waits until it accepts connections.
    func start() throws {
        let file = directory.appendingPathComponent("mosquitto.conf")
        try "listener \(port) 127.0.0.1\npersistence false\nlog_dest stderr\n\(configuration)\n"
            .write(to: file, atomically: true, encoding: .utf8)
        process = try BackgroundProcess(Self.executable, ["-c", file.path])
        try #require(waitUntilListening(port: port), "mosquitto did not listen on \(port): \(process?.standardError ?? "")")
    }

    /// What it logged so far (its connections and how they ended).
    var log: String { process?.standardError ?? "" }

    /// Sends it a signal (SIGSTOP freezes it: it takes nothing and answers nothing until SIGCONT).
    func signal(_ number: Int32) {
        process?.signal(number)
    }

    /// Stops it and waits for it to end. SIGKILL: programs started from the tests inherit a mask that blocks SIGTERM.
    func stop() {
        guard let process else { return }
        process.signal(SIGKILL)
        _ = try? process.wait()
        self.process = nil
    }
}

/// mosquitto_sub on every topic, its messages (retain flag, topic, payload) read as they come.
final class MQTTSubscriber {
    struct Message {
        var retained: Bool
        var topic: String
        var payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
    }

    private let process: BackgroundProcess
    private let port: Int
    private let retainedOnly: Bool
    /// Published, not retained, to end a `retainedOnly` subscription once its retained messages are in.
    private static let end = "facecam-test/end"

    /// Subscribes to `topics` and waits until the subscription holds: a retained marker, published
    /// before, has arrived. `retainedOnly` takes what is retained, and ends at the first message that is not.
    init(port: Int, topics: [String] = ["#"], retainedOnly: Bool = false) throws {
        self.port = port
        self.retainedOnly = retainedOnly
        let marker = "facecam-test/ready"
        try Self.publish(port: port, topic: marker, message: "ready", retained: true)
        var arguments = ["-p", "\(port)", "-q", "1", "-F", "%r\t%t\t%x", "-t", marker] + topics.flatMap { ["-t", $0] }
        if retainedOnly { arguments += ["-t", Self.end, "--retained-only"] }
        process = try BackgroundProcess(URL(fileURLWithPath: "/usr/bin/mosquitto_sub"), arguments)
        try #require(wait(timeout: 10) { $0.contains { $0.topic == marker } }, "mosquitto_sub never subscribed: \(process.standardError)")
    }

    private static func publish(port: Int, topic: String, message: String, retained: Bool) throws {
        let published = try run(URL(fileURLWithPath: "/usr/bin/mosquitto_pub"),
                                ["-p", "\(port)", "-t", topic, "-m", message, "-q", "1"] + (retained ? ["-r"] : []))
        try #require(published.status == 0, "mosquitto_pub: \(published.stderr)")
    }

    /// The messages so far, the marker left out.
    var messages: [Message] { parse(process.standardOutput) }

    /// Waits until `condition` holds for the messages so far, up to `timeout` seconds.
    func wait(timeout: Double = 30, until condition: ([Message]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        repeat {
            if condition(parse(process.standardOutput, keepingMarker: true)) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }

    /// Ends the subscription; its messages. A `retainedOnly` one ends at a message published now, not retained: the broker
    /// sends it after every retained message the subscription was owed, so none is cut off, however slow the machine.
    func finish() throws -> [Message] {
        if retainedOnly {
            try Self.publish(port: port, topic: Self.end, message: "end", retained: false)
            _ = wait(timeout: 60) { _ in !process.isRunning }
        }
        if process.isRunning { process.signal(SIGKILL) }
        return parse(try process.wait().stdout)
    }

    private func parse(_ output: String, keepingMarker: Bool = false) -> [Message] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, keepingMarker || fields[1] != "facecam-test/ready" else { return nil }
            // Two hexadecimal digits a byte.
            let digits = Array(fields[2].utf8).map { UInt8(String(UnicodeScalar($0)), radix: 16) ?? 0 }
            let bytes = stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
            return Message(retained: fields[0] == "1", topic: String(fields[1]), payload: bytes)
        }
    }
}

/// A port nothing listens on now: bound to 0 and let go.
func freeLoopbackPort() -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(socket, pointer, length)
            return getsockname(socket, pointer, &length)
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts connections on the loopback `port` within 10 s.
func waitUntilListening(port: Int) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 10)
    while Date() < deadline {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        close(socket)
        if connected == 0 { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return false
}
