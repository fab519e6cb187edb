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

    func run() throws {
        let detector = try detector.makeDetector()
        let (writer, annotator) = try output.makeSinks()
        let processor = FrameProcessor(detector: detector, settings: geometry.settings, writer: writer, annotator: annotator)

        var failed = false
        var tooFewFaces = false
        for item in StillImageInputs(paths: paths, recursive: recursive) {
            do throws(FaceCamError) {
                switch item {
                case .failure(let error):
                    throw error
                case .file(let path):
                    let frame = try ImageFile.load(path)
                    let result = try processor.process(frame, source: path, index: 0, time: 0, annotationName: stem(of: path))
                    if let minFaces = output.minFaces, result.faces.count < minFaces { tooFewFaces = true }
                }
            } catch {
                report(error.description)
                if case .output = error { throw Status.failure }
                failed = true
            }
        }
        if failed { throw Status.failure }
        if tooFewFaces { throw Status.tooFewFaces }
    }
}

/// The file name without directories and extension.
func stem(of path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
    return String(name[..<dot])
}
