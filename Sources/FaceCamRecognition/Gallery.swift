#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CSQLite
import FaceCam

/// What went wrong with a gallery; each names the gallery's file.
public enum GalleryError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened or made.
    case cannotOpen(path: String, reason: String)
    /// The path names a directory.
    case isDirectory(path: String)
    /// The file is there but is not a facecam gallery (another SQLite database, or not SQLite).
    case notAGallery(path: String)
    /// A gallery from a later facecam, whose layout (`version`) this one does not know.
    case newerVersion(path: String, version: Int32)
    /// A gallery whose rows break its own rules (a person without a name, a descriptor of the wrong size): written by
    /// hand, or damaged.
    case damaged(path: String, reason: String)
    /// No one of that name is enrolled.
    case unknownPerson(String, path: String)
    /// Someone of that name is enrolled already.
    case nameTaken(String, path: String)
    /// A name that cannot be one: empty, longer than `longestName` bytes as stored, with a control character,
    /// a line break, an invisible format character or a comma (`redact --spare` lists names with commas), or with
    /// spaces at either end.
    case badName(String)
    /// Forgotten, but another process's read keeps the old pages, descriptors and all, in the gallery's files.
    case logKept(String, path: String)
    /// SQLite failed: its call and message.
    case sqlite(call: String, path: String, message: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "\(FilePath(path)): cannot open the gallery: \(reason)"
        case .isDirectory(let path):
            "\(FilePath(path)): a directory, not a gallery"
        case .notAGallery(let path):
            "\(FilePath(path)): not a facecam gallery"
        case .newerVersion(let path, let version):
            "\(FilePath(path)): a gallery of a later facecam (layout \(version); this one reads \(Gallery.schemaVersion))"
        case .damaged(let path, let reason):
            "\(FilePath(path)): the gallery is damaged (\(reason))"
        case .unknownPerson(let name, let path):
            "no one called '\(name)' is enrolled in \(FilePath(path)) (facecam people lists who is)"
        case .nameTaken(let name, let path):
            "'\(name)' is enrolled in \(FilePath(path)) already (choose another name, or forget them first)"
        case .badName(let name):
            "'\(FilePath(name))' cannot be a name: give one of at most \(Gallery.longestName) bytes, with no comma, control "
                + "character, line break or invisible mark (zero-width space, direction mark), and no space at either end"
        case .logKept(let name, let path):
            "forgot '\(name)', but another process reading \(FilePath(path)) kept it busy for \(Gallery.busyTimeout / 1000) s: "
                + "their descriptors stay in the gallery's files until it closes (the next enrol, rename or forget then clears them)"
        case .sqlite(let call, let path, let message):
            "\(FilePath(path)): the gallery failed (\(call): \(message))"
        }
    }
}

/// The enrolled people and their descriptors, in one SQLite file that several running facecam
/// processes may share (write-ahead log; a writer waits up to `busyTimeout` for another). The file
/// is made readable by its owner only; forgetting someone overwrites their descriptors on disk
/// (`secure_delete`) and empties the log, so they are gone for good.
public final class Gallery {
    /// A person and how many photographs they were enrolled from.
    public struct Person: Hashable, Sendable {
        public let name: String
        public let descriptors: Int
    }

    /// What a command does with the gallery. A reading command never makes or changes the file: it opens it read-only
    /// (immutable when its folder cannot be written, as on a read-only file system, where the log's shared memory cannot
    /// be made), and an empty file reads as a gallery of no one.
    public enum Access: Sendable {
        case read
        case write
        /// Writes, making the file (and its folder) when missing.
        case create
    }

    /// How long a write waits for another process's, in milliseconds.
    public static let busyTimeout: Int32 = 10_000
    /// Where the gallery is unless --gallery says: $XDG_DATA_HOME/facecam, else ~/.local/share/facecam.
    public static func defaultPath(environment: [String: String]) -> String? {
        userFolder(folderVariable, else: folderFallback, environment: environment).map { $0 + "/" + fileName }
    }

    /// `defaultPath`, as help says it.
    public static let defaultPathDescription = userFolderDescription(folderVariable, else: folderFallback, file: fileName)
    private static let (folderVariable, folderFallback, fileName) = ("XDG_DATA_HOME", ".local/share", "gallery.sqlite")

    static let schemaVersion: Int32 = 1
    private static let applicationID: Int32 = 0x6663_6731 // "fcg1"

