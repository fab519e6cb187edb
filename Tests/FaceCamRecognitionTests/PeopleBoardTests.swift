@testable import FaceCam
@testable import FaceCamRecognition
import Foundation
import Synchronization
import Testing

/// The people panel's board on a real gallery in a temporary folder: what the namer reports, how the unknown are
/// grouped, and the panel's changes, alone and at once.
struct PeopleBoardTests {
    /// A descriptor pointing along `axis`, turned a little towards `axis + 1` by `offset`: descriptors of one axis lie
    /// closer than the clustering threshold, two axes as far apart as descriptors get.
    static func descriptor(_ axis: Int, offset: Float = 0) -> FaceDescriptor {
        TrackIdentityTests.descriptor(axis, towards: axis + 1, tilt: offset)
    }

    final class WallClock: Sendable {
        let seconds = Mutex(1_000_000.0)
        func advance() { seconds.withLock { $0 += 1 } }
        var now: @Sendable () -> Double { { self.seconds.withLock { $0 } } }
    }

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-board-\(UUID().uuidString)")
    var path: String { folder.appendingPathComponent("gallery.sqlite").path }

    /// A gallery with Ada (axis 0) and a board on it; tracks 1 and 2 look alike (axis 10), track 3 is someone else (axis 20).
    func board(clock: WallClock = WallClock()) throws -> PeopleBoard {
        let gallery = try Gallery(path: path, access: .create)
        try gallery.enrol("Ada", descriptors: [Self.descriptor(0)], adding: false)
        let board = PeopleBoard(galleryPath: path, enrolled: ["Ada"], now: clock.now)
        for (track, axis) in [(1, 10), (2, 10), (3, 20)] {
            board.seen(
                source: "cam", track: track, name: nil, zones: track == 3 ? ["door"] : [],
                description: Self.descriptor(axis, offset: Float(track) / 100), picture: ([0xFF, 0xD8, UInt8(track)], 0.5))
            clock.advance()
        }
        return board
    }

    func enrolled(_ name: String) throws -> Int {
        try Gallery(path: path, access: .read).people().first { $0.name == name }?.descriptors ?? 0
    }

