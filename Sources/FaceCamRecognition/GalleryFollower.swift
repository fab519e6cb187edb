#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FaceCam

/// The enrolled people of a gallery that `enrol` and `people` may change while `live` runs. At most once every
/// `interval` seconds it looks at the gallery's file and its write-ahead log (which every commit changes); when either
/// changed, it opens the gallery, reads the descriptors and closes it again, so that it holds nothing open between
/// looks (`people forget` can then empty the log). A gallery that cannot be read is said once, and the people enrolled
/// before stay. Not thread-safe: the result sink's thread alone uses it.
public final class GalleryFollower {
    public static let interval = 1.0

    private let path: String
    private let tolerance: Double
    private let clock: any MonotonicClock
    private let report: @Sendable (String) -> Void
    private var entries: [(name: String, descriptor: FaceDescriptor)]
    /// The gallery's file and its log as last seen (nil where one was not there); none before the first look.
    private var files: [FileState?] = []
    private var checked: Double
    private var lastFailure: String?

    /// What a look compares: which file, its size and when it was last written.
    private struct FileState: Equatable {
        var device: UInt, inode: UInt, size: Int, seconds: Int, nanoseconds: Int

        init(_ info: stat) {
            (device, inode, size) = (UInt(info.st_dev), UInt(info.st_ino), Int(info.st_size))
            (seconds, nanoseconds) = (Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec))
        }
    }

    /// Follows the gallery at `path`, whose people are `enrolled` now.
    public init(
        path: String, enrolled: EnrolledFaces, clock: any MonotonicClock = SystemClock(), report: @escaping @Sendable (String) -> Void
    ) {
        self.path = path
        tolerance = enrolled.tolerance
        entries = enrolled.entries
        self.clock = clock
        self.report = report
        // None seen yet: the first look reads the gallery, which may have changed since `enrolled` was read from it.
        checked = clock.now
    }

    /// The people enrolled now, when they changed since the last call that returned some; else nil. Looks at nothing
    /// within `interval` of the last look.
    public func changes() -> EnrolledFaces? {
        let now = clock.now
        guard now - checked >= Self.interval else { return nil }
        checked = now
        let seen = look()
        guard seen != files else { return nil }
        do throws(GalleryError) {
            let current = try Gallery(path: path, access: .read).descriptors()
            files = seen
            lastFailure = nil
            guard current.map(\.name) != entries.map(\.name) || current.map(\.descriptor) != entries.map(\.descriptor) else { return nil }
            entries = current
            let people = Set(current.map(\.name)).count
            report("--recognize: \(FilePath(path)) changed: \(people) \(people == 1 ? "person" : "people") enrolled now")
            return EnrolledFaces(current, tolerance: tolerance)
        } catch {
            if error.description != lastFailure {
                report("warning: --recognize: \(error.description); the people enrolled before are named until it can be read")
                lastFailure = error.description
            }
            return nil
        }
    }

    private func look() -> [FileState?] {
        [path, path + "-wal"].map { file in (try? fileInfo(FilePath(file))).map(FileState.init) }
    }
}
