import Foundation
import Testing

/// live --mqtt end to end, against Debian's mosquitto started on a free loopback port and
/// mosquitto_sub as the subscriber: every topic and payload, Home Assistant's discovery checked
/// against its documented keys, commands, the last will, and a broker that is down, restarted or deaf.
@Suite(.serialized, .enabled(if: MosquittoBroker.installed, "Debian's mosquitto is not installed (make test installs it)"))
struct MQTTTests {
    static let clip = "Fixtures/video/leave-enter.avi"

    /// Home Assistant's documented configuration keys of each MQTT platform, spelt out, as its
    /// documentation lists them (home-assistant/home-assistant.io, source/_integrations/
    /// binary_sensor.mqtt.markdown, sensor.mqtt, switch.mqtt, camera.mqtt and button.mqtt, and
    /// mqtt.markdown for the device block and the availability list).
    static let common: Set<String> = [
        "availability", "availability_mode", "availability_template", "availability_topic", "device", "enabled_by_default",
        "encoding", "entity_category", "entity_picture", "icon", "json_attributes_template", "json_attributes_topic", "name",
        "object_id", "default_entity_id", "unique_id", "origin",
    ]
    static let documentedKeys: [String: Set<String>] = [
        "binary_sensor": common.union([
            "device_class", "expire_after", "force_update", "off_delay", "payload_available", "payload_not_available",
            "payload_off", "payload_on", "qos", "state_topic", "value_template",
        ]),
        "sensor": common.union([
            "device_class", "expire_after", "force_update", "last_reset_value_template", "options", "payload_available",
            "payload_not_available", "suggested_display_precision", "qos", "state_class", "state_topic", "unit_of_measurement",
            "value_template",
        ]),
        "camera": common.union(["image_encoding", "topic"]),
        "switch": common.union([
            "command_template", "command_topic", "device_class", "optimistic", "payload_available", "payload_not_available",
            "payload_off", "payload_on", "qos", "retain", "state_off", "state_on", "state_topic", "value_template",
        ]),
        "button": common.union([
            "command_template", "command_topic", "device_class", "payload_available", "payload_not_available", "payload_press",
            "qos", "retain",
        ]),
    ]
    static let requiredKeys: [String: Set<String>] = [
        "binary_sensor": ["state_topic"], "sensor": ["state_topic"], "camera": ["topic"], "switch": ["command_topic"],
        "button": ["command_topic"],
    ]
    static let deviceKeys: Set<String> = [
        "configuration_url", "connections", "hw_version", "identifiers", "manufacturer", "model", "model_id", "name",
        "serial_number", "suggested_area", "sw_version", "via_device",
    ]
    static let availabilityKeys: Set<String> = ["topic", "payload_available", "payload_not_available", "value_template"]
    static let originKeys: Set<String> = ["name", "sw_version", "support_url"]

