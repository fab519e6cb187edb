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
}

extension PixelRect {
    /// The rect as the shim takes it (values beyond Int32 are clamped; the shim refuses them as outside the image).
    var shimRect: cfd_rect {
        cfd_rect(x: Int32(clamping: x), y: Int32(clamping: y), width: Int32(clamping: width), height: Int32(clamping: height))
    }
}
