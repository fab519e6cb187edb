import ArgumentParser
import FaceCam
import FaceCamMQTT
import Foundation

extension MQTTOptions.Discovery: ExpressibleByArgument {}

/// live --mqtt: the broker, the topics, Home Assistant discovery. Credentials come from a file or the
/// environment, never the command line, which `ps` shows to every user.
struct MQTTOptions: ParsableArguments {
    enum Discovery: String, CaseIterable {
        /// Publish Home Assistant's configs, retained.
        case on
        case off
        /// Clear the configs and the retained state at the broker, then end.
        case remove
    }

    @Option(help: ArgumentHelp(
        "Publish faces and events to this MQTT broker and take commands from it: mqtt://[USER@]HOST[:PORT] "
            + "(\(MQTTEndpoint.defaultPort)), or mqtts://... (TLS, \(MQTTEndpoint.defaultTLSPort)). The password comes from --mqtt-password-file or FACECAM_MQTT_PASSWORD, the user "
            + "also from FACECAM_MQTT_USERNAME. A broker that is down is retried in the background; detection never waits.",
        valueName: "URL"))
    var mqtt: String?

    @Option(help: ArgumentHelp(
        "The camera's name, in the topics and in Home Assistant (default: the device's name, \(Self.cameraName(given: nil, device: Live.defaultDevice, source: nil)), or the --source file's).",
        valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("The prefix of every topic (default: \(Self.defaultTopicPrefix(cameraName: "NAME"))).", valueName: "prefix"))
    var mqttTopic: String?

    @Option(help: ArgumentHelp("A file whose first line is the broker's password.", valueName: "file"))
    var mqttPasswordFile: String?

    @Option(help: ArgumentHelp("With mqtts://, the CA certificates to trust (PEM; default: the system's).", valueName: "file"))
    var mqttCa: String?

    @Option(name: .customLong("mqtt-discovery"), help: ArgumentHelp(
        "Home Assistant discovery: on (retained configs for a face-present sensor, a face count and a detection switch), "
            + "off, or remove (clear the configs and the retained state, with --recognize the enrolled people's sensors too, within "
            + "--timeout, then end) "
            + "(default: \(Self.defaultDiscovery.rawValue)).",
        valueName: "on|off|remove"))
    var mqttDiscoveryGiven: Discovery?

    static let defaultDiscovery = Discovery.on
    var mqttDiscovery: Discovery { mqttDiscoveryGiven ?? Self.defaultDiscovery }

    @Option(name: .customLong("mqtt-discovery-prefix"), help: ArgumentHelp("Where Home Assistant looks for discovery configs (default: \(Self.defaultDiscoveryPrefix)).", valueName: "prefix"))
    var mqttDiscoveryPrefixGiven: String?

    /// Home Assistant's own default.
    static let defaultDiscoveryPrefix = "homeassistant"
    var mqttDiscoveryPrefix: String { mqttDiscoveryPrefixGiven ?? Self.defaultDiscoveryPrefix }

    @Flag(help: ArgumentHelp("Publish a JPEG of the preview (outlined, or hidden with --redact) to PREFIX/snapshot at each face "
        + "entering and on request (PREFIX/snapshot/set); with discovery, a camera and a button in Home Assistant."))
    var mqttSnapshot = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "How many events wait while the broker is unreachable or slow (default: \(MQTTConnection.Settings.defaultQueueCapacity)); more are dropped, counted in the "
            + "summary and /metrics. The retained state keeps only its newest value and is sent on reconnection.",
        valueName: "N"))
    var mqttQueue: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --recognize: seconds of video a person's presence (PREFIX/person/NAME, and with discovery a binary sensor) "
            + "stays ON after their face was last named (default: \(decimal(MQTTPublisher.Settings.defaultPersonHold))).",
        valueName: "S"))
    var mqttPersonHold: Double?

    func validate() throws {
        guard let mqtt else {
            let given: [(String, Bool)] = [
                ("--mqtt-topic", mqttTopic != nil), ("--mqtt-password-file", mqttPasswordFile != nil), ("--mqtt-ca", mqttCa != nil),
                ("--mqtt-discovery", mqttDiscoveryGiven != nil),
                ("--mqtt-discovery-prefix", mqttDiscoveryPrefixGiven != nil), ("--mqtt-snapshot", mqttSnapshot),
                ("--mqtt-queue", mqttQueue != nil), ("--mqtt-person-hold", mqttPersonHold != nil),
            ]
            if let option = given.first(where: \.1)?.0 { throw ValidationError("\(option) goes with --mqtt URL") }
            return
        }
        let endpoint: MQTTEndpoint
        do {
            endpoint = try MQTTEndpoint(parsing: mqtt)
        } catch {
            throw ValidationError("--mqtt: \(error.description)"
                + (error.holdsPassword ? ": put it in a file named by --mqtt-password-file, or in FACECAM_MQTT_PASSWORD" : ""))
        }
        if let mqttQueue, !(1...100_000).contains(mqttQueue) { throw ValidationError("--mqtt-queue must be from 1 to 100000") }
        if let mqttPersonHold, !(0...86_400).contains(mqttPersonHold) {
            throw ValidationError("--mqtt-person-hold must be from 0 to 86400 seconds")
        }
        if mqttCa != nil, !endpoint.tls { throw ValidationError("--mqtt-ca is for TLS: write the broker as mqtts://") }
        for (option, value) in [("--name", name), ("--mqtt-topic", mqttTopic), ("--mqtt-discovery-prefix", mqttDiscoveryPrefix)] {
            if let value, let problem = Self.topicProblem(value) { throw ValidationError("\(option): \(problem)") }
        }
        if let name { try Self.validateTopicLevel(name, option: "--name") }
        if let mqttTopic {
            guard !mqttTopic.isEmpty, !mqttTopic.hasPrefix("/"), !mqttTopic.hasSuffix("/"), !mqttTopic.hasPrefix("$"),
                  !mqttTopic.contains("+"), !mqttTopic.contains("#"), !mqttTopic.contains("//"),
                  !mqttTopic.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ValidationError("--mqtt-topic \(mqttTopic): a prefix is levels joined by /, without + or #, not "
                    + "starting with $ (the broker's own topics), without a / at either end, such as facecam/hall")
            }
        }
        try Self.validateTopicLevel(mqttDiscoveryPrefix, option: "--mqtt-discovery-prefix")
    }

    /// The most bytes --name, --mqtt-topic or --mqtt-discovery-prefix may have: topics and client ids
    /// are built of them, and a topic has 65,535 bytes at most.
    static let longestTopicPart = 1024

    /// Why libmosquitto would refuse topics built on `text`, or nil: too long, or holding a character
    /// MQTT's strings exclude (controls, U+0080 to U+009F, non-characters).
    static func topicProblem(_ text: String) -> String? {
        if text.utf8.count > longestTopicPart {
            return "\(text.utf8.count) bytes is longer than the \(longestTopicPart) MQTT topics can be built on: give a shorter one"
        }
        let excluded = text.unicodeScalars.first { scalar in
            let value = scalar.value
            return value < 0x20 || (0x7F...0x9F).contains(value) || (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE
        }
        guard let excluded else { return nil }
        let hex = String(excluded.value, radix: 16, uppercase: true)
        return "holds U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex), which MQTT does not allow in a topic: choose another"
    }

    private static func validateTopicLevel(_ text: String, option: String) throws {
        guard !text.isEmpty, !text.contains("/"), !text.contains("+"), !text.contains("#"), !text.hasPrefix("$"),
              !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ValidationError("\(option) \(text): one topic level is needed: not empty, without /, + or #, not starting with $")
        }
    }

    static func defaultTopicPrefix(cameraName: String) -> String { "facecam/\(cameraName)" }

    /// `people`: the enrolled people, each given a presence topic (with --recognize).
    func publishing(cameraName: String, zones: [String], people: [String]) -> MQTTPublisher.Settings {
        MQTTPublisher.Settings(
            topicPrefix: mqttTopic ?? Self.defaultTopicPrefix(cameraName: cameraName), cameraName: cameraName,
            discoveryPrefix: mqttDiscovery == .off ? nil : mqttDiscoveryPrefix, snapshots: mqttSnapshot, zones: zones,
            people: people, personHold: mqttPersonHold ?? MQTTPublisher.Settings.defaultPersonHold, version: facecamVersion)
    }

    /// --name, or a name from the device's path or the source's: letters, digits, - and _.
    static func cameraName(given: String?, device: String, source: VideoInput?) -> String {
        if let given { return given }
        let stem = source?.nameStem ?? FilePath(device).stem
        let cleaned = String(stem.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
        return cleaned.isEmpty ? "camera" : cleaned
    }
}
