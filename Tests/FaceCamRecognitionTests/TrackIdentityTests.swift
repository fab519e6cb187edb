import FaceCam
@testable import FaceCamRecognition
import Testing

/// When a track is described, and the name its descriptions give, on made-up descriptors: two people along
/// two axes, so that every distance can be worked out by hand.
struct TrackIdentityTests {
    /// A unit-length descriptor along `axis`, tilted towards `towards` by `tilt`.
    static func descriptor(_ axis: Int, towards other: Int = 1, tilt: Float = 0) -> FaceDescriptor {
        var values = [Float](repeating: 0, count: FaceDescriptor.count)
        values[axis] = 1
        values[other] += tilt
        return FaceDescriptor(values)!.unitLength
    }

    static let enrolled = EnrolledFaces([("Ada", descriptor(0)), ("Ben", descriptor(1))], tolerance: 0.33)

    @Test func describedAtItsFirstFaceThenTwiceMoreTenFramesApart() {
        var track = TrackIdentity()
        #expect(track.wantsDescription(at: 7))
        _ = track.update(described: Self.descriptor(0), at: 7, enrolled: Self.enrolled)
        #expect(!track.wantsDescription(at: 16) && track.wantsDescription(at: 17))
        _ = track.update(described: Self.descriptor(0), at: 20, enrolled: Self.enrolled)
        // A camera's counter that wrapped counts as time passed.
        #expect(track.wantsDescription(at: 3))
        _ = track.update(described: Self.descriptor(0), at: 30, enrolled: Self.enrolled)
        #expect(!track.wantsDescription(at: 100) && track.descriptions.count == 3)
    }

    /// The name is the mean's: one description of Ben after two of Ada moves the mean away from her (the mean of
    /// (1,0), (1,0) and (0,1) is (2/3, 1/3); made unit length, its distance to (1,0) is
    /// sqrt((1 - 2/sqrt(5))^2 + (1/sqrt(5))^2) = 0.4595), beyond 0.33: unknown, a change of name.
    @Test func namedAfterTheMeanOfItsDescriptions() {
        var track = TrackIdentity()
        let first = track.update(described: Self.descriptor(0, tilt: 0.1), at: 0, enrolled: Self.enrolled)
        #expect(!first, "the first name is no change")
        #expect(track.identity?.name == "Ada")
        let same = track.update(described: Self.descriptor(0), at: 10, enrolled: Self.enrolled)
        #expect(!same)
        var mixed = TrackIdentity()
        _ = mixed.update(described: Self.descriptor(0), at: 0, enrolled: Self.enrolled)
        _ = mixed.update(described: Self.descriptor(0), at: 10, enrolled: Self.enrolled)
        let changed = mixed.update(described: Self.descriptor(1), at: 20, enrolled: Self.enrolled)
        #expect(changed)
        #expect(mixed.identity?.name == nil)
        #expect(abs((mixed.identity?.distance ?? 0) - 0.4595) < 1e-4, "\(String(describing: mixed.identity))")
    }
}
