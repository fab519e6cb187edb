import FaceCam
import FaceCamMQTT
import Foundation

/// --mqtt's connection, built from `MQTTOptions` (which only parse): the user and password from the URL, the environment
/// or --mqtt-password-file, and the CA file, each read before any work.
enum MQTTConnectionPlan {
    static let usernameVariable = "FACECAM_MQTT_USERNAME"
    static let passwordVariable = "FACECAM_MQTT_PASSWORD"

    /// The connection's settings; nil without --mqtt. A password file or CA that cannot be read, or a password without a
    /// user, is refused (64). The user and password are read from `given` (the tests') or this process's environment,
    /// whose password variable is then unset, so that the commands facecam runs (--on-event) do not inherit it.
    static func settings(
        _ options: MQTTOptions, cameraName: String, environment given: [String: String]? = nil
    ) throws(Refusal) -> MQTTConnection.Settings? {
        guard let mqtt = options.mqtt, var endpoint = try? MQTTEndpoint(parsing: mqtt) else { return nil }
        let environment = given ?? ProcessInfo.processInfo.environment
        if given == nil { unsetenv(passwordVariable) }
        if endpoint.username == nil { endpoint.username = environment[usernameVariable].flatMap { $0.isEmpty ? nil : $0 } }
        var password = environment[passwordVariable]
        if let file = options.mqttPasswordFile {
            let problem: String
            do {
                // MQTT's longest password: a file's first line longer than that is not one.
                let line = try firstLine(ofFile: file, limit: 65_535)
                if let text = String(validating: line, as: UTF8.self) {
                    password = text
                    problem = ""
                } else {
                    problem = "its first line is not UTF-8 text"
                }
            } catch {
                problem = error.errno == EFBIG ? "its first line is longer than MQTT's 65,535 bytes" : "cannot be read (\(error.reason))"
            }
            if !problem.isEmpty { throw .usage("--mqtt-password-file \(file): \(problem); name a file whose first line is the password") }
        }
        if let ca = options.mqttCa, !FileManager.default.isReadableFile(atPath: ca) {
            throw .usage("--mqtt-ca \(ca): cannot be read; name a PEM file of CA certificates")
        }
        if password != nil, endpoint.username == nil {
            throw .usage("--mqtt: a password needs a user: write it in the URL (mqtt://USER@HOST) or in \(usernameVariable)")
        }
        return MQTTConnection.Settings(
            endpoint: endpoint, clientID: "facecam-\(cameraName)-\(getpid())", password: password, caFile: options.mqttCa,
            caOption: "--mqtt-ca", queueCapacity: options.mqttQueue ?? MQTTConnection.Settings.defaultQueueCapacity)
    }
}
