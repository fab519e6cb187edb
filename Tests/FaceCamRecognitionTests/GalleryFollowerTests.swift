@testable import FaceCam
@testable import FaceCamRecognition
import Foundation
import Synchronization
import Testing

/// What live sees of a gallery changed while it runs: another connection enrols, renames and forgets, and the
/// follower gives the people enrolled then, looking at most once a second on a clock moved by hand, and holding no
/// connection open between looks (forget empties the log at once).
struct GalleryFollowerTests {
    /// A descriptor pointing along axis `axis`: two of them are as far apart as descriptors get.
    static func descriptor(_ axis: Int) -> FaceDescriptor { TrackIdentityTests.descriptor(axis) }

    /// A gallery in a folder of its own (removed by the caller), Ada enrolled along axis 0, and its writer.
    static func galleryOfAda() throws -> (folder: URL, path: String, writer: Gallery) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-follow-\(UUID().uuidString)")
        let path = folder.appendingPathComponent("gallery.sqlite").path
        let writer = try Gallery(path: path, access: .create)
        try writer.enrol("Ada", descriptors: [descriptor(0)], adding: false)
        return (folder, path, writer)
    }

    @Test func changesAreSeenOncePerIntervalAndOnlyWhenMade() throws {
        let (folder, path, writer) = try Self.galleryOfAda()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        let said = Mutex<[String]>([])
        let enrolled = EnrolledFaces(try writer.descriptors(), tolerance: 0.3)
        let follower = GalleryFollower(path: path, enrolled: enrolled, clock: clock) { line in said.withLock { $0.append(line) } }
        clock.advance(by: GalleryFollower.interval)
        #expect(follower.changes() == nil)  // nothing changed
        try writer.enrol("Grace", descriptors: [Self.descriptor(1)], adding: false)
        #expect(follower.changes() == nil)  // looked within the interval
        clock.advance(by: GalleryFollower.interval)
        let both = try #require(follower.changes())
        #expect(Set(both.entries.map(\.name)) == ["Ada", "Grace"] && both.tolerance == 0.3)
        #expect(both.identify(Self.descriptor(1)).name == "Grace")
        clock.advance(by: GalleryFollower.interval)
        #expect(follower.changes() == nil)
        try writer.rename("Grace", to: "Hopper")
        try writer.forget("Ada")  // throws logKept if a reader held the gallery open
        clock.advance(by: GalleryFollower.interval)
        #expect(try #require(follower.changes()).entries.map(\.name) == ["Hopper"])
        #expect(said.withLock { $0 }.count == 2 && said.withLock { $0 }.allSatisfy { $0.hasSuffix("enrolled now") })
    }

    /// Someone enrolled between the read of the gallery and the follower's start (live loads its models in between) is
    /// seen at the first look.
    @Test func aChangeBeforeTheFollowerStartsIsSeenAtItsFirstLook() throws {
        let (folder, path, writer) = try Self.galleryOfAda()
        defer { try? FileManager.default.removeItem(at: folder) }
        let enrolled = EnrolledFaces(try Gallery(path: path, access: .read).descriptors(), tolerance: 0.3)
        try writer.enrol("Grace", descriptors: [Self.descriptor(1)], adding: false)
        let clock = ManualClock()
        let follower = GalleryFollower(path: path, enrolled: enrolled, clock: clock) { _ in }
        clock.advance(by: GalleryFollower.interval)
        #expect(try #require(follower.changes()).entries.map(\.name) == ["Ada", "Grace"])
        clock.advance(by: GalleryFollower.interval)
        #expect(follower.changes() == nil)
    }

    /// A track already described is named again among the new people when its face is next seen: an unknown face
    /// becomes the person enrolled (a name event); a change that leaves its name as it was is none, even when a
    /// description in the same frame had moved it away and back.
    @Test func aTrackIsNamedAgainAmongThePeopleEnrolledNow() {
        let ada = EnrolledFaces([("Ada", Self.descriptor(0))], tolerance: 0.3)
        let both = EnrolledFaces([("Ada", Self.descriptor(0)), ("Grace", Self.descriptor(2))], tolerance: 0.3)
        var track = TrackIdentity()
        _ = track.update(described: Self.descriptor(2), at: 0, enrolled: ada)
        #expect(track.identity?.name == nil)
        let unchanged = track.update(described: nil, at: 5, enrolled: ada)
        #expect(!unchanged)
        let renamed = track.update(described: nil, at: 6, enrolled: both, enrolledChanged: true)
        #expect(renamed && track.identity?.name == "Grace")
        let again = track.update(described: nil, at: 7, enrolled: EnrolledFaces([("Grace", Self.descriptor(2))], tolerance: 0.3),
                                 enrolledChanged: true)
        #expect(!again)
        // Grace forgotten while a new description of the same face comes: one event, to unknown.
        let forgotten = track.update(described: Self.descriptor(2), at: 10, enrolled: ada, enrolledChanged: true)
        #expect(forgotten && track.identity?.name == nil)
    }
}
