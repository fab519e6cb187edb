import ArgumentParser
import FaceCam

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the V4L2 capture devices: path, card, driver, bus, udev's stable names (aliases), and each pixel "
            + "format with its sizes and rates.",
        discussion: """
            The aliases are the links udev makes in /dev/v4l/by-id (USB cameras, by serial number) and \
            /dev/v4l/by-path (by the port they hang off), which keep naming the same camera when \
            /dev/videoN numbers change; facecam live --device takes them as it takes /dev/videoN or N.
            """ + guidePointer("docs/webcam.md", manual: "facecam-devices"))

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl, text
    }

    @Option(help: "jsonl (one JSON object per device) or text.")
    var format: Format = .jsonl

    func run() throws {
        let devices = CaptureDevice.all()
        // None is an answer (no line on standard output), said on standard error for a person.
        if devices.isEmpty {
            report("no V4L2 capture device: no /dev/video* answers as a camera (plug one in, or check that you are in the video group); "
                + "to try live without one: facecam live --source FILE --realtime")
        }
        for device in devices {
            try writeResult(format == .jsonl ? device.json : device.text)
        }
    }
}

extension CaptureDevice {
    var json: String {
        let formats = formats.map { format -> JSONOutput in
            let sizes = format.sizes.map { size -> JSONOutput in
                .members(["width": .integer(size.width), "height": .integer(size.height), "fps": .array(size.framesPerSecond.map(JSONOutput.decimal))])
            }
            return .members(["fourcc": .string(format.fourcc), "description": .string(format.description), "sizes": .array(sizes)])
        }
        return JSONOutput.members([
            "path": .string(path), "card": .string(card), "driver": .string(driver), "bus": .string(bus),
            "aliases": .array(aliases.map(JSONOutput.string)), "formats": .array(formats),
        ]).text + "\n"
    }

    var text: String {
        var lines = ["\(path): \(card) (driver \(driver), bus \(bus))"] + aliases.map { "  also \($0)" }
        for format in formats {
            lines.append("  \(format.fourcc) \(format.description)")
            for size in format.sizes {
                let rates = size.framesPerSecond.map(decimal).joined(separator: ", ")
                lines.append("    \(size.width)x\(size.height)" + (rates.isEmpty ? "" : " at \(rates) frames/s"))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