    public let path: String
    /// The file's permission bits (of the file a link leads to), as opened.
    public let permissions: Int
    private let database: OpaquePointer
    /// Read as a gallery of no one: an empty file opened for reading, where the tables would have been made.
    private var holdsNoTables = false

    /// Others than its owner may read the file (made by hand, or copied): it holds biometric data.
    public var othersMayRead: Bool { permissions & Int(S_IRGRP | S_IROTH) != 0 }

    /// Opens the gallery at `path` for `access`.
    public convenience init(path: String, access: Access) throws(GalleryError) {
        try self.init(path: path, access: access, busyTimeout: Self.busyTimeout)
    }

    /// `busyTimeout`: milliseconds, for tests that wait on another process's lock.
    init(path: String, access: Access, busyTimeout: Int32) throws(GalleryError) {
        let create = access == .create
        self.path = path
        var status = stat()
        if stat(path, &status) == 0 {
            if status.st_mode & S_IFMT == S_IFDIR { throw .isDirectory(path: path) }
            // SQLite would open a device or a pipe, fail on it and leave its journal beside it.
            if status.st_mode & S_IFMT != S_IFREG { throw .cannotOpen(path: path, reason: "not a regular file (a FIFO, socket or device)") }
        } else if errno != ENOENT {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        } else if !create {
            throw .cannotOpen(path: path, reason: "no such file (facecam enrol makes it)")
        }
        if create { try Self.makeFile(path) }
        permissions = stat(path, &status) == 0 ? Int(status.st_mode) & 0o777 : 0
        var handle: OpaquePointer?
        let opened = access == .read
            ? sqlite3_open_v2(try Self.readingURI(path), &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, nil)
            : sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nil)
        guard opened == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(opened))
            sqlite3_close(handle)
            throw .cannotOpen(path: path, reason: reason)
        }
        database = handle
        do throws(GalleryError) {
            sqlite3_busy_timeout(database, busyTimeout)
            if access == .read {
                holdsNoTables = try !isGallery()
            } else {
                try prepareSchema(busyTimeout: busyTimeout)
            }
        } catch {
            sqlite3_close(database)
            throw error
        }
    }

    deinit { sqlite3_close(database) }

    /// `path` as the SQLite URI that opens it for reading: immutable when its folder cannot be written (a read-only file
    /// system), since a log (write-ahead) gallery read there could not make its shared-memory file. Immutable ignores
    /// the log, so a gallery whose log still holds changes is refused there rather than read as it was before them.
    /// The path's bytes outside the unreserved set are percent-encoded.
    private static func readingURI(_ path: String) throws(GalleryError) -> String {
        let writable = FilePath(path).parent.withCString { access($0, W_OK) } == 0
        if !writable, let log = try? fileInfo(FilePath(path + "-wal")), log.st_size > 0 {
            throw .cannotOpen(path: path, reason: "its log (\(FilePath(path + "-wal"))) holds changes not yet in it (an enrol still "
                + "running, or killed), and its folder cannot be written, so they cannot be read: copy both files to a folder that "
                + "can be written and read them there")
        }
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        let encoded = path.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
        return "file:" + encoded + (writable ? "" : "?immutable=1")
    }

    /// Adds `descriptors` to `name`, enrolling them if new (`adding` false: refused if enrolled already).
    public func enrol(_ name: String, descriptors: [FaceDescriptor], adding: Bool) throws(GalleryError) {
        let name = try Self.checkName(name)
        try transaction { () throws(GalleryError) in
            var person = try personID(name)
            if person != nil, !adding { throw .nameTaken(name, path: path) }
            if person == nil {
                try run("INSERT INTO people (name) VALUES (?)", [.text(name)])
                person = sqlite3_last_insert_rowid(database)
            }
            for descriptor in descriptors {
                try run("INSERT INTO descriptors (person, descriptor) VALUES (?, ?)", [.integer(person!), .blob(Self.bytes(descriptor))])
            }
        }
    }

    /// Everyone enrolled, by name.
    public func people() throws(GalleryError) -> [Person] {
        if holdsNoTables { return [] }
        let rows = try query(
            "SELECT p.name, count(d.id) FROM people p LEFT JOIN descriptors d ON d.person = p.id GROUP BY p.id ORDER BY p.name", []
        ) { statement in
            (Self.text(statement, column: 0), Int(sqlite3_column_int64(statement, 1)))
        }
        var people: [Person] = []
        for (name, count) in rows {
            guard let name else { throw .damaged(path: path, reason: "a person without a name") }
            people.append(Person(name: name, descriptors: count))
        }
        return people
    }

    /// Every enrolled descriptor with its person's name.
    public func descriptors() throws(GalleryError) -> [(name: String, descriptor: FaceDescriptor)] {
        if holdsNoTables { return [] }
        let rows = try query("SELECT p.name, d.descriptor FROM descriptors d JOIN people p ON p.id = d.person ORDER BY d.id", []) {
            statement -> (String?, [Float]) in
            let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, 1), count: Int(sqlite3_column_bytes(statement, 1)))
            let values = stride(from: 0, to: bytes.count - 3, by: 4).map { offset in
                Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            }
            return (Self.text(statement, column: 0), values)
        }
        var described: [(name: String, descriptor: FaceDescriptor)] = []
        for (name, values) in rows {
            guard let name else { throw .damaged(path: path, reason: "a person without a name") }
            guard let descriptor = FaceDescriptor(values), values.allSatisfy(\.isFinite) else {
                throw .damaged(path: path, reason: "a descriptor of \(name)'s is not \(FaceDescriptor.count) finite numbers")
            }
            described.append((name, descriptor))
        }
        return described
    }

    public func rename(_ name: String, to newName: String) throws(GalleryError) {
        let (name, newName) = (Self.stored(name), try Self.checkName(newName))
        try transaction { () throws(GalleryError) in
            guard try personID(name) != nil else { throw .unknownPerson(name, path: path) }
            if try personID(newName) != nil { throw .nameTaken(newName, path: path) }
            try run("UPDATE people SET name = ? WHERE name = ?", [.text(newName), .text(name)])
        }
    }

    /// Deletes `name` and their descriptors, overwriting them in the file and emptying the log.
    public func forget(_ name: String) throws(GalleryError) {
        let name = Self.stored(name)
        try transaction { () throws(GalleryError) in
            guard let person = try personID(name) else { throw .unknownPerson(name, path: path) }
            try run("DELETE FROM descriptors WHERE person = ?", [.integer(person)])
            try run("DELETE FROM people WHERE id = ?", [.integer(person)])
        }
        // The checkpoint says busy (1) when a reader kept it from emptying the log.
        let busy = try query("PRAGMA wal_checkpoint(TRUNCATE)", []) { sqlite3_column_int($0, 0) }
        if busy.first == 1 { throw .logKept(name, path: path) }
    }

    // MARK: SQLite

    private enum Value {
        case integer(Int64)
        case text(String)
        case blob([UInt8])
    }

    /// Makes the file readable and writable by its owner only, and its folder, when missing.
    private static func makeFile(_ path: String) throws(GalleryError) {
        // Each folder on the way, as mkdir -p makes them.
        for (index, character) in path.enumerated() where character == "/" && index > 0 {
            let folder = String(path.prefix(index))
            if mkdir(folder, 0o700) != 0, errno != EEXIST {
                throw .cannotOpen(path: path, reason: "cannot make \(folder): \(String(cString: strerror(errno)))")
            }
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        close(descriptor)
    }

    /// The most UTF-8 bytes a name may have: names become MQTT topics and Home Assistant ids.
    public static let longestName = 200

    /// Refuses a name that cannot be one (`GalleryError.badName`), so that a command can say so before any work;
    /// returns the name as stored.
    @discardableResult
    public static func checkName(_ given: String) throws(GalleryError) -> String {
        // Checked as stored: composing can lengthen a name or shorten it.
        let name = stored(given)
        guard !name.isEmpty, name.utf8.count <= longestName, !name.contains(","),
              name.trimmingCharacters(in: .whitespaces) == name,
              !name.unicodeScalars.contains(where: {
                  [.control, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
                      // Invisible format characters (zero-width space, direction marks) would make one name look like
                      // another; the joiners some scripts and emoji need stay.
                      || ($0.properties.generalCategory == .format && $0 != "\u{200C}" && $0 != "\u{200D}")
              }) else {
            throw .badName(given)
        }
        return name
    }

    /// A name as the file keeps it: composed (NFC), so that an é typed as one character or as e and an accent
    /// is one person to SQLite as it is to Swift's comparisons.
    static func stored(_ name: String) -> String { name.precomposedStringWithCanonicalMapping }

    private static func bytes(_ descriptor: FaceDescriptor) -> [UInt8] {
        descriptor.values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
    }

    /// Makes the tables in a new file, or checks that an existing one is a gallery. Several processes
    /// may open a new file at once: the tables are made under the write lock, by the first.
    private func prepareSchema(busyTimeout: Int32) throws(GalleryError) {
        try run("PRAGMA secure_delete = ON", [])
        if try isGallery() { return }
        try transaction { () throws(GalleryError) in
            if try isGallery() { return }
            try run("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, added TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)", [])
            try run("""
                CREATE TABLE descriptors (id INTEGER PRIMARY KEY, person INTEGER NOT NULL REFERENCES people(id), \
                descriptor BLOB NOT NULL, added TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)
                """, [])
            try run("CREATE INDEX descriptors_person ON descriptors (person)", [])
            try run("PRAGMA application_id = \(Self.applicationID)", [])
            try run("PRAGMA user_version = \(Self.schemaVersion)", [])
        }
        // Readers then never wait for a writer (a camera recognising while someone enrols). The switch needs the file
        // to itself, which SQLite does not wait for as it waits for the write lock: another process opening the new
        // gallery at that moment is waited for here, up to the busy timeout, 10 ms at a time.
        for tries in 1... {
            let switched = sqlite3_exec(database, "PRAGMA journal_mode = WAL", nil, nil, nil)
            if switched == SQLITE_OK { return }
            guard switched == SQLITE_BUSY, tries * 10 < busyTimeout else { throw failure("sqlite3_exec") }
            sqlite3_sleep(10)
        }
    }

    /// True for a gallery, false for an empty database; any other database is not a gallery. Its marks and its tables
    /// are read in one statement, so at one moment: another process making the gallery meanwhile is seen before or after,
    /// never between (its tables there and its marks not yet).
    private func isGallery() throws(GalleryError) -> Bool {
        let read = try query("""
            SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version), \
            (SELECT count(*) FROM sqlite_master)
            """, []) { (application: sqlite3_column_int($0, 0), version: sqlite3_column_int($0, 1), tables: sqlite3_column_int($0, 2)) }
        guard let (application, version, tables) = read.first else { throw .notAGallery(path: path) }
        if application == Self.applicationID {
            if version > Self.schemaVersion { throw .newerVersion(path: path, version: version) }
            guard version == Self.schemaVersion else { throw .notAGallery(path: path) }
            return true
        }
        guard application == 0, tables == 0 else { throw .notAGallery(path: path) }
        return false
    }

    private func personID(_ name: String) throws(GalleryError) -> Int64? {
        try query("SELECT id FROM people WHERE name = ?", [.text(name)]) { sqlite3_column_int64($0, 0) }.first
    }

    private func transaction(_ body: () throws(GalleryError) -> Void) throws(GalleryError) {
        // IMMEDIATE: the write lock is taken (waiting for other processes) before anything is read.
        try run("BEGIN IMMEDIATE", [])
        do throws(GalleryError) {
            try body()
            try run("COMMIT", [])
        } catch {
            try? run("ROLLBACK", [])
            throw error
        }
    }

    private func run(_ sql: String, _ values: [Value]) throws(GalleryError) {
        _ = try query(sql, values) { _ in () }
    }

    private func query<Row>(_ sql: String, _ values: [Value], row: (OpaquePointer) -> Row) throws(GalleryError) -> [Row] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            // A file that is not SQLite at all says so when first read.
            if sqlite3_errcode(database) == SQLITE_NOTADB { throw .notAGallery(path: path) }
            throw failure("sqlite3_prepare_v2")
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let bound = switch value {
            case .integer(let number): sqlite3_bind_int64(statement, position, number)
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, csqlite_transient())
            case .blob(let bytes): sqlite3_bind_blob(statement, position, bytes, Int32(bytes.count), csqlite_transient())
            }
            guard bound == SQLITE_OK else { throw failure("sqlite3_bind") }
        }
        var rows: [Row] = []
        while true {
            let stepped = sqlite3_step(statement)
            if stepped == SQLITE_DONE { return rows }
            guard stepped == SQLITE_ROW else {
                if stepped == SQLITE_NOTADB { throw .notAGallery(path: path) }
                throw failure("sqlite3_step")
            }
            rows.append(row(statement))
        }
    }

    /// A text column's value; nil for NULL.
    private static func text(_ statement: OpaquePointer, column: Int32) -> String? {
        sqlite3_column_text(statement, column).map { String(cString: $0) }
    }

    private func failure(_ call: String) -> GalleryError {
        .sqlite(call: call, path: path, message: String(cString: sqlite3_errmsg(database)))
    }
}
