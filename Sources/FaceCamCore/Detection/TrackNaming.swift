/// Names tracked faces once per track rather than once per frame (`--recognize` in `video` and `live`):
/// the result sink hands it each frame's faces after tracking, with the frame they were found in.
public protocol TrackNaming: AnyObject {
    /// Gives every face of `result` (each tracked: it has an id) its track's identity, describing some of
    /// them in `frame` from `detected`, their boxes as the detector gave them (before any smoothing).
    /// A face that cannot be described keeps its track's identity so far, and the failure is returned.
    func name(_ result: inout FrameResult, in frame: Frame, geometry: PreviewGeometry, detected: [PixelRect]) -> TrackNamingOutcome
    /// Track `id` of `source`'s identity as last decided; nil for a track never named.
    func identity(ofTrack id: Int, source: String) -> FaceIdentity?
    /// Forgets track `id` of `source`, which ended.
    func end(track id: Int, source: String)
}

/// What naming a frame's tracked faces came to.
public struct TrackNamingOutcome {
    /// The tracks whose name changed at this frame, after the one they were first named at.
    public var renamed: [Int] = []
    /// The first face that could not be described, if any.
    public var failure: FaceCamError?

    public init() {}
}
