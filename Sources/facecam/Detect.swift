import ArgumentParser
import FaceCam

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect faces in still images (JPEG, PNG and other formats OpenCV reads).",
        discussion: """
            Directories are read in name order; only their image files (by extension) are taken, \
            and subdirectories only with --recursive. An input that cannot be read is reported on \
            standard error and the rest are still processed; the exit status is then 1.
            """)

    @Argument(help: ArgumentHelp("Image files and directories of images.", valueName: "path"))
    var paths: [String]

    @Flag(help: "Descend into subdirectories of the directories given.")
    var recursive = false

    @OptionGroup(title: "Detector") var detector: DetectorOptions
    @OptionGroup(title: "Geometry") var geometry: GeometryOptions
    @OptionGroup(title: "Output") var output: OutputOptions

    func validate() throws {
        if detector.fast {
            throw ValidationError("--fast follows faces from frame to frame: use it with facecam video or live")
        }
    }

    func run() throws {
        let session = try Session(detector: detector, output: output)
        let settings = geometry.settings
        for item in StillImageInputs(paths: paths, recursive: recursive) {
            if session.sink.stopped { break }
            do throws(FaceCamError) {
                switch item {
                case .failure(let error):
                    throw error
                case .file(let path):
                    let frame = try ImageFile.load(path)
                    session.pipeline.submit(FrameJob(
                        source: path, index: 0, time: 0, frame: frame,
                        geometry: try settings.geometry(for: frame.size, source: path),
                        annotationName: output.annotate == nil ? nil : stem(of: path)))
                }
            } catch {
                session.pipeline.submit(failure: error)
            }
        }
        try session.finish()
    }
}

/// The file name without directories and extension.
func stem(of path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
    return String(name[..<dot])
}
