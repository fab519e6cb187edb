import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

extension PixelSize: ExpressibleByArgument {}
extension PixelRect: ExpressibleByArgument {}
extension Rect: ExpressibleByArgument {}
extension FaceRanking: ExpressibleByArgument {}
extension InferenceEngine: ExpressibleByArgument {}
extension InferencePrecision: ExpressibleByArgument {}
/// `--orientation`: `auto`, a file's own metadata, or an orientation given as its EXIF number or name.
enum OrientationChoice: Equatable, ExpressibleByArgument {
    case auto
    case fixed(Orientation)

    init?(argument: String) {
        if argument.lowercased() == "auto" {
            self = .auto
        } else if let orientation = Orientation(argument: argument) {
            self = .fixed(orientation)
        } else {
            return nil
        }
    }

    /// What a usage error lists: every accepted value.
    static var allValueStrings: [String] {
        ["auto"] + Orientation.allCases.map { String($0.rawValue) } + Orientation.allCases.map(\.name)
    }
}
extension Gravity: ExpressibleByArgument {}
extension ResultFormat: ExpressibleByArgument {}

/// A flag's default as help writes it.
func onOff(_ value: Bool) -> String { value ? "on" : "off" }
