import FaceCam
import Foundation
import Synchronization

/// What `live --mqtt` publishes under its topic prefix P, and the commands it takes:
///
/// - P/availability: `online`, retained; `offline` as the last will and on a clean stop;
/// - P/present (`ON`/`OFF`) and P/faces (a count), retained, on change;
/// - P/person/NAME (`ON`/`OFF`), retained, on change, for each enrolled person with --recognize: on while
///   their face was named within the last `personHold` seconds;
/// - P/detection (`ON`/`OFF`), retained; P/detection/set switches detection;
/// - P/events: each enter and leave record (not retained);
/// - P/snapshot (with snapshots on): a JPEG of the preview, retained, at each enter event and on
///   any message to P/snapshot/set;
/// - Home Assistant discovery (unless turned off): retained configs under the discovery prefix.
public final class MQTTPublisher: LiveObserver, Sendable {
    public struct Settings: Sendable {
        public var topicPrefix: String
        /// The camera's name, in the device's name and the unique ids.
        public var cameraName: String
        /// Where Home Assistant looks for configs; nil publishes none.
        public var discoveryPrefix: String?
        public var snapshots: Bool
        /// The `--zone` names: each has its own present and count topics.
        public var zones: [String]
        /// The enrolled people (with --recognize): each has a presence topic.
        public var people: [String]
        /// Seconds of the source a person stays present after their face was last named, so that a face
        /// turned away for a moment does not flip the sensor.
        public var personHold: Double
        public static let defaultPersonHold = 5.0
        public var version: String

        public init(
            topicPrefix: String, cameraName: String, discoveryPrefix: String?, snapshots: Bool, zones: [String] = [],
            people: [String] = [], personHold: Double = Settings.defaultPersonHold, version: String
        ) {
            self.topicPrefix = topicPrefix
            self.cameraName = cameraName
            self.discoveryPrefix = discoveryPrefix
            self.snapshots = snapshots
            self.zones = zones
            self.people = people
            self.personHold = personHold
            self.version = version
        }

        var availability: String { topicPrefix + "/availability" }
        var present: String { topicPrefix + "/present" }
        var faces: String { topicPrefix + "/faces" }
        /// A zone's present and count topics; nil for the whole picture's.
        func present(in zone: String?) -> String { zone.map { "\(topicPrefix)/zone/\($0)/present" } ?? present }
        func faces(in zone: String?) -> String { zone.map { "\(topicPrefix)/zone/\($0)/faces" } ?? faces }
        /// A person's presence topic: their name as Home Assistant's ids allow (`HomeAssistantDiscovery.identifier`).
        func presence(of person: String) -> String { "\(topicPrefix)/person/\(HomeAssistantDiscovery.identifier(person))" }
        var detection: String { topicPrefix + "/detection" }
        var detectionCommand: String { topicPrefix + "/detection/set" }
        var events: String { topicPrefix + "/events" }
        var snapshot: String { topicPrefix + "/snapshot" }
        var snapshotCommand: String { topicPrefix + "/snapshot/set" }
        /// Home Assistant says `online` here when it starts: the configs are sent again.
        var homeAssistantStatus: String? { discoveryPrefix.map { $0 + "/status" } }
        /// The retained state topics, cleared by `--mqtt-discovery remove`.
        var stateTopics: [String] {
            [availability, present, faces, detection, snapshot] + zones.flatMap { [present(in: $0), faces(in: $0)] }
                + people.map(presence(of:))
        }
    }

    private let settings: Settings
    private let detection: DetectionSwitch
    private let report: @Sendable (String) -> Void
    private let clock: any MonotonicClock
    private let connection: MQTTConnection
    private let state: Mutex<State>

