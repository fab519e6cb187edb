/// The one input loop of every command (detect, video, redact's passes, live): a source's geometry,
/// checked against the zones and masks, then its frames, each made a job and handed on, until the
/// source ends or the run stops. The commands differ only in their sources, what they ask of each
/// frame (the job they make of it) and where the jobs go: the pipeline, which takes every frame, or
/// live's feed, which takes the newest.
public struct InputLoop {
    /// The user's geometry; its orientation is replaced by each source's (`FrameSource.orientation(given:)`).
    public var settings: GeometrySettings
    /// The orientation the user gave; nil for none, or auto.
    public var givenOrientation: Orientation?
    /// Zones and masks, checked against each source's preview.
    public var zones: ZoneFilter?
    public var masks: PrivacyMasks

    public init(
        settings: GeometrySettings = GeometrySettings(), givenOrientation: Orientation? = nil, zones: ZoneFilter? = nil,
        masks: PrivacyMasks = PrivacyMasks(polygons: [])
    ) {
        self.settings = settings
        self.givenOrientation = givenOrientation
        self.zones = zones
        self.masks = masks
    }

    /// Why a reading stopped short: the source failed, or a frame came of a size the options do not fit.
    public enum Failure<SourceFailure: Error>: Error {
        case source(SourceFailure)
        case geometry(FaceCamError)

        /// The error itself, whichever it is.
        public var underlying: any Error {
            switch self {
            case .source(let error): error
            case .geometry(let error): error
            }
        }
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
        try geometry(of: source, size: source.frameSize)
    }

    /// The geometry of `source`'s frames of `size`.
    private func geometry(of source: any FrameSource, size: PixelSize) throws(FaceCamError) -> PreviewGeometry {
        var settings = settings
        settings.orientation = source.orientation(given: givenOrientation)
        let geometry = try settings.geometry(for: size, source: source.name)
        try zones?.check(geometry, source: source.name)
        try masks.check(geometry, source: source.name)
        return geometry
    }

    /// Reads `source` until it ends or `shouldStop` says stop, making each frame a job with `geometry` (nil: the
    /// source's, `geometry(of:)`) and handing what `job` makes of it (nil: nothing, for a frame passed over) to `submit`.
    /// When the reading ends (the source ended or failed, not stopped) on a frame `job` passed over, that frame is still
    /// submitted if `submittingLastPassedOver`, as the loop made it (searched, with nothing of `job`'s dressing):
    /// redaction's first pass searches a video's last frame, known only once the next read finds none.
    /// A frame of another size than the geometry's (a file `live --loop` found replaced when it played it again) gets
    /// the geometry of its size, or ends the reading with the reason the options do not fit it. Throws what the source
    /// threw.
    public func read<Source: FrameSource>(
        _ source: Source, geometry given: PreviewGeometry? = nil, shouldStop: () -> Bool,
        job: (FrameJob) -> FrameJob? = { $0 }, submittingLastPassedOver: Bool = false, submit: (FrameJob) -> Void
    ) throws(InputLoop.Failure<Source.Failure>) -> End {
        let orientation = source.reportedOrientation(given: givenOrientation)
        var geometry: PreviewGeometry
        if let given {
            geometry = given
        } else {
            do throws(FaceCamError) {
                geometry = try self.geometry(of: source)
            } catch {
                throw .geometry(error)
            }
        }
        var passedOver: FrameJob?
        while !shouldStop() {
            let next: SourceFrame?
            do throws(Source.Failure) {
                next = try source.next(shouldStop: shouldStop)
            } catch {
                if submittingLastPassedOver, !shouldStop(), let passedOver { submit(passedOver) }
                throw .source(error)
            }
            guard let read = next else {
                // A source that saw the stop ends early too: not its last frame.
                if submittingLastPassedOver, !shouldStop(), let passedOver { submit(passedOver) }
                break
            }
            if read.frame.size != geometry.frameSize {
                do throws(FaceCamError) {
                    geometry = try self.geometry(of: source, size: read.frame.size)
                } catch {
                    throw .geometry(error)
                }
            }
            let made = FrameJob(
                source: source.name, index: read.index, time: read.time, frame: read.frame, geometry: geometry,
                orientation: orientation, capture: read.capturedAt.map { (read.index, $0) })
            if let made = job(made) {
                submit(made)
                passedOver = nil
            } else {
                passedOver = made
            }
        }
        return shouldStop() ? .stopped : .ended(damage: source.damage)
    }
}