    /// One run over a clip: availability, state on change, events as --events writes them,
    /// snapshots, and discovery configs that use Home Assistant's documented keys only; what stays
    /// retained afterwards; and --mqtt-discovery remove clearing it.
    @Test func publishesEveryTopicAndHomeAssistantDiscovery() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        let result = try facecam("live", "--source", Self.clip, "--realtime", "--events", "--mqtt", broker.url, "--name", "hall", "--mqtt-snapshot")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.first == "facecam: publishing to \(broker.url) under facecam/hall/, Home Assistant discovery under homeassistant/")
        #expect(subscriber.wait { $0.last?.topic == "facecam/hall/availability" && $0.last?.text == "offline" })
        let messages = try subscriber.finish()
        let own = messages.filter { $0.topic.hasPrefix("facecam/hall/") }
        #expect(own.first.map { "\($0.topic) \($0.text)" } == "facecam/hall/availability online")
        #expect(own.last.map { "\($0.topic) \($0.text)" } == "facecam/hall/availability offline")
        #expect(own.filter { $0.topic == "facecam/hall/detection" }.map(\.text) == ["ON"])

        // Events: the records --events writes, in order.
        let events = result.lines.filter { $0.hasPrefix("{\"event\"") }
        #expect(events.count == 4)
        #expect(own.filter { $0.topic == "facecam/hall/events" }.map(\.text) == events)
        // State: each change of the frames' face count, and of whether there is a face.
        let counts = try result.records().compactMap { ($0["faces"] as? [Any])?.count }
        let changes = counts.reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }
        #expect(changes.count >= 3)
        #expect(own.filter { $0.topic == "facecam/hall/faces" }.map(\.text) == changes.map(String.init))
        let presence = changes.map { $0 > 0 ? "ON" : "OFF" }.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(own.filter { $0.topic == "facecam/hall/present" }.map(\.text) == presence)
        // Snapshots: JPEGs of the preview, one after each face that entered at most.
        let snapshots = own.filter { $0.topic == "facecam/hall/snapshot" }
        #expect((1...2).contains(snapshots.count))
        for snapshot in snapshots {
            #expect(snapshot.payload.prefix(3) == [0xFF, 0xD8, 0xFF] && snapshot.payload.suffix(2) == [0xFF, 0xD9])
        }

        let configs = messages.filter { $0.topic.hasPrefix("homeassistant/") }
        try checkDiscovery(configs, prefix: "facecam/hall")

        // What a subscriber that comes later gets: the configs and the last state, retained.
        let retained = try MQTTSubscriber(port: broker.port, retainedOnly: true).finish()
        #expect(retained.allSatisfy { $0.retained })
        let retainedTopics = Set(retained.map(\.topic))
        #expect(retainedTopics == Set(configs.map(\.topic)).union(
            ["availability", "detection", "faces", "present", "snapshot"].map { "facecam/hall/\($0)" }))
        #expect(retained.first { $0.topic == "facecam/hall/availability" }?.text == "offline")

        let removal = try facecam("live", "--mqtt", broker.url, "--name", "hall", "--mqtt-discovery", "remove")
        #expect(removal.status == 0, "\(removal.stderr)")
        #expect(removal.errorLines == [
            "facecam: removed the Home Assistant configs and the retained state of facecam/hall from \(broker.url)"])
        let left = try MQTTSubscriber(port: broker.port, retainedOnly: true).finish()
        #expect(left.isEmpty, "still retained: \(left.map(\.topic))")
    }

    /// With --zone, each zone has its own present and count topics, published on change, and its
    /// own binary sensor and sensor in Home Assistant.
    @Test func eachZoneHasItsOwnState() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        let result = try facecam("live", "--source", Self.clip, "--realtime", "--mqtt", broker.url, "--name", "hall",
                                 "--zone", "left=0,0,320,0,320,360,0,360", "--zone", "right=320,0,640,0,640,360,320,360")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(subscriber.wait { $0.last?.text == "offline" })
        let messages = try subscriber.finish()
        for zone in ["left", "right"] {
            let counts = try result.records().compactMap { record in
                (record["faces"] as? [[String: Any]])?.filter { ($0["zones"] as? [String])?.contains(zone) == true }.count
            }
            let changes = counts.reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }
            #expect(changes.count >= 2, "\(zone): \(counts)")
            #expect(messages.filter { $0.topic == "facecam/hall/zone/\(zone)/faces" }.map(\.text) == changes.map(String.init))
            let presence = changes.map { $0 > 0 ? "ON" : "OFF" }.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
            #expect(messages.filter { $0.topic == "facecam/hall/zone/\(zone)/present" }.map(\.text) == presence)
            for (component, object, topic) in [("binary_sensor", "present_\(zone)", "present"), ("sensor", "faces_\(zone)", "faces")] {
                let config = try #require(messages.first { $0.topic == "homeassistant/\(component)/facecam_hall/\(object)/config" })
                let payload = try #require(try JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any])
                #expect(Set(payload.keys).isSubset(of: Self.documentedKeys[component]!))
                #expect(payload["state_topic"] as? String == "facecam/hall/zone/\(zone)/\(topic)")
            }
        }
    }

    /// With --recognize, each enrolled person has a presence topic and a binary sensor. leave-enter.avi shows
    /// astronaut.png's face (Collins) until frame 17 and grace_hopper.jpg's (Hopper) from frame 22, at 10
    /// frames/s; camera.png's photographer (Lovelace here) never. With a hold of 0.5 s: Collins ON, then OFF
    /// once 0.5 s pass without her face named; Hopper OFF, then ON; Lovelace OFF. The moments each changes
    /// follow from the records' own names and times by the same rule.
    /// Someone enrolled while live runs (facecam enrol in another process) is named in the frames after live sees the
    /// gallery change, without a restart, and their presence sensor appears by discovery when they are first named.
    @Test func aPersonEnrolledWhileLiveRunsIsNamedAndGetsASensor() throws {
        let directory = try temporaryDirectory("mqtt-enrolled-live")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = try RecognitionCommandTests.enrolledGallery(directory, people: [("Collins", fixture("images/astronaut.png"))])
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", Self.clip, "--realtime", "--loop", "--recognize", "--gallery", gallery, "--mqtt", broker.url,
            "--name", "door"])
        let config = "homeassistant/binary_sensor/facecam_door/person_Hopper/config"
        #expect(subscriber.wait { $0.contains { $0.topic == "facecam/door/person/Collins" } })
        #expect(!subscriber.messages.contains { $0.topic == config })
        let enrolled = try facecam("enrol", "--gallery", gallery, "Hopper", fixture("images/grace_hopper.jpg"))
        try #require(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(live.waitForErrorLine(containing: "changed: 2 people enrolled now") != nil, "\(live.standardError)")
        #expect(subscriber.wait { $0.contains { $0.topic == config } }, "\(live.standardError)")
        #expect(subscriber.wait { $0.contains { $0.topic == "facecam/door/person/Hopper" && $0.text == "ON" } })
        live.signal(SIGINT)
        let result = try live.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let named = try result.records().flatMap { ($0["faces"] as? [[String: Any]] ?? []).compactMap { $0["identity"] as? String } }
        #expect(named.contains("Hopper") && named.contains("Collins"), "\(Set(named))")
    }

    @Test func eachEnrolledPersonHasAPresenceSensor() throws {
        let directory = try temporaryDirectory("mqtt-people")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = try RecognitionCommandTests.enrolledGallery(directory)
        let enrolled = try facecam("enrol", "--gallery", gallery, "Lovelace", fixture("images/camera.png"))
        try #require(enrolled.status == 0, "\(enrolled.stderr)")
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        let result = try facecam("live", "--source", Self.clip, "--realtime", "--recognize", "--gallery", gallery,
                                 "--mqtt", broker.url, "--name", "hall", "--mqtt-person-hold", "0.5")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(subscriber.wait { $0.last?.text == "offline" })
        let messages = try subscriber.finish()
        let records = try result.records()
        for (person, expected) in [("Collins", ["ON", "OFF"]), ("Hopper", ["OFF", "ON"]), ("Lovelace", ["OFF"])] {
            let published = messages.filter { $0.topic == "facecam/hall/person/\(person)" }.map(\.text)
            #expect(published == expected, "\(person): \(published)")
            var lastNamed: Double?
            let states = records.map { record -> String in
                let time = record["time"] as! Double
                if (record["faces"] as? [[String: Any]] ?? []).contains(where: { $0["identity"] as? String == person }) { lastNamed = time }
                return lastNamed.map { time - $0 <= 0.5 } == true ? "ON" : "OFF"
            }
            #expect(states.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } } == published, "\(person): \(states)")
            let config = try #require(messages.first { $0.topic == "homeassistant/binary_sensor/facecam_hall/person_\(person)/config" })
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any])
            #expect(Set(payload.keys).isSubset(of: Self.documentedKeys["binary_sensor"]!))
            #expect(payload["state_topic"] as? String == "facecam/hall/person/\(person)" && payload["device_class"] as? String == "presence")
        }
        // --mqtt-discovery remove with --recognize clears the person sensors too.
        let removal = try facecam("live", "--mqtt", broker.url, "--name", "hall", "--recognize", "--gallery", gallery,
                                  "--mqtt-discovery", "remove")
        #expect(removal.status == 0, "\(removal.stderr)")
        let left = try MQTTSubscriber(port: broker.port, retainedOnly: true).finish()
        #expect(left.isEmpty, "still retained: \(left.map(\.topic))")
    }

    /// The discovery configs: one per entity, under homeassistant/COMPONENT/NODE/OBJECT/config,
    /// each with the documented keys only, its required ones, one device, and topics of the camera's.
    private func checkDiscovery(_ configs: [MQTTSubscriber.Message], prefix: String) throws {
        var components: [String] = []
        var uniqueIDs: Set<String> = []
        for config in configs {
            let levels = config.topic.split(separator: "/").map(String.init)
            try #require(levels.count == 5 && levels[4] == "config", "\(config.topic)")
            #expect(levels[2...3].allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } })
            let component = levels[1]
            components.append(component)
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any])
            let keys = Set(payload.keys)
            let documented = try #require(Self.documentedKeys[component], "an undocumented component: \(component)")
            #expect(keys.isSubset(of: documented), "\(component): undocumented \(keys.subtracting(documented))")
            #expect(Self.requiredKeys[component, default: []].isSubset(of: keys), "\(component) lacks a required key")
            let device = try #require(payload["device"] as? [String: Any])
            #expect(Set(device.keys).isSubset(of: Self.deviceKeys))
            #expect(device["identifiers"] as? [String] == ["facecam_hall"] && device["manufacturer"] as? String == "facecam")
            #expect(Set((payload["origin"] as? [String: Any] ?? [:]).keys).isSubset(of: Self.originKeys))
            let availability = try #require(payload["availability"] as? [[String: Any]])
            #expect(availability.first?["topic"] as? String == "\(prefix)/availability")
            for entry in availability { #expect(Set(entry.keys).isSubset(of: Self.availabilityKeys) && entry["topic"] != nil) }
            if let mode = payload["availability_mode"] as? String { #expect(["all", "any", "latest"].contains(mode)) }
            for key in ["state_topic", "command_topic", "topic"] {
                if let topic = payload[key] { #expect((topic as? String)?.hasPrefix(prefix + "/") == true) }
            }
            let uniqueID = try #require(payload["unique_id"] as? String)
            #expect(uniqueIDs.insert(uniqueID).inserted)
        }
        #expect(components.sorted() == ["binary_sensor", "button", "camera", "sensor", "switch"])
    }

    /// The command topics: detection OFF lets frames go undetected (no records) until ON; a
    /// snapshot comes on request; a payload that is neither ON nor OFF is one warning.
    @Test func commandsSwitchDetectionAndTakeSnapshots() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", Self.clip, "--realtime", "--loop", "--mqtt", broker.url, "--name", "desk", "--mqtt-snapshot"])
        #expect(subscriber.wait { $0.contains { $0.topic == "facecam/desk/faces" } })
        try publish(broker, "facecam/desk/detection/set", "OFF")
        #expect(subscriber.wait { $0.contains { $0.topic == "facecam/desk/detection" && $0.text == "OFF" } })
        // Frames go by while detection is off; how long changes only how many, which the checks below count from the output.
        Thread.sleep(forTimeInterval: 1)
        try publish(broker, "facecam/desk/detection/set", "ON")
        #expect(subscriber.wait { $0.filter { $0.topic == "facecam/desk/detection" }.map(\.text) == ["ON", "OFF", "ON"] })
        let snapshots = subscriber.messages.filter { $0.topic == "facecam/desk/snapshot" }.count
        try publish(broker, "facecam/desk/snapshot/set", "PRESS")
        #expect(subscriber.wait { $0.filter { $0.topic == "facecam/desk/snapshot" }.count > snapshots })
        try publish(broker, "facecam/desk/detection/set", "maybe")
        #expect(live.waitForErrorLine(containing: "takes ON or OFF, not maybe; ignored") != nil)
        live.signal(SIGINT)
        let result = try live.wait()
        #expect(result.status == 0, "\(result.stderr)")
        // Nothing is written of the frames let go: every record is a processed frame's, and the let-go frames, one run
        // of the capture's sequence numbers, lie between two records.
        let summary = try #require(result.errorLines.first { $0.contains("captured") }, "\(result.stderr)")
        let letGo = try #require(summary.split(separator: ";").first { $0.hasSuffix("let go while detection was switched off") }
            .flatMap { Int($0.split(separator: " ")[0]) }, "\(summary)")
        let sequences = try result.records().compactMap { $0["sequence"] as? Int }
        #expect(letGo > 0 && sequences.count == summaryCounts(result)?.processed, "\(summary)")
        #expect(zip(sequences, sequences.dropFirst()).map { $1 - $0 - 1 }.max() ?? 0 >= letGo, "\(summary)")
        #expect(result.errorLines.filter { $0.contains("MQTT: detection switched") }
            == ["facecam: MQTT: detection switched off", "facecam: MQTT: detection switched on"])
    }

    /// Anyone on the broker may flood the command topics: a 5 MB message is not copied or decoded
    /// (one line), 200 junk messages make a few lines, then one a second, with a count of the rest, and
    /// detection goes on switched on.
    @Test func commandFloodsAreBoundedAndQuiet() throws {
        let directory = try temporaryDirectory("mqtt-flood")
        defer { try? FileManager.default.removeItem(at: directory) }
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", Self.clip, "--realtime", "--loop", "--mqtt", broker.url, "--name", "desk"])
        #expect(subscriber.wait { $0.contains { $0.topic == "facecam/desk/faces" } })
        let floodStarted = Date()
        let large = directory.appendingPathComponent("large")
        try Data(repeating: UInt8(ascii: "x"), count: 5 << 20).write(to: large)
        let sent = try run(URL(fileURLWithPath: "/usr/bin/mosquitto_pub"), [
            "-p", "\(broker.port)", "-t", "facecam/desk/detection/set", "-f", large.path, "-q", "1"])
        try #require(sent.status == 0, "\(sent.stderr)")
        #expect(live.waitForErrorLine(containing: "takes a word, not a message over 1024 bytes; ignored") != nil)
        let junk = directory.appendingPathComponent("junk")
        try (0..<200).map { "junk-\($0)\n" }.joined().write(to: junk, atomically: true, encoding: .utf8)
        let flooded = try run(
            URL(fileURLWithPath: "/usr/bin/mosquitto_pub"), ["-p", "\(broker.port)", "-t", "facecam/desk/detection/set", "-l", "-q", "1"],
            input: junk)
        try #require(flooded.status == 0, "\(flooded.stderr)")
        // One more a second, until the budget (a line a second) has refilled after the flood, whenever facecam read it.
        let counted = try (0..<60).contains { _ in
            try publish(broker, "facecam/desk/detection/set", "maybe")
            return live.waitForErrorLine(containing: "more command messages since the last line", timeout: 1) != nil
        }
        #expect(counted)
        live.signal(SIGINT)
        let result = try live.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.errorLines.filter { $0.contains("detection/set takes") }
        // Five at once, then at most one a second for as long as the flood and the wait took (more on a loaded machine).
        let seconds = Date().timeIntervalSince(floodStarted)
        #expect(lines.count >= 2 && Double(lines.count) <= 5 + seconds.rounded(.up) + 1, "\(lines) in \(seconds) s")
        #expect(!subscriber.messages.contains { $0.topic == "facecam/desk/detection" && $0.text == "OFF" })
    }

    /// Killed without a goodbye, facecam leaves its last will: the broker says offline.
    @Test func theLastWillSaysOfflineAfterSIGKILL() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", Self.clip, "--realtime", "--loop", "--mqtt", broker.url, "--name", "porch"])
        #expect(subscriber.wait { $0.contains { $0.topic == "facecam/porch/availability" && $0.text == "online" } })
        live.signal(SIGKILL)
        #expect(try live.wait().status != 0)
        #expect(subscriber.wait { $0.last.map { "\($0.topic) \($0.text)" } == "facecam/porch/availability offline" })
        let retained = try MQTTSubscriber(port: broker.port, topics: ["facecam/porch/availability"], retainedOnly: true)
            .finish()
        #expect(retained.map(\.text) == ["offline"])
    }

    /// Stopped while the broker is frozen, facecam cannot have `offline` acknowledged: it leaves
    /// without a goodbye after its 2 s, so that the broker, once it wakes, publishes the last will.
    @Test func aStopWhileTheBrokerIsFrozenLeavesTheLastWill() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", Self.clip, "--realtime", "--loop", "--events", "--mqtt", broker.url, "--name", "attic"])
        #expect(subscriber.wait { $0.contains { $0.topic == "facecam/attic/faces" } })
        broker.signal(SIGSTOP)
        defer { broker.signal(SIGCONT) }
        // A few more frames and events, which the frozen broker never takes.
        Thread.sleep(forTimeInterval: 2)
        live.signal(SIGINT)
        let result = try live.wait()
        #expect(result.status == 0, "\(result.stderr)")
        broker.signal(SIGCONT)
        #expect(subscriber.wait { $0.last.map { "\($0.topic) \($0.text)" } == "facecam/attic/availability offline" })
        // No goodbye: mosquitto logs how the connection ended, and "Client ID disconnected." only for a
        // DISCONNECT, which would have voided the will.
        let deadline = Date(timeIntervalSinceNow: 10)
        var ending: String?
        while ending == nil, Date() < deadline {
            ending = broker.log.split(separator: "\n").first { $0.contains("Client facecam-attic-") && !$0.contains("New client") }.map(String.init)
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(ending != nil && ending?.hasSuffix(" disconnected.") == false, "\(broker.log)")
        let retained = try MQTTSubscriber(port: broker.port, topics: ["facecam/attic/availability"], retainedOnly: true)
            .finish()
        #expect(retained.map(\.text) == ["offline"])
    }

    /// A broker down at the start is one warning, detection goes on, and facecam connects once it
    /// is up; restarted mid-run (losing its retained messages), it gets them all again.
    @Test func aBrokerDownAtTheStartOrRestartedIsReconnected() throws {
        let broker = try MosquittoBroker()
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", Self.clip, "--realtime", "--loop", "--mqtt", broker.url, "--name", "door"])
        #expect(live.waitForErrorLine(containing: "warning: MQTT: cannot reach the broker at \(broker.url) (Connection refused)") != nil)
        // Detection goes on while the broker is away: records keep coming, however slowly a loaded machine makes them.
        let written = live.outputLines
        #expect(live.wait { live.outputLines >= written + 10 }, "detection waited for the broker: \(live.standardError)")
        for restart in 0..<2 {
            if restart == 1 {
                broker.stop()
                #expect(live.waitForErrorLine(containing: "warning: MQTT: lost the broker at \(broker.url)") != nil)
            }
            try broker.start()
            // The broker keeps nothing across a restart: what a new subscriber finds, facecam republished.
            let subscriber = try MQTTSubscriber(port: broker.port)
            let expected: Set<String> = [
                "facecam/door/availability", "facecam/door/detection", "facecam/door/faces", "facecam/door/present",
                "homeassistant/binary_sensor/facecam_door/present/config", "homeassistant/sensor/facecam_door/faces/config",
                "homeassistant/switch/facecam_door/detection/config",
            ]
            #expect(subscriber.wait { expected.isSubset(of: Set($0.map(\.topic))) }, "after start \(restart + 1): \(subscriber.messages.map(\.topic))")
            _ = try subscriber.finish()
        }
        live.signal(SIGINT)
        let result = try live.wait()
        #expect(result.status == 0, "\(result.stderr)")
        // What the broker keeps is the newest state: the last frame's count, then offline.
        let lastCount = try #require(try result.records().last { $0["faces"] != nil }?["faces"] as? [Any]).count
        let retained = try MQTTSubscriber(port: broker.port, topics: ["facecam/door/#"], retainedOnly: true).finish()
        #expect(retained.first { $0.topic == "facecam/door/faces" }?.text == String(lastCount))
        #expect(retained.first { $0.topic == "facecam/door/availability" }?.text == "offline")
        #expect(result.errorLines.filter { $0.contains("cannot reach the broker") }.count == 1)
        #expect(result.errorLines.filter { $0.contains("MQTT: connected to \(broker.url)") }.count == 2)
    }

    /// A broker that takes the connection and never reads (before or after accepting the MQTT
    /// connection) holds up nothing: frames go on being processed, events beyond what the connection holds for it are
    /// dropped and counted, and the stop waits only its grace.
    @Test(arguments: [false, true]) func aBrokerThatNeverReadsSlowsNothing(acceptsTheConnection: Bool) throws {
        let port = freeLoopbackPort()
        let script = """
            import socket, sys
            server = socket.socket()
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(("127.0.0.1", \(port)))
            server.listen(8)
            held = []
            while True:
                connection, _ = server.accept()
                if \(acceptsTheConnection ? "True" : "False"):
                    connection.recv(2)
                    connection.sendall(bytes([0x20, 0x02, 0x00, 0x00]))  # CONNACK, accepted
                held.append(connection)
            """
        let deaf = try BackgroundProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script])
        defer { deaf.signal(SIGKILL) }
        try #require(waitUntilListening(port: port))
        // Without --realtime the clip comes as fast as it decodes: events come by the dozen a second, each through the
        // connection, on the frames' thread.
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", Self.clip, "--loop", "--events", "--mqtt", "mqtt://127.0.0.1:\(port)", "--mqtt-queue", "1"])
        // The connection holds at most 17 events for a broker that takes none (16 handed over, 1 queued); 50 are three
        // times that. A publisher that waited for room, or for the broker, would hold the frames up there, and no more
        // events would be written.
        let eventsWritten = { live.standardOutput.split(separator: "\n").count { $0.hasPrefix("{\"event\"") } }
        #expect(live.wait(timeout: 120) { eventsWritten() >= 50 }, "\(eventsWritten()) events: \(live.standardError)")
        live.signal(SIGINT)
        // The stop waits 2 s for acknowledgements that never come, and 3 more at most for a connection's thread held in
        // a name lookup; a stop that waited for the broker would never end.
        let summary = live.waitForErrorLine(containing: "facecam: MQTT: the broker acknowledged", timeout: 60)
        try #require(summary != nil, "the stop waited for the broker: \(live.standardError)")
        let result = try live.wait()
        #expect(result.status == 0, "\(result.stderr)")
        // Every event is lost, and counted: beyond the queue of 1 while the run goes on, and what was still queued (or
        // handed over and never acknowledged) at the stop.
        let written = result.lines.filter { $0.hasPrefix("{\"event\"") }.count
        #expect(result.errorLines.last
            == "facecam: MQTT: the broker acknowledged 0 messages; dropped \(written) events, which it was too slow or unreachable to take",
            "\(result.stderr)")
    }

    /// With --serve, /metrics counts what the broker acknowledged and what was dropped, and says
    /// whether facecam is connected: here to a listener that never answers.
    @Test func metricsCountDroppedEvents() throws {
        let port = freeLoopbackPort()
        let deaf = try BackgroundProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import socket
            server = socket.socket()
            server.bind(("127.0.0.1", \(port)))
            server.listen(8)
            held = [server.accept() for _ in range(8)]
            """])
        try #require(waitUntilListening(port: port))
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", Self.clip, "--realtime", "--loop", "--events", "--serve", "127.0.0.1:0",
            "--mqtt", "mqtt://127.0.0.1:\(port)", "--mqtt-queue", "1"])
        let serving = try #require(live.waitForErrorLine(containing: "serving the preview at "), "\(live.standardError)")
        let url = try #require(serving.split(separator: " ").last.map(String.init))
        var metrics = ""
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
            metrics = try run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "--max-time", "5", url + "metrics"]).stdout
            if metrics.split(separator: "\n").contains(where: { $0.hasPrefix("facecam_mqtt_dropped_total ") && !$0.hasSuffix(" 0") }) { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let lines = metrics.split(separator: "\n").map(String.init)
        let dropped = try #require(lines.first { $0.hasPrefix("facecam_mqtt_dropped_total ") }.flatMap { Int($0.split(separator: " ")[1]) })
        #expect(dropped >= 1, "\(metrics)")
        #expect(lines.contains("facecam_mqtt_connected 0.0") || lines.contains("facecam_mqtt_connected 0"), "\(metrics)")
        #expect(lines.contains("facecam_mqtt_acknowledged_total 0"), "\(metrics)")
        live.signal(SIGINT)
        let result = try live.wait()
        deaf.signal(SIGKILL)
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(result.errorLines.last)
        let summed = try #require(summary.split(separator: " ").firstIndex(of: "dropped").flatMap { Int(summary.split(separator: " ")[$0 + 1]) })
        #expect(summed >= dropped, "\(summary)")
    }

    /// Credentials come from the environment or a file, never the command line, and never show in
    /// messages; wrong ones are one warning and detection goes on.
    @Test func credentialsComeFromTheEnvironmentOrAFile() throws {
        let directory = try temporaryDirectory("mqtt-credentials")
        defer { try? FileManager.default.removeItem(at: directory) }
        let passwords = directory.appendingPathComponent("passwords")
        let made = try run(URL(fileURLWithPath: "/usr/bin/mosquitto_passwd"), ["-b", "-c", passwords.path, "camera", "s3cret-word"])
        try #require(made.status == 0, "\(made.stderr)")
        let broker = try MosquittoBroker(configuration: "allow_anonymous false\npassword_file \(passwords.path)")
        try broker.start()
        let url = "mqtt://camera@127.0.0.1:\(broker.port)"
        var environment = ProcessInfo.processInfo.environment
        environment["FACECAM_MQTT_PASSWORD"] = "s3cret-word"
        let fromEnvironment = try run(facecamBinary, ["live", "--source", Self.clip, "--mqtt", url], environment: environment)
        #expect(fromEnvironment.status == 0)
        #expect(!fromEnvironment.stderr.contains("warning") && !fromEnvironment.stderr.contains("acknowledged 0 "), "\(fromEnvironment.stderr)")

        let wrong = directory.appendingPathComponent("wrong")
        try "not-it\n".write(to: wrong, atomically: true, encoding: .utf8)
        // Only the first line is read, however long the rest (20 MB here), and a pipe is a file too.
        let right = directory.appendingPathComponent("right")
        try Data("s3cret-word\r\n".utf8 + Data(repeating: UInt8(ascii: "x"), count: 20 << 20)).write(to: right)
        let fromFile = try facecam("live", "--source", Self.clip, "--mqtt", url, "--mqtt-password-file", right.path)
        #expect(fromFile.status == 0)
        #expect(!fromFile.stderr.contains("warning"), "\(fromFile.stderr)")
        let fromPipe = try run(URL(fileURLWithPath: "/bin/sh"), [
            "-c", "printf 's3cret-word\\n' | \"$0\" live --source \"$1\" --mqtt \"$2\" --mqtt-password-file /dev/stdin",
            facecamBinary.path, Self.clip, url,
        ])
        #expect(fromPipe.status == 0)
        #expect(!fromPipe.stderr.contains("warning"), "\(fromPipe.stderr)")
        let refused = try facecam("live", "--source", Self.clip, "--mqtt", url, "--mqtt-password-file", wrong.path)
        #expect(refused.status == 0)
        #expect(refused.stderr.contains("not authorised"), "\(refused.stderr)")
        #expect(refused.stderr.contains("captured 40 frames"))
        for run in [fromEnvironment, fromFile, fromPipe, refused] { #expect(!run.stderr.contains("s3cret") && !run.stderr.contains("not-it")) }
    }

    /// A password file that cannot be read is one line and 64 before anything runs, nothing printed before it; each
    /// reason's line: `BuildTests.unusableCredentialsSayWhy`.
    @Test func anUnreadablePasswordFileIsOneLine() throws {
        let directory = try temporaryDirectory("mqtt-password-file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try facecam("live", "--source", Self.clip, "--mqtt", "mqtt://camera@127.0.0.1:1", "--mqtt-password-file", directory.path)
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(result.errorLines == [
            "facecam: --mqtt-password-file \(directory.path): cannot be read (Is a directory); name a file whose first line is the password"
        ], "\(result.stderr)")
    }

    private func publish(_ broker: MosquittoBroker, _ topic: String, _ message: String) throws {
        let published = try run(URL(fileURLWithPath: "/usr/bin/mosquitto_pub"), ["-p", "\(broker.port)", "-t", topic, "-m", message, "-q", "1"])
        try #require(published.status == 0, "\(published.stderr)")
    }
}

/// mqtts:// against mosquitto with a certificate of a CA made for the test: trusted with --mqtt-ca,
/// refused (one warning that says why, detection going on) without it.
@Suite(.enabled(if: MosquittoBroker.installed && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
                "mosquitto or openssl is not installed (make test installs them)"))
struct MQTTTLSTests {
    @Test func tlsTrustsTheCertificateAuthorityGiven() throws {
        let directory = try temporaryDirectory("mqtt-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        func openssl(_ arguments: String...) throws {
            let made = try run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments)
            try #require(made.status == 0, "openssl \(arguments.joined(separator: " ")): \(made.stderr)")
        }
        let path = { directory.appendingPathComponent($0).path }
        try openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"),
                    "-days", "2", "-subj", "/CN=facecam test CA")
        try openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("broker.key"), "-out", path("broker.csr"),
                    "-subj", "/CN=127.0.0.1")
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: path("extensions"), atomically: true, encoding: .utf8)
        try openssl("x509", "-req", "-in", path("broker.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                    "-CAcreateserial", "-out", path("broker.pem"), "-days", "2", "-extfile", path("extensions"))
        // mosquitto reads its key as the mosquitto user.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path("broker.key"))
        let broker = try MosquittoBroker(configuration: """
            allow_anonymous true
            cafile \(path("ca.pem"))
            certfile \(path("broker.pem"))
            keyfile \(path("broker.key"))
            """)
        try broker.start()
        let url = "mqtts://127.0.0.1:\(broker.port)"
        let trusted = try facecam("live", "--source", MQTTTests.clip, "--mqtt", url, "--mqtt-ca", path("ca.pem"), "--name", "tls")
        #expect(trusted.status == 0)
        #expect(!trusted.stderr.contains("warning"), "\(trusted.stderr)")
        #expect(trusted.errorLines.last?.hasPrefix("facecam: MQTT: the broker acknowledged") == true
            && trusted.errorLines.last?.hasPrefix("facecam: MQTT: the broker acknowledged 0 ") == false, "\(trusted.stderr)")
        let untrusted = try facecam("live", "--source", MQTTTests.clip, "--mqtt", url, "--name", "tls")
        #expect(untrusted.status == 0)
        #expect(untrusted.errorLines.filter { $0.contains("warning") } == [
            "facecam: warning: MQTT: cannot reach the broker at \(url) (the TLS handshake failed: is the broker's certificate "
                + "signed by a CA in the system's certificates (else name it with --mqtt-ca)?); detection goes on and facecam keeps trying"])
        #expect(untrusted.stderr.contains("captured 40 frames"))
    }
}
