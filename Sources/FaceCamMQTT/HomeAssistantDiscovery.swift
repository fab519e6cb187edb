import FaceCam

/// The retained configs that make a facecam camera appear in Home Assistant (MQTT discovery):
/// a device with a binary sensor (a face present), a sensor (the face count), a switch (detection
/// on or off), a binary sensor per zone and per enrolled person and, with snapshots, a camera and a
/// button that takes one. The keys are the documented
/// ones of each MQTT platform, spelt out.
struct HomeAssistantDiscovery {
    let settings: MQTTPublisher.Settings

    /// Topic and JSON payload of each entity's config; none without a discovery prefix.
    var configs: [(topic: String, payload: [UInt8])] {
        guard let prefix = settings.discoveryPrefix else { return [] }
        let node = "facecam_" + Self.identifier(settings.cameraName)
        let device: [String: JSONOutput] = [
            "identifiers": .array([.string(node)]), "name": "facecam \(settings.cameraName)", "manufacturer": "facecam",
            "model": "facecam live", "sw_version": .string(settings.version),
        ]
        let origin: [String: JSONOutput] = ["name": "facecam", "sw_version": .string(settings.version)]
        let online = Self.object(["topic": .string(settings.availability)])
        // The face sensors are unavailable while detection is switched off: they would only tell the last count.
        let detecting = Self.object(["topic": .string(settings.detection), "payload_available": "ON", "payload_not_available": "OFF"])
        var entities: [(component: String, object: String, config: [String: JSONOutput])] = [
            ("binary_sensor", "present", [
                "name": "Face present", "device_class": "occupancy", "state_topic": .string(settings.present),
                "payload_on": "ON", "payload_off": "OFF", "availability": .array([online, detecting]), "availability_mode": "all", "qos": 1,
            ]),
            ("sensor", "faces", [
                "name": "Faces", "state_topic": .string(settings.faces), "state_class": "measurement", "unit_of_measurement": "faces",
                "icon": "mdi:face-recognition", "availability": .array([online, detecting]), "availability_mode": "all", "qos": 1,
            ]),
            ("switch", "detection", [
                "name": "Face detection", "command_topic": .string(settings.detectionCommand), "state_topic": .string(settings.detection),
                "payload_on": "ON", "payload_off": "OFF", "icon": "mdi:face-recognition", "availability": .array([online]), "qos": 1,
            ]),
        ]
        for zone in settings.zones {
            entities.append(("binary_sensor", "present_\(zone)", [
                "name": "Face present in \(zone)", "device_class": "occupancy", "state_topic": .string(settings.present(in: zone)),
                "payload_on": "ON", "payload_off": "OFF", "availability": .array([online, detecting]), "availability_mode": "all", "qos": 1,
            ]))
            entities.append(("sensor", "faces_\(zone)", [
                "name": "Faces in \(zone)", "state_topic": .string(settings.faces(in: zone)), "state_class": "measurement",
                "unit_of_measurement": "faces", "icon": "mdi:face-recognition", "availability": .array([online, detecting]),
                "availability_mode": "all", "qos": 1,
            ]))
        }
        for person in settings.people {
            entities.append(("binary_sensor", "person_\(Self.identifier(person))", [
                "name": "\(person) present", "device_class": "presence", "state_topic": .string(settings.presence(of: person)),
                "payload_on": "ON", "payload_off": "OFF", "availability": .array([online, detecting]), "availability_mode": "all", "qos": 1,
            ]))
        }
        if settings.snapshots {
            entities.append(("camera", "snapshot", ["name": "Snapshot", "topic": .string(settings.snapshot), "availability": .array([online])]))
            entities.append(("button", "take_snapshot", [
                "name": "Take snapshot", "command_topic": .string(settings.snapshotCommand), "payload_press": "PRESS",
                "icon": "mdi:camera", "availability": .array([online]), "qos": 1,
            ]))
        }
        return entities.map { entity in
            var config = entity.config
            config["unique_id"] = .string("\(node)_\(entity.object)")
            config["device"] = Self.object(device)
            config["origin"] = Self.object(origin)
            return ("\(prefix)/\(entity.component)/\(node)/\(entity.object)/config", Array(Self.object(config).text.utf8))
        }
    }

    /// An object of `members`, in the order of their keys.
    private static func object(_ members: [String: JSONOutput]) -> JSONOutput {
        .object(members.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    /// A name as Home Assistant's node and object ids allow: letters, digits, _ and -. A name with
    /// other characters has them as _ and gets the FNV-1a hash of its UTF-8 bytes after it, so that
    /// names differing only there ("hall.1", "hall 1", "hall_1"; "Küche", "Kéche") stay different cameras.
    static func identifier(_ name: String) -> String {
        let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-") }
        guard !name.allSatisfy(allowed) else { return name }
        var hash: UInt32 = 0x811c_9dc5
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let hex = String(hash, radix: 16)
        return String(name.map { allowed($0) ? $0 : "_" }) + "_" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