    private struct State {
        /// The last count published, for the whole picture (key nil) and each zone; none until the first frame.
        var faceCounts: [String?: Int] = [:]
        /// When each person's face was last named (source seconds), and whether each was last published present.
        var lastNamed: [String: Double] = [:]
        var peoplePresent: [String: Bool] = [:]
        /// Those with a presence topic: the people enrolled at the start, and each named since (enrolled while live ran).
        var people: [String] = []
        var snapshotWanted = false
        /// The lines command messages may still make.
        var commandLines = LineBudget()
    }

    /// Connects in the background; messages to the command topics switch `detection` and ask for snapshots.
    public init(
        connection settings: MQTTConnection.Settings, publishing: Settings, detection: DetectionSwitch,
        clock: any MonotonicClock = SystemClock(), report: @escaping @Sendable (String) -> Void
    ) throws(MQTTError) {
        self.settings = publishing
        self.detection = detection
        self.clock = clock
        self.report = report
        var connectionSettings = settings
        connectionSettings.willTopic = publishing.availability
        connectionSettings.willPayload = "offline"
        connectionSettings.subscriptions = [publishing.detectionCommand]
            + (publishing.snapshots ? [publishing.snapshotCommand] : []) + (publishing.homeAssistantStatus.map { [$0] } ?? [])
        state = Mutex(State(people: publishing.people))
        connection = try MQTTConnection(settings: connectionSettings, clock: clock, report: report)
        // First set, first sent after each connection: availability, then the configs, then the state.
        retain("online", on: publishing.availability)
        for (topic, config) in HomeAssistantDiscovery(settings: publishing).configs {
            connection.retain(config, on: topic)
        }
        retain("ON", on: publishing.detection)
        connection.start { [weak self] topic, payload in self?.command(topic: topic, payload: payload) }
    }

    public var wantsPreviews: Bool { state.withLock { $0.snapshotWanted } }

    public func processed(_ result: FrameResult, latency: Double) {
        for zone in [nil] + settings.zones.map(Optional.some) {
            let count = zone.map { zone in result.faces.filter { $0.zones?.contains(zone) == true }.count } ?? result.faces.count
            let changed: (present: Bool, count: Bool) = state.withLock { state in
                let before = state.faceCounts[zone]
                state.faceCounts[zone] = count
                return (before.map { $0 > 0 } != (count > 0), before != count)
            }
            if changed.count { retain(String(count), on: settings.faces(in: zone)) }
            if changed.present { retain(count > 0 ? "ON" : "OFF", on: settings.present(in: zone)) }
        }
        let named = Set(result.faces.compactMap { $0.identity?.name })
        let (people, newcomers) = state.withLock { state in
            let newcomers = named.subtracting(state.people).sorted()
            state.people += newcomers
            return (state.people, newcomers)
        }
        if !newcomers.isEmpty { announce(newcomers, joining: people) }
        for person in people {
            let changed: Bool? = state.withLock { state in
                if named.contains(person) { state.lastNamed[person] = result.time }
                let present = state.lastNamed[person].map { result.time - $0 <= settings.personHold } ?? false
                defer { state.peoplePresent[person] = present }
                return state.peoplePresent[person] == present ? nil : present
            }
            if let present = changed { retain(present ? "ON" : "OFF", on: settings.presence(of: person)) }
        }
    }

    public func preview(_ preview: Frame, of result: FrameResult) {
        guard wantsPreviews else { return }
        do {
            let jpeg = try JPEG.encode(preview, quality: 85)
            state.withLock { $0.snapshotWanted = false }
            connection.retain(jpeg, on: settings.snapshot)
        } catch {
            report("MQTT: cannot encode the snapshot: \(error)")
        }
    }

    /// A track event: its record to P/events, and for an enter event a snapshot.
    public func event(_ event: TrackEvent, record: String) {
        connection.send(Array(record.trimmingCharacters(in: .newlines).utf8), on: settings.events)
        if event.kind == .enter, settings.snapshots { state.withLock { $0.snapshotWanted = true } }
    }

    /// The connection's counts so far (for /metrics).
    public var counts: BrokerCounts { connection.currentCounts }

