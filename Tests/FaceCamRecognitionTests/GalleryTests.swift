import FaceCam
@testable import FaceCamRecognition
import Foundation
import Synchronization
import Testing

/// The gallery's file: what it keeps, who may read it, what forgetting leaves.
struct GalleryTests {
    static func descriptor(_ seed: Float) -> FaceDescriptor {
        FaceDescriptor((0..<FaceDescriptor.count).map { Float($0) * 0.001 + seed })!
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func enrolListRenameAndForget() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("deep/er/gallery.sqlite").path
        let gallery = try Gallery(path: path, access: .create)
        try gallery.enrol("Ada", descriptors: [Self.descriptor(0.1), Self.descriptor(0.2)], adding: false)
        try gallery.enrol("Grace Hopper", descriptors: [Self.descriptor(0.5)], adding: false)
        #expect(throws: GalleryError.nameTaken("Ada", path: path)) { try gallery.enrol("Ada", descriptors: [], adding: false) }
        try gallery.enrol("Ada", descriptors: [Self.descriptor(0.3)], adding: true)
        #expect(try gallery.people() == [.init(name: "Ada", descriptors: 3), .init(name: "Grace Hopper", descriptors: 1)])
        // Another handle on the same file (as another process would open it) reads what was written, exactly.
        let again = try Gallery(path: path, access: .write)
        #expect(try again.descriptors().map(\.descriptor) == [0.1, 0.2, 0.5, 0.3].map(Self.descriptor))
        try again.rename("Grace Hopper", to: "Grace")
        #expect(throws: GalleryError.unknownPerson("Nobody", path: path)) { try again.rename("Nobody", to: "X") }
        #expect(throws: GalleryError.nameTaken("Ada", path: path)) { try again.rename("Grace", to: "Ada") }
        #expect(throws: GalleryError.badName("")) { try again.rename("Grace", to: "") }
        #expect(throws: GalleryError.badName("a\nb")) { try again.enrol("a\nb", descriptors: [], adding: false) }
        // Commas separate --spare's names; spaces at either end would not show; names become MQTT topics.
        for name in ["Hopper, Grace", " Grace", "Grace ", String(repeating: "g", count: Gallery.longestName + 1)] {
            #expect(throws: GalleryError.badName(name)) { try again.enrol(name, descriptors: [], adding: false) }
        }
        // Line breaks, direction marks and invisible characters would garble text output or make two names look alike.
        for name in ["a\u{2028}b", "a\u{202E}b", "Ada\u{200B}", "\u{FEFF}Ada"] {
            #expect(throws: GalleryError.badName(name)) { try again.enrol(name, descriptors: [], adding: false) }
        }
        // Joiners stay: Persian and Indic names and emoji need them.
        try again.enrol("\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}", descriptors: [], adding: false)
        try again.forget("\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}")
        // The byte limit holds for the name as stored: U+1D15E (4 bytes) is stored as two scalars (8 bytes), 400 in all.
        #expect(throws: GalleryError.badName(String(repeating: "\u{1D15E}", count: 50))) {
            try again.enrol(String(repeating: "\u{1D15E}", count: 50), descriptors: [], adding: false)
        }
        // An é typed as one character and as e with an accent is one person, whichever spelling is used after.
        try again.enrol("Ren\u{E9}", descriptors: [Self.descriptor(0.7)], adding: false)
        #expect(throws: GalleryError.nameTaken("Rene\u{301}", path: path)) { try again.enrol("Rene\u{301}", descriptors: [], adding: false) }
        try again.enrol("Rene\u{301}", descriptors: [Self.descriptor(0.8)], adding: true)
        #expect(try again.people().filter { $0.name.unicodeScalars.elementsEqual("Ren\u{E9}".unicodeScalars) }.map(\.descriptors) == [2])
        try again.forget("Rene\u{301}")
        try again.enrol(String(repeating: "g", count: Gallery.longestName), descriptors: [], adding: false)
        try again.forget(String(repeating: "g", count: Gallery.longestName))
        try gallery.forget("Ada")
        #expect(try gallery.people() == [.init(name: "Grace", descriptors: 1)])
        #expect(throws: GalleryError.unknownPerson("Ada", path: path)) { try gallery.forget("Ada") }
        // Readable by its owner only, in folders only its owner may enter.
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("deep").path)[.posixPermissions] as? Int == 0o700)
    }

    /// Forgetting overwrites: no byte sequence of a forgotten descriptor is left in the file or its log.
    @Test func aForgottenDescriptorIsGoneFromTheFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("gallery.sqlite").path
        let gallery = try Gallery(path: path, access: .create)
        let secret = Self.descriptor(7.25)
        try gallery.enrol("Kept", descriptors: [Self.descriptor(1)], adding: false)
        try gallery.enrol("Forgotten", descriptors: [secret], adding: false)
        let needle = Self.bytes(of: secret)
        #expect(Self.onDisk(path).range(of: needle) != nil, "the descriptor is written as little-endian floats")
        try gallery.forget("Forgotten")
        #expect(Self.onDisk(path).range(of: needle) == nil)
        #expect(Self.onDisk(path).range(of: Data("Forgotten".utf8)) == nil)
    }

    /// The first of a descriptor's numbers as the file keeps them: little-endian floats.
    static func bytes(of descriptor: FaceDescriptor) -> Data {
        Data(descriptor.values.prefix(8).flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } })
    }

    /// The gallery's file and its log, as they are on disk.
    static func onDisk(_ path: String) -> Data {
        ["", "-wal"].reduce(into: Data()) { all, suffix in
            if let data = FileManager.default.contents(atPath: path + suffix) { all.append(data) }
        }
    }

    /// A descriptor that is not all finite numbers (a tampered file) would make every distance NaN: the gallery is refused.
    @Test func aDescriptorThatIsNotFiniteIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("gallery.sqlite").path
        let gallery = try Gallery(path: path, access: .create)
        try gallery.enrol("Ada", descriptors: [FaceDescriptor([.nan] + [Float](repeating: 0, count: FaceDescriptor.count - 1))!], adding: false)
        #expect(throws: GalleryError.damaged(path: path, reason: "a descriptor of Ada's is not 128 finite numbers")) {
            try gallery.descriptors()
        }
    }

    /// Runs `script` with Python's sqlite3 on `path` (the database another program, or a hand, made); `killed`, the
    /// process ends without closing it, as a killed one would (a log's changes stay in the log).
    static func sqlite(_ path: String, _ script: String, killed: Bool = false) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let end = killed ? "; import os; os._exit(0)" : ""
        process.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()" + end, path, script]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
    }

    /// Reading never makes or changes a gallery: an empty file reads as no one, and stays empty, with no log beside it.
    @Test func readingAnEmptyFileChangesNothing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("empty.sqlite").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let gallery = try Gallery(path: path, access: .read)
        #expect(try gallery.people().isEmpty)
        #expect(try gallery.descriptors().isEmpty)
        #expect(FileManager.default.contents(atPath: path) == Data())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["empty.sqlite"])
    }

    /// A file with the gallery's marks but a looser layout, holding a person without a name, or from a later facecam.
    @Test func aDamagedOrNewerGalleryIsSaidSo() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let loose = folder.appendingPathComponent("loose.sqlite").path
        try Self.sqlite(loose, """
            PRAGMA application_id = \(0x6663_6731); PRAGMA user_version = 1;
            CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, added TEXT);
            CREATE TABLE descriptors (id INTEGER PRIMARY KEY, person INTEGER, descriptor BLOB, added TEXT);
            INSERT INTO people (id, name) VALUES (1, NULL); INSERT INTO descriptors (person, descriptor) VALUES (1, zeroblob(512));
            """)
        for access in [Gallery.Access.read, .write] {
            let gallery = try Gallery(path: loose, access: access)
            #expect(throws: GalleryError.damaged(path: loose, reason: "a person without a name")) { try gallery.people() }
            #expect(throws: GalleryError.damaged(path: loose, reason: "a person without a name")) { try gallery.descriptors() }
        }
        let newer = folder.appendingPathComponent("newer.sqlite").path
        try Self.sqlite(newer, "PRAGMA application_id = \(0x6663_6731); PRAGMA user_version = 2; CREATE TABLE people (x);")
        #expect(throws: GalleryError.newerVersion(path: newer, version: 2)) { try Gallery(path: newer, access: .read) }
        #expect(GalleryError.newerVersion(path: newer, version: 2).description.hasSuffix("a gallery of a later facecam (layout 2; this one reads 1)"))
    }

    /// On a read-only file system (a real one: a tmpfs remounted read-only; needs root) a gallery in log mode is read,
    /// though its shared-memory file cannot be made there, and a change is refused.
    @Test func aGalleryOnAReadOnlyFileSystemIsRead() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mount = { (arguments: [String]) throws -> Int32 in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/mount")
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        guard try mount(["-t", "tmpfs", "-o", "size=4m", "tmpfs", folder.path]) == 0 else {
            print("SKIPPED: a read-only file system needs a tmpfs, and mount failed (not root?)")
            return
        }
        defer { _ = try? mount(["-o", "remount,rw", folder.path]); umount2(folder.path, 0) }
        let path = folder.appendingPathComponent("gallery.sqlite").path
        try Gallery(path: path, access: .create).enrol("Ada", descriptors: [Self.descriptor(1)], adding: false)
        try #require(try mount(["-o", "remount,ro", folder.path]) == 0)
        #expect(try Gallery(path: path, access: .read).people() == [.init(name: "Ada", descriptors: 1)])
        #expect(try Gallery(path: path, access: .read).descriptors().map(\.descriptor) == [Self.descriptor(1)])
        #expect(throws: GalleryError.self) { try Gallery(path: path, access: .write).enrol("Bo", descriptors: [Self.descriptor(2)], adding: false) }
        // A writer killed with a change still in the log: read there, the gallery would be the one before the change.
        try #require(try mount(["-o", "remount,rw", folder.path]) == 0)
        try Self.sqlite(path, "PRAGMA wal_autocheckpoint = 0; INSERT INTO people (name) VALUES ('Bo');", killed: true)
        try #require(try mount(["-o", "remount,ro", folder.path]) == 0)
        #expect {
            try Gallery(path: path, access: .read)
        } throws: { error in
            guard case GalleryError.cannotOpen(path, let reason) = error else { return false }
            return reason.hasPrefix("its log (\(path)-wal) holds changes not yet in it")
        }
    }

    /// Connections making one new gallery at once, as processes enrolling together do, and a reader opening it meanwhile:
    /// each sees the file before its tables are made or after, never half made (one saw its marks still unset and its
    /// tables already there, read a moment apart, and called it not a gallery).
    @Test func aGalleryBeingMadeIsNeverSeenHalfMade() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for round in 0..<30 {
            let path = folder.appendingPathComponent("gallery-\(round).sqlite").path
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { index in
                do {
                    if index == 0 {
                        // The reader: once the file is there, while the others may still be making its tables.
                        while !FileManager.default.fileExists(atPath: path) { sched_yield() }
                        _ = try Gallery(path: path, access: .read)
                    } else {
                        _ = try Gallery(path: path, access: .create)
                    }
                } catch {
                    failures.withLock { $0.append("\(index): \(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "round \(round)")
        }
    }

    @Test func aFileThatIsNoGalleryIsRefusedAndLeftAlone() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("notes.txt").path
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: GalleryError.notAGallery(path: text)) { try Gallery(path: text, access: .create) }
        #expect(FileManager.default.contents(atPath: text) == Data(String(repeating: "not a database\n", count: 100).utf8))
        // Another program's SQLite database.
        let other = folder.appendingPathComponent("other.sqlite").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('create table t (x)'); c.commit()", other]
        try process.run()
        process.waitUntilExit()
        #expect(throws: GalleryError.notAGallery(path: other)) { try Gallery(path: other, access: .create) }
        let missing = folder.appendingPathComponent("missing.sqlite").path
        #expect(throws: GalleryError.cannotOpen(path: missing, reason: "no such file (facecam enrol makes it)")) {
            try Gallery(path: missing, access: .write)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        // A device, refused before SQLite opens it (it would leave a journal beside it), and a loop of links.
        #expect(throws: GalleryError.cannotOpen(path: "/dev/null", reason: "not a regular file (a FIFO, socket or device)")) {
            try Gallery(path: "/dev/null", access: .write)
        }
        let loop = folder.appendingPathComponent("loop.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: loop)
        #expect(throws: GalleryError.cannotOpen(path: loop, reason: String(cString: strerror(ELOOP)))) {
            try Gallery(path: loop, access: .write)
        }
    }

    /// A process reading the gallery keeps the log from being emptied: forgetting says so rather than that it is done.
    @Test func aLogAReaderKeepsIsReported() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("gallery.sqlite").path
        var gallery: Gallery? = try Gallery(path: path, access: .create, busyTimeout: 100)
        try gallery?.enrol("Kept", descriptors: [Self.descriptor(1)], adding: false)
        try gallery?.enrol("Forgotten", descriptors: [Self.descriptor(2)], adding: false)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        reader.arguments = ["-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN'); c.execute('SELECT count(*) FROM people').fetchall()
            print('reading', flush=True); sys.stdin.read()
            """, path]
        let (toReader, fromReader) = (Pipe(), Pipe())
        reader.standardInput = toReader
        reader.standardOutput = fromReader
        try reader.run()
        defer { if reader.isRunning { kill(reader.processIdentifier, SIGKILL); reader.waitUntilExit() } }
        // Its snapshot is taken once it says so.
        #expect(String(decoding: fromReader.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("reading"))
        #expect(throws: GalleryError.logKept("Forgotten", path: path)) { try gallery?.forget("Forgotten") }
        gallery = nil
        #expect(Self.onDisk(path).range(of: Self.bytes(of: Self.descriptor(2))) != nil, "the reader's snapshot keeps them")
        // A reader that dies holding its snapshot (killed, so it does not clear up as it closes).
        kill(reader.processIdentifier, SIGKILL)
        reader.waitUntilExit()
        #expect(Self.onDisk(path).range(of: Self.bytes(of: Self.descriptor(2))) != nil)
        // What the message says: the next command that opens and closes the gallery clears them.
        #expect(try Gallery(path: path, access: .write).people().map(\.name) == ["Kept"])
        #expect(Self.onDisk(path).range(of: Self.bytes(of: Self.descriptor(2))) == nil)
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(Gallery.defaultPath(environment: ["HOME": "/home/u"]) == "/home/u/.local/share/facecam/gallery.sqlite")
        #expect(Gallery.defaultPath(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data"]) == "/data/facecam/gallery.sqlite")
        #expect(Gallery.defaultPath(environment: ["XDG_DATA_HOME": "relative"]) == nil)
    }
}
