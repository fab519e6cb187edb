/// Groups the faces of a whole run by who they are (`--cluster`), for runs over photographs and videos
/// no one enrolled: the result sink holds its records back until the run ends, then hands it the results.
public protocol FaceClustering {
    /// Gives each face of `results` that has a descriptor, or whose track has one, its `cluster`, the same
    /// for faces of one person across all of them; leaves descriptors only where they were asked for.
    func cluster(_ results: inout [FrameResult]) throws(FaceCamError)
}
