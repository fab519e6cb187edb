/// One frame to find faces in, with everything needed to report it: what every command's frames
/// become, a camera's as a file's.
public struct FrameJob: Sendable {
    public var source: String
    public var index: Int
    public var time: Double
    public var frame: Frame
    public var geometry: PreviewGeometry
    /// Render the preview image too (for annotated video, or redaction); it is rendered anyway for an annotated
    /// JPEG and a frame only shown (`rendersPreview`).
    public var renderPreview: Bool
    /// False for a frame that is only shown (rendered, and its tracked faces masked), not searched:
    /// the frames between detections when a redacted video keeps every frame.
    public var detect: Bool
    /// The annotated JPEG's file name without extension; nil for no JPEG.
    public var annotationName: String?
    /// The orientation to report in the result (still images).
    public var orientation: Orientation?
    /// Cut each face found out of the frame (`--crops`); nil for no crops.
    public var crops: CropRequest?
    /// A live frame's capture counter (reported as the result's sequence) and when it was taken
    /// (CLOCK_MONOTONIC, the start of its latency); nil for files.
    public var capture: (sequence: Int, at: Double)?
    /// A frame shown only: where faces are hidden on it, in preview coordinates, when a plan of the whole
    /// video says (redaction's second pass); nil hides where the tracker predicts its faces.
    public var planned: [Rect]?

    public init(
        source: String, index: Int, time: Double, frame: Frame, geometry: PreviewGeometry,
        renderPreview: Bool = false, annotationName: String? = nil, orientation: Orientation? = nil,
        detect: Bool = true, crops: CropRequest? = nil, capture: (sequence: Int, at: Double)? = nil, planned: [Rect]? = nil
    ) {
        precondition(planned == nil || !detect, "only a frame shown, not searched, has planned masks")
        self.source = source
        self.index = index
        self.time = time
        self.frame = frame
        self.geometry = geometry
        self.renderPreview = renderPreview
        self.detect = detect
        self.annotationName = annotationName
        self.orientation = orientation
        self.crops = crops
        self.capture = capture
        self.planned = planned
    }

    /// Whether the preview is rendered: asked, or needed for the annotated JPEG or a frame only shown.
    public var rendersPreview: Bool { renderPreview || annotationName != nil || !detect }

    /// The frame's stage: renders the preview, searches with `detector` and cuts the faces out, `masks`
    /// painted on the preview and the crops (detection sees the whole frame). A failure is the frame's,
    /// said with its source and index.
    public func run(with detector: any FrameFaceDetector, masks: PrivacyMasks) -> Completion {
        // Painted only when a picture is made from the frame.
        let shown = rendersPreview || crops != nil ? masks.applied(to: frame, geometry: geometry) : frame
        let preview = rendersPreview
            ? Result { () throws(FaceCamError) in try Annotator.render(shown, geometry: geometry, source: source) }
            : nil
        if !detect, let preview {
            return .shownOnly(source: source, index: index, time: time, geometry: geometry, preview: preview, planned: planned)
        }
        do {
            let faces = try detector.detect(in: frame, geometry: geometry)
            let result = FrameResult(
                source: source, frame: index, time: time, size: frame.size, previewSize: geometry.previewSize, faces: faces,
                sequence: capture?.sequence, orientation: orientation)
            let crops = try crops.map { (request) throws(FaceCamError) in try request.cut(faces, from: shown, geometry: geometry) }
            return .frame(DetectedFrame(
                result: result, image: frame, geometry: geometry, preview: preview, annotationName: annotationName,
                crops: crops, capturedAt: capture?.at))
        } catch {
            return .failure(.detection(source: source, frame: index, error: error))
        }
    }
}

/// A frame searched: its result (the faces not yet tracked), the frame, and what was asked with it.
public struct DetectedFrame: Sendable {
    public var result: FrameResult
    /// The frame as decoded, no mask painted: faces are described (recognised) from it, and live's
    /// pictures made of it (`LiveOutputs` paints the masks).
    public var image: Frame
    public var geometry: PreviewGeometry
    /// Its preview when one was asked for, not yet marked (a preview that cannot be drawn fails alone:
    /// the results still count).
    public var preview: Result<Frame, FaceCamError>?
    /// The annotated JPEG's file name without extension; nil for no JPEG.
    public var annotationName: String?
    /// Its faces cut out, when asked.
    public var crops: FaceCrops?
    /// When a live frame was taken (CLOCK_MONOTONIC); nil for files.
    public var capturedAt: Double?
}

/// What became of a submitted frame or failure, delivered in submission order.
public enum Completion: Sendable {
    case frame(DetectedFrame)
    /// A frame that was shown but not searched (`FrameJob.detect` false): its preview, not yet marked, and its planned
    /// masks (`FrameJob.planned`).
    case shownOnly(
        source: String, index: Int, time: Double, geometry: PreviewGeometry, preview: Result<Frame, FaceCamError>, planned: [Rect]?)
    case failure(FaceCamError)
}
