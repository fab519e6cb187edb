/// Names tracked faces once per track rather than once per frame (`--recognize` in `video` and `live`):
/// the result sink hands it each frame's faces after tracking, with the frame they were found in.
public protocol TrackNaming: AnyObject {
    /// Gives every face of `result` (each tracked: it has an id) its track's identity, describing some of
    /// them in `frame`; returns the ids of the tracks whose name changed at this frame, after the one they
    /// were first named at.
    func name(_ result: inout FrameResult, in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Int]
    /// Track `id` of `source`'s identity as last decided; nil for a track never named.
    func identity(ofTrack id: Int, source: String) -> FaceIdentity?
    /// Forgets track `id` of `source`, which ended.
    func end(track id: Int, source: String)
}
