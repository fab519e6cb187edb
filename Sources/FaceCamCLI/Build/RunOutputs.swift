import FaceCam

/// What a run writes besides its frames, opened from the output options (which only parse): the results, the annotated
/// JPEGs and the crops.
struct RunOutputs {
    var writer: ResultWriter?
    var annotator: Annotator?
    var cropSaver: Annotator?

    /// Opens the results (the dataset `folder`, or creates `resultDirectory`, whose files are opened input by input,
    /// or --output, else standard output) and the annotation and crop directories, or says why not and exits with status 1.
    init(_ options: OutputOptions, resultDirectory: ResultDirectory? = nil, folder: String? = nil, context: ExportContext) throws {
        do {
            if let resultDirectory {
                try resultDirectory.create()
                writer = nil
            } else if let folder {
                writer = try ResultWriter(format: options.format, path: folder, folder: true, context: context)
            } else {
                writer = try ResultWriter(format: options.format, path: options.output, context: context)
            }
            annotator = try options.annotate.map { (directory) throws(SystemError) in try Annotator(directory: directory) }
            cropSaver = try options.crops.map { (directory) throws(SystemError) in
                try Annotator(
                    directory: directory, quality: OutputOptions.cropQuality,
                    fileExtension: (options.cropFormat ?? OutputOptions.defaultCropFormat).rawValue, what: "face crop")
            }
        } catch {
            report("cannot open \(error.path ?? "output"): \(error.reason)")
            throw Status.failure
        }
    }
}
