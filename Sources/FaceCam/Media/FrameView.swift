internal import CFaceDetect

// How frames and rects cross into the cfd shim: one place, so every caller
// hands OpenCV the same borrowed view.

extension Frame {
    /// Runs `body` with a C view of the pixels, borrowed for the call only.
    func withImageView<Result>(_ body: (inout cfd_image_view) -> Result) -> Result {
        pixels.withUnsafeBufferPointer { pixels in
            var view = cfd_image_view(
                pixels: pixels.baseAddress, width: Int32(width), height: Int32(height), stride: bytesPerRow)
            return body(&view)
        }
    }

    /// Hands the shim this frame's upright aperture, as `geometry` describes it, for a detector to search:
    /// `shimPrepare` is the detector's prepare call (the view, the aperture, the orientation, the error).
    func prepare(
        _ geometry: PreviewGeometry,
        by shimPrepare: (inout cfd_image_view, cfd_rect, Int32, inout cfd_error) -> cfd_status
    ) throws(FaceCamError) {
        precondition(geometry.frameSize == size, "geometry made for another frame size")
        var error = cfd_error()
        let status = withImageView { view in
            shimPrepare(&view, geometry.aperture.shimRect, Int32(geometry.orientation.rawValue), &error)
        }
        guard status == CFD_OK else { throw .openCV(error.text) }
    }
}

extension Frame {
    /// A new `size` frame whose pixel (u, v) is sampled (bilinearly) from `aperture` of this one
    /// (the whole frame by default) at `destinationToAperture`(u, v), a map of pixel indices
    /// (`AffineTransform.onPixelIndices`) into the aperture's own; what falls outside it is opaque black.
    func warped(to size: PixelSize, from aperture: PixelRect? = nil, sampling destinationToAperture: AffineTransform) throws(FaceCamError)
        -> Frame
    {
        let aperture = aperture ?? PixelRect(x: 0, y: 0, width: width, height: height)
        var warped = Frame(width: size.width, height: size.height)
        let map = destinationToAperture
        let entries = [map.a, map.b, map.c, map.d, map.tx, map.ty]
        var error = cfd_error()
        let status = withImageView { view in
            warped.pixels.withUnsafeMutableBufferPointer { destination in
                cfd_warp_affine(
                    &view, aperture.shimRect, entries, destination.baseAddress, Int32(size.width), Int32(size.height),
                    warped.bytesPerRow, &error)
            }
        }
        guard status == CFD_OK else { throw .openCV(error.text) }
        return warped
    }
}

extension PixelRect {
    /// The rect as the shim takes it (values beyond Int32 are clamped; the shim refuses them as outside the image).
    var shimRect: cfd_rect {
        cfd_rect(x: Int32(clamping: x), y: Int32(clamping: y), width: Int32(clamping: width), height: Int32(clamping: height))
    }
}