    /// Publishes `offline` and waits briefly for the broker to have everything; the summary line.
    public func close() -> String {
        let counts = connection.close(farewell: (Array("offline".utf8), settings.availability))
        // Command lines held back since the last one are counted here, since no later line will.
        let heldBack = state.withLock { $0.commandLines.heldBack }
        return "MQTT: the broker acknowledged \(counts.acknowledged) messages"
            + (counts.dropped > 0 ? "; dropped \(counts.dropped) events, which it was too slow or unreachable to take" : "")
            + (heldBack > 0 ? "; \(heldBack) command messages were not reported one by one" : "")
    }

    /// Someone enrolled while live ran, named for the first time: their presence sensor's config, when discovery is on.
    private func announce(_ newcomers: [String], joining people: [String]) {
        var before = settings
        before.people = people.filter { !newcomers.contains($0) }
        var after = settings
        after.people = people
        let known = Set(HomeAssistantDiscovery(settings: before).configs.map(\.topic))
        for (topic, config) in HomeAssistantDiscovery(settings: after).configs where !known.contains(topic) {
            connection.retain(config, on: topic)
        }
    }

    private func retain(_ text: String, on topic: String) {
        connection.retain(Array(text.utf8), on: topic)
    }

    /// Reports what a command message did or why it was ignored, within the `LineBudget`, saying how many were held back.
    private func reportCommand(_ line: String) {
        let now = clock.now
        guard let heldBack = state.withLock({ $0.commandLines.take(at: now) }) else { return }
        report(line + (heldBack > 0 ? " (\(heldBack) more command messages since the last line)" : ""))
    }

    private func command(topic: String, payload: [UInt8]?) {
        guard let payload else {
            return reportCommand("warning: MQTT: \(topic) takes a word, not a message over \(MQTTConnection.longestMessage) bytes; ignored")
        }
        let text = String(decoding: payload, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        switch topic {
        case settings.detectionCommand:
            switch text.uppercased() {
            case "ON", "OFF":
                let on = text.uppercased() == "ON"
                guard detection.set(on) else { return }
                reportCommand("MQTT: detection switched \(on ? "on" : "off")")
                if on {
                    // The next frame publishes the counts and presences afresh.
                    state.withLock { state in
                        state.faceCounts = [:]
                        state.peoplePresent = [:]
                    }
                }
                retain(on ? "ON" : "OFF", on: settings.detection)
            default:
                // The payload is anyone's: shown printable only, and short.
                let shown = String(text.prefix(40).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0.isPunctuation || $0.isSymbol || $0 == " ") ? $0 : "?" })
                reportCommand("warning: MQTT: \(topic) takes ON or OFF, not \(shown); ignored")
            }
        case settings.snapshotCommand:
            state.withLock { $0.snapshotWanted = true }
        case settings.homeAssistantStatus:
            if text == "online" {
                // With the people named since the start (enrolled while live ran).
                var current = settings
                current.people = state.withLock { $0.people }
                for (topic, config) in HomeAssistantDiscovery(settings: current).configs { connection.retain(config, on: topic) }
            }
        default:
            break
        }
    }

    /// `--mqtt-discovery remove`: clears the configs and the retained state at the broker. False
    /// when the broker did not acknowledge them all within `timeout` seconds.
    public static func removeDiscovery(
        connection settings: MQTTConnection.Settings, publishing: Settings, timeout: Double, clock: any MonotonicClock,
        report: @escaping @Sendable (String) -> Void
    ) throws(MQTTError) -> Bool {
        let connection = try MQTTConnection(settings: settings, clock: clock, report: report)
        var everything = publishing
        everything.snapshots = true
        let topics = HomeAssistantDiscovery(settings: everything).configs.map(\.topic) + publishing.stateTopics
        for topic in topics { connection.retain([], on: topic) }
        connection.start()
        let delivered = connection.waitUntilDelivered(timeout: timeout)
        _ = connection.close()
        return delivered
    }
}
