#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// Writes results to standard output, a file or a dataset folder, flushing after every frame
/// so that a crash or Ctrl-C loses nothing already processed.
public final class ResultWriter {
    public let format: ResultFormat
    private let destination: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The file written, when it is one that `finish` gives its finished name.
    private let partial: PartialFile?
    /// A stream format's state (COCO's annotations so far, CVAT's tracks); nil for a folder.
    private var stream: (any StreamFormat)?
    /// The folder of a folder format, which takes the frames instead of the descriptor.
    private let folder: DatasetFolder?
    /// Finished, kept or discarded: nothing more is written.
    private var settled = false
    private let context: ExportContext

    /// `path` nil writes to standard output; a path is created or truncated, but a dataset file (a
    /// document, WIDER, MOT), which is only whole once finished, is written beside a regular file (or a
    /// new one) and renamed by `finish`; a device or pipe (/dev/stdout) is written directly. A folder format (and `wider`
    /// given `folder`) writes the folder `path`, which must be given.
    public convenience init(format: ResultFormat, path: String?, folder: Bool = false, context: ExportContext = ExportContext())
        throws(SystemError)
    {
        precondition(path != nil || !(format.isFolderOnly || folder), "a folder format needs the folder's path")
        precondition(!folder || format.canWriteFolder, "the \(format.rawValue) format writes no folder")
        let kind = path.flatMap { try? fileKind($0) }
        if let path, format.isFolderOnly || folder {
            let folderFormat = format.type as! any FolderFormat.Type  // As the preconditions say.
            try self.init(format: format, folder: DatasetFolder(path: path, format: folderFormat, context: context), context: context)
        } else if let path, kind == .directory {
            throw SystemError(call: "open", path: path, errno: EISDIR)
        } else if let path, format.isWrittenWhole, kind != .other {
            try self.init(format: format, partial: PartialFile(for: path), context: context)
        } else if let path {
            let descriptor = try blockingSyscall("open", path: path) {
                open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            }
            try self.init(format: format, descriptor: descriptor, destination: path, owned: true, partial: nil, context: context)
        } else {
            try self.init(
                format: format, descriptor: STDOUT_FILENO, destination: "standard output", owned: false, partial: nil,
                context: context)
        }
    }

    /// Writes into `partial`, which `finish` gives its finished name; removed if never finished.
    convenience init(format: ResultFormat, partial: PartialFile, context: ExportContext) throws(SystemError) {
        try self.init(
            format: format, descriptor: partial.descriptor, destination: partial.path, owned: false, partial: partial,
            context: context)
    }

    private convenience init(format: ResultFormat, folder: DatasetFolder, context: ExportContext) throws(SystemError) {
        try self.init(format: format, descriptor: -1, destination: folder.path, owned: false, partial: nil, folder: folder, context: context)
    }

    /// Writes the format's opening (a header, a document's start) to `descriptor`, which it
    /// closes at the end when `owned`.
    private init(
        format: ResultFormat, descriptor: Int32, destination: String, owned: Bool, partial: PartialFile?,
        folder: DatasetFolder? = nil, context: ExportContext
    ) throws(SystemError) {
        self.format = format
        self.descriptor = descriptor
        self.destination = destination
        ownsDescriptor = owned
        self.partial = partial
        self.folder = folder
        self.context = context
        if folder == nil {
            precondition(!format.isFolderOnly, "the \(format.rawValue) format writes a folder: it needs the folder's path")
            stream = (format.type as! any StreamFormat.Type).init(context: context)
            try emit(stream!.opening)
        }
    }

    /// Ends a document (and writes a folder's index files), and gives a file opened on a
    /// `PartialFile` its finished name, once durable; once only (a result directory's writer is
    /// finished before the run's end finishes it again).
    public func finish() throws(SystemError) {
        guard !settled else { return }
        settled = true
        if stream != nil { try emit(stream!.closing()) }
        try folder?.finish()
        try partial?.commit()
    }

    /// A run that stops early: a document is ended, so that it holds the frames done, but a
    /// file keeps its partial name, so that it does not pass for a finished run's. Returns that
    /// name; nil when there is none. A folder keeps the files written, without its index files.
    public func keepUnfinished() throws(SystemError) -> String? {
        guard !settled, format.isDocument || partial != nil else { return nil }
        settled = true
        if stream != nil { try emit(stream!.closing()) }
        guard let partial else { return nil }
        try partial.keep()
        return partial.path
    }

    /// Removes a file opened on a `PartialFile`.
    func discard() {
        settled = true
        partial?.discard()
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Writes the frame's results; says so when a dataset item had to be renamed.
    @discardableResult
    public func write(_ result: FrameResult) throws(SystemError) -> ItemRenamed? {
        if let folder { return try folder.write(result) }
        var named = result
        named.source = context.name(of: result.source)
        try emit(stream!.add(named))
        return nil
    }

    /// Writes a track event, in a format that has a place for one.
    public func write(_ event: TrackEvent) throws(SystemError) {
        guard let events = stream as? any EventFormat else { return }
        try emit(events.render(event))
    }

    /// Writes a track's best shot, in a format that has a place for one.
    public func write(_ shot: BestShot) throws(SystemError) {
        guard let events = stream as? any EventFormat else { return }
        var named = shot
        named.source = context.name(of: shot.source)
        try emit(events.render(named))
    }

    private func emit(_ text: String) throws(SystemError) {
        guard !text.isEmpty else { return }
        try writeAll(Array(text.utf8), to: descriptor, path: destination)
    }
}
