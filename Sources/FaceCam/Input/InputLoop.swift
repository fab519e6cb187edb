/// The one input loop of every command (detect, video, redact's passes, live): a source's geometry,
/// checked against the zones and masks, then its frames, each made a job and handed on, until the
/// source ends or the run stops. The commands differ only in their sources, what they ask of each
/// frame (the job they make of it) and where the jobs go: the pipeline, which takes every frame, or
/// live's processor, which takes the newest.
public struct InputLoop {
    /// The user's geometry; its orientation is replaced by each source's (`FrameSource.orientation(given:)`).
    public var settings: GeometrySettings
    /// The orientation the user gave; nil for none, or auto.
    public var givenOrientation: Orientation?
    /// Zones and masks, checked against each source's preview.
    public var zones: ZoneFilter.Settings?
    public var masks: PrivacyMasks

    public init(
        settings: GeometrySettings = GeometrySettings(), givenOrientation: Orientation? = nil, zones: ZoneFilter.Settings? = nil,
        masks: PrivacyMasks = PrivacyMasks(polygons: [])
    ) {
        self.settings = settings
        self.givenOrientation = givenOrientation
        self.zones = zones
        self.masks = masks
    }

    /// How a source's reading ended.
    public enum End: Sendable {
        /// It ended; with what it lost on the way, if anything (said after its frames, in their place).
        case ended(damage: FaceCamError?)
        /// The run stopped first: the rest was not read, not lost.
        case stopped
    }

    /// The preview geometry of `source`'s frames; throws, naming the source, when the geometry options, a zone or a
    /// mask do not fit it.
    public func geometry(of source: any FrameSource) throws(FaceCamError) -> PreviewGeometry {
        var settings = settings
        settings.orientation = source.orientation(given: givenOrientation)
        let geometry = try settings.geometry(for: source.frameSize, source: source.name)
        try zones?.check(geometry, source: source.name)
        try masks.check(geometry, source: source.name)
        return geometry
    }

    /// Reads `source` until it ends or `shouldStop` says stop, making each frame a job with `geometry` and handing
    /// what `job` makes of it (nil: nothing, for a frame passed over) to `submit`. Throws what the source threw.
    public func read<Source: FrameSource>(
        _ source: Source, geometry: PreviewGeometry, shouldStop: () -> Bool,
        job: (FrameJob) -> FrameJob? = { $0 }, submit: (FrameJob) -> Void
    ) throws(Source.Failure) -> End {
        let orientation = source.reportedOrientation(given: givenOrientation)
        while !shouldStop() {
            guard let read = try source.next(shouldStop: shouldStop) else { break }
            let made = FrameJob(
                source: source.name, index: read.index, time: read.time, frame: read.frame, geometry: geometry,
                orientation: orientation, capture: read.capturedAt.map { (read.index, $0) })
            if let made = job(made) { submit(made) }
        }
        return shouldStop() ? .stopped : .ended(damage: source.damage)
    }
}