    @Test func theUnknownAreGroupedWithTheirPicturesAndTheKnownListed() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = WallClock()
        let board = try board(clock: clock)
        board.seen(source: "cam", track: 4, name: "Ada", zones: [], description: Self.descriptor(0), picture: ([1], 0.9))
        let listing = board.listing()
        let (unknown, known) = (listing.unknown, listing.known)
        #expect(unknown.map(\.tracks) == [[3], [2, 1]])
        #expect(unknown[0].zones == ["door"] && unknown[0].firstSeen == 1_000_002 && unknown[1].firstSeen == 1_000_000)
        #expect(board.picture(unknown[0].picture) == [0xFF, 0xD8, 3])
        #expect(known == [KnownPerson(name: "Ada", lastSeen: 1_000_003)])
        // A better picture replaces the shown one, and its version changes; a worse one is not even wanted.
        #expect(!board.wantsPicture(source: "cam", track: 3, rank: 0.4) && board.wantsPicture(source: "cam", track: 3, rank: 0.6))
        board.seen(source: "cam", track: 3, name: nil, zones: [], description: nil, picture: ([7], 0.6))
        let newer = board.listing().unknown[0]
        #expect(board.picture(newer.picture) == [7] && newer.pictureVersion == unknown[0].pictureVersion + 1)
        // A face seen but never described (no description yet) is not on the board.
        board.seen(source: "cam", track: 9, name: nil, zones: [], description: nil, picture: nil)
        #expect(board.listing().unknown.flatMap(\.tracks).count == 3)
    }

    @Test func namingAGroupEnrolsItsDescriptionsAndTakesItOffTheBoard() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = try board()
        let group = board.listing().unknown[1].tracks
        #expect(board.perform(.name(tracks: group, as: "Grace")) == .done("2 descriptions of 2 tracks enrolled as 'Grace'"))
        #expect(try enrolled("Grace") == 2)
        let listing = board.listing()
        let (unknown, known) = (listing.unknown, listing.known)
        #expect(unknown.map(\.tracks) == [[3]] && known.map(\.name) == ["Ada", "Grace"])
        #expect(known[1].lastSeen == 1_000_001)
        // Named again into an enrolled name: added to it.
        #expect(board.perform(.name(tracks: [3], as: "Ada")) == .done("1 descriptions of 1 track enrolled as 'Ada'"))
        let ada = try enrolled("Ada")
        #expect(ada == 2 && board.listing().unknown.isEmpty)
        // Renamed and forgotten; a person not enrolled is refused.
        #expect(board.perform(.rename("Grace", to: "Hopper")) == .done("renamed 'Grace' to 'Hopper'"))
        #expect(board.perform(.forget("Ada")) == .done("forgot 'Ada'"))
        let people = try Gallery(path: path, access: .read).people().map(\.name)
        #expect(board.listing().known.map(\.name) == ["Hopper"] && people == ["Hopper"])
        guard case .refused = board.perform(.forget("Ada")) else { Issue.record("forgot Ada twice"); return }
    }

    /// The namer takes the gallery's change about a second after a naming: the faces it still reports unnamed until then
    /// stay off the panel and cannot be named twice; once the name is no longer enrolled they are unknown again.
    @Test func aNamedGroupStaysNamedUntilTheNamerCatchesUp() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = try board()
        #expect(board.perform(.name(tracks: [3], as: "Lin")) == .done("1 descriptions of 1 track enrolled as 'Lin'"))
        board.seen(source: "cam", track: 3, name: nil, zones: [], description: nil, picture: nil)
        #expect(board.listing().unknown.map(\.tracks) == [[2, 1]] && board.picture(3) == nil)
        #expect(board.perform(.name(tracks: [3], as: "Bob")) == .conflict("those faces were named or dismissed already, or are no longer on the board"))
        // The namer names it; then Lin is forgotten elsewhere, and the namer, told, reports the track unknown again.
        board.enrolled(["Ada", "Lin"])
        board.seen(source: "cam", track: 3, name: "Lin", zones: [], description: nil, picture: nil)
        board.enrolled(["Ada"])
        board.seen(source: "cam", track: 3, name: nil, zones: [], description: nil, picture: nil)
        #expect(board.listing().unknown.map(\.tracks) == [[3], [2, 1]])
        // A reading of the gallery from before a naming keeps it named; one with the name, then one without, does not.
        #expect(board.perform(.name(tracks: [1, 2], as: "Grace")) == .done("2 descriptions of 2 tracks enrolled as 'Grace'"))
        board.enrolled(["Ada"])
        #expect(board.listing().unknown.map(\.tracks) == [[3]])
        board.enrolled(["Ada", "Grace"])
        board.enrolled(["Ada"])
        #expect(board.listing().unknown.map(\.tracks) == [[3], [2, 1]])
    }

    /// Someone enrolled seen in a track: no entry, so no picture kept and no room taken.
    @Test func theKnownTakeNoRoomOnTheBoard() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = try board()
        board.seen(source: "cam", track: 7, name: "Ada", zones: [], description: Self.descriptor(0), picture: ([1], 1))
        #expect(board.wantsPicture(source: "cam", track: 7, rank: 1) && board.picture(4) == nil)
        #expect(board.listing().unknown.flatMap(\.tracks).count == 3 && board.listing().known.first?.lastSeen != nil)
    }

    @Test(arguments: ["", "A\u{7}da", "Ada,Grace", " Ada", String(repeating: "x", count: 300)])
    func aBadNameIsRefusedAndTheGroupStays(name: String) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = try board()
        guard case .refused(let reason) = board.perform(.name(tracks: [1, 2], as: name)) else {
            Issue.record("'\(name)' was taken")
            return
        }
        #expect(reason.contains("cannot be a name"))
        let people = try Gallery(path: path, access: .read).people().count
        #expect(board.listing().unknown.count == 2 && people == 1)
    }

    @Test func aGalleryThatFailsPutsTheGroupBack() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = try board()
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        guard case .failed(let reason) = board.perform(.name(tracks: [3], as: "Grace")) else {
            Issue.record("named into a folder")
            return
        }
        #expect(reason.contains("a directory, not a gallery"))
        #expect(board.listing().unknown.map(\.tracks) == [[3], [2, 1]])
    }

    /// Two people naming one group at once: one naming takes it, the other is told it is gone; its descriptions are
    /// enrolled once. Two groups named into one new name at once: both are enrolled.
    @Test func concurrentNamingsLoseNothing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        for _ in 0..<10 {
            try? FileManager.default.removeItem(at: folder)
            let board = try board()
            let outcomes = Mutex<[PeopleChangeOutcome]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { turn in
                let outcome = board.perform(.name(tracks: [1, 2], as: turn == 0 ? "Grace" : "Hopper"))
                outcomes.withLock { $0.append(outcome) }
            }
            let done = outcomes.withLock { $0 }.filter { if case .done = $0 { true } else { false } }
            #expect(done.count == 1)
            let (grace, hopper) = (try enrolled("Grace"), try enrolled("Hopper"))
            #expect(grace + hopper == 2)
            DispatchQueue.concurrentPerform(iterations: 2) { turn in
                outcomes.withLock { $0.append(board.perform(.name(tracks: [turn == 0 ? 3 : 99], as: "Lin"))) }
            }
            let lin = try enrolled("Lin")
            #expect(board.listing().unknown.isEmpty && lin == 1)
        }
    }

    @Test func dismissedTracksStayOffWhileInView() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let board = try board()
        #expect(board.perform(.dismiss(tracks: [3])) == .done("dismissed 1 track"))
        #expect(board.perform(.dismiss(tracks: [3])) == .conflict("those faces were named or dismissed already, or are no longer on the board"))
        board.seen(source: "cam", track: 3, name: nil, zones: [], description: Self.descriptor(20), picture: ([9], 0.9))
        #expect(board.listing().unknown.map(\.tracks) == [[2, 1]] && board.picture(3) == nil)
        #expect(!board.wantsPicture(source: "cam", track: 3, rank: 1))
        // Once the track ends, the tracker's number may come again: a new track.
        board.ended(source: "cam", track: 3)
        board.seen(source: "cam", track: 3, name: nil, zones: [], description: Self.descriptor(20), picture: ([9], 0.9))
        #expect(board.listing().unknown.map(\.tracks) == [[4], [2, 1]])
    }

    /// An hour of strangers (a track a second) leaves the last `capacity` tracks and their pictures on the board.
    @Test func theBoardKeepsTheLatestTracksOnly() throws {
        let clock = WallClock()
        let board = PeopleBoard(galleryPath: "/nonexistent/gallery.sqlite", enrolled: [], now: clock.now)
        for track in 0..<3600 {
            board.seen(
                source: "cam", track: track, name: nil, zones: [], description: Self.descriptor(track % 120, offset: 0.5),
                picture: ([UInt8](repeating: 1, count: 4000), 0.5))
            board.ended(source: "cam", track: track)
            clock.advance()
        }
        let tracks = board.listing().unknown.flatMap(\.tracks)
        #expect(tracks.count == PeopleBoard.capacity && tracks.min() == 3600 - PeopleBoard.capacity + 1)
        #expect(board.picture(3600 - PeopleBoard.capacity) == nil && board.picture(3600)?.count == 4000)
    }
}
