// Redaction (blur, pixelate, fill) of face regions, and overlays composited onto frames.
#include "shim.hpp"


#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace cfd;

namespace {

/*
 * How strongly a region of side `side` is hidden: blurred as the region averaged over cells half
 * the side wide and interpolated linearly between them; pixelated in blocks an eighth of the side
 * wide. Chosen with Tests/Reference/redaction_check.py's measure on the fixture photographs and
 * clips and the 1280x720 bench clip (docs/benchmarks.md, Redaction): at YuNet's usual score threshold (0.9) it
 * finds 1 of the bench clip's 624 faces again. Cells a third of the side wide found 5 (bicubic: 12),
 * and a box blur a fifth of the side wide, run three times, left 5 of 84 fixture faces: a smooth
 * oval under hair still reads as a head.
 */
constexpr double blur_cells = 2;
constexpr double block_fraction = 1.0 / 8;

/* `area` averaged over cells `cell` pixels wide: one cell for anything narrower. */
cv::Mat averaged(const cv::Mat &area, double cell) {
    const cv::Size cells(std::max(1, static_cast<int>(std::ceil(area.cols / cell))),
                         std::max(1, static_cast<int>(std::ceil(area.rows / cell))));
    cv::Mat small;
    cv::resize(area, small, cells, 0, 0, cv::INTER_AREA);
    return small;
}

/* The pixels whose centres lie in `region`'s shape, within `bounds` (the region's pixels, clipped). */
cv::Mat shape_mask(const cfd_region &region, cv::Rect bounds, cfd_mask_shape shape) {
    cv::Mat mask(bounds.size(), CV_8U, cv::Scalar(0));
    const double cx = region.x + region.width / 2, cy = region.y + region.height / 2;
    const double rx = region.width / 2, ry = region.height / 2;
    for (int row = 0; row < bounds.height; ++row) {
        uint8_t *out = mask.ptr<uint8_t>(row);
        const double dy = (bounds.y + row + 0.5 - cy) / ry;
        for (int column = 0; column < bounds.width; ++column) {
            const double px = bounds.x + column + 0.5, py = bounds.y + row + 0.5;
            bool inside;
            if (shape == CFD_MASK_BOX) {
                inside = px >= region.x && px < region.x + region.width && py >= region.y && py < region.y + region.height;
            } else {
                const double dx = (px - cx) / rx;
                inside = dx * dx + dy * dy <= 1;
            }
            out[column] = inside ? 255 : 0;
        }
    }
    return mask;
}

/* `replacement` stretched over the whole of `region`, as the pixels of `bounds` (the region's, clipped) show it; opaque. */
cv::Mat replaced(const cv::Mat &replacement, const cfd_region &region, cv::Rect bounds) {
    const double sx = replacement.cols / region.width, sy = replacement.rows / region.height;
    // From a pixel index of `bounds` to one of the replacement, through continuous coordinates.
    const cv::Matx23d map(sx, 0, (bounds.x + 0.5 - region.x) * sx - 0.5, 0, sy, (bounds.y + 0.5 - region.y) * sy - 0.5);
    cv::Mat out;
    cv::warpAffine(replacement, out, map, bounds.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
    // A transparent part would show the face: the picture covers it whatever its alpha says.
    out.forEach<cv::Vec4b>([](cv::Vec4b &pixel, const int *) { pixel[3] = 255; });
    return out;
}

/* The hidden version of `area` (the region's pixels, clipped). */
cv::Mat hidden(const cv::Mat &area, double side, cfd_redaction_mode mode) {
    cv::Mat out;
    switch (mode) {
    case CFD_REDACT_BLUR:
        // Within the area only: pixels beside the face are neither read nor changed.
        cv::resize(averaged(area, std::max(2.0, side / blur_cells)), out, area.size(), 0, 0, cv::INTER_LINEAR);
        return out;
    case CFD_REDACT_PIXELATE:
        cv::resize(averaged(area, std::max(2.0, side * block_fraction)), out, area.size(), 0, 0, cv::INTER_NEAREST);
        return out;
    case CFD_REDACT_SOLID:
    default:
        return cv::Mat(area.size(), area.type(), cv::Scalar(0, 0, 0, 255));
    }
}

} // namespace

extern "C" {

cfd_status cfd_redact(uint8_t *pixels, int32_t width, int32_t height, size_t stride, const cfd_region *regions,
                      size_t count, cfd_redaction_mode mode, cfd_mask_shape shape, const cfd_image_view *replacement,
                      cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (pixels == nullptr || width <= 0 || height <= 0 || stride < static_cast<size_t>(width) * 4) {
            return invalid(error, "empty or malformed image");
        }
        if (count > 0 && regions == nullptr) return invalid(error, "no regions");
        if (mode < CFD_REDACT_BLUR || mode > CFD_REDACT_IMAGE) return invalid(error, "unknown redaction mode");
        if ((mode == CFD_REDACT_IMAGE) != (replacement != nullptr)) return invalid(error, "a replacement goes with image mode only");
        if (replacement != nullptr && !valid_view(replacement)) return invalid(error, "empty or malformed replacement");
        if (shape != CFD_MASK_ELLIPSE && shape != CFD_MASK_BOX) return invalid(error, "unknown mask shape");
        cv::Mat image(height, width, CV_8UC4, pixels, stride);
        const cv::Rect whole(0, 0, width, height);
        for (size_t i = 0; i < count; ++i) {
            const cfd_region &region = regions[i];
            if (!(std::isfinite(region.x) && std::isfinite(region.y) && std::isfinite(region.width) &&
                  std::isfinite(region.height) && region.width > 0 && region.height > 0)) {
                continue;
            }
            // The pixels whose centres can lie in the region, clipped to the image (in double: a region may be huge).
            const double left = std::max(0.0, std::floor(region.x)), top = std::max(0.0, std::floor(region.y));
            const double right = std::min<double>(width, std::ceil(region.x + region.width));
            const double bottom = std::min<double>(height, std::ceil(region.y + region.height));
            if (left >= right || top >= bottom) continue;
            const cv::Rect bounds = cv::Rect(static_cast<int>(left), static_cast<int>(top), static_cast<int>(right - left),
                                             static_cast<int>(bottom - top)) & whole;
            cv::Mat area = image(bounds);
            const cv::Mat hiding = mode == CFD_REDACT_IMAGE
                ? replaced(cv::Mat(replacement->height, replacement->width, CV_8UC4, const_cast<uint8_t *>(replacement->pixels),
                                   replacement->stride),
                           region, bounds)
                : hidden(area, std::max(region.width, region.height), mode);
            hiding.copyTo(area, shape_mask(region, bounds, shape));
        }
        return CFD_OK;
    });
}

void cfd_bytes_free(uint8_t *data) { std::free(data); }

cfd_status cfd_composite(uint8_t *pixels, int32_t width, int32_t height, size_t stride, const cfd_image_view *overlay,
                         const double inverse_map[6], cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (pixels == nullptr || width <= 0 || height <= 0 || stride < static_cast<size_t>(width) * 4) {
            return invalid(error, "empty or malformed image");
        }
        if (!valid_view(overlay) || inverse_map == nullptr) return invalid(error, "empty or malformed overlay");
        const cv::Matx23d toOverlay(inverse_map[0], inverse_map[2], inverse_map[4], inverse_map[1], inverse_map[3],
                                    inverse_map[5]);
        cv::Matx23d toImage;
        cv::invertAffineTransform(toOverlay, toImage);
        // Only the image's pixels the overlay's corners span are touched.
        double left = INFINITY, top = INFINITY, right = -INFINITY, bottom = -INFINITY;
        for (const cv::Point2d corner : {cv::Point2d(-0.5, -0.5), cv::Point2d(overlay->width - 0.5, -0.5),
                                         cv::Point2d(-0.5, overlay->height - 0.5),
                                         cv::Point2d(overlay->width - 0.5, overlay->height - 0.5)}) {
            const cv::Point2d at(toImage(0, 0) * corner.x + toImage(0, 1) * corner.y + toImage(0, 2),
                                 toImage(1, 0) * corner.x + toImage(1, 1) * corner.y + toImage(1, 2));
            if (!std::isfinite(at.x) || !std::isfinite(at.y)) return invalid(error, "the overlay's map is not finite");
            left = std::min(left, at.x), top = std::min(top, at.y), right = std::max(right, at.x), bottom = std::max(bottom, at.y);
        }
        // Clamped to the image before any conversion to int: an overlay far off the image touches nothing.
        const double x0 = std::clamp(std::floor(left), 0.0, double(width)), y0 = std::clamp(std::floor(top), 0.0, double(height));
        const double x1 = std::clamp(std::ceil(right) + 1, 0.0, double(width)), y1 = std::clamp(std::ceil(bottom) + 1, 0.0, double(height));
        if (x1 <= x0 || y1 <= y0) return CFD_OK;
        const cv::Rect bounds(static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0));
        const cv::Mat source(overlay->height, overlay->width, CV_8UC4, const_cast<uint8_t *>(overlay->pixels), overlay->stride);
        // The map for the bounds' own pixel indices.
        const cv::Matx23d local(toOverlay(0, 0), toOverlay(0, 1), toOverlay(0, 0) * bounds.x + toOverlay(0, 1) * bounds.y + toOverlay(0, 2),
                                toOverlay(1, 0), toOverlay(1, 1), toOverlay(1, 0) * bounds.x + toOverlay(1, 1) * bounds.y + toOverlay(1, 2));
        cv::Mat placed;
        cv::warpAffine(source, placed, local, bounds.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT,
                       cv::Scalar(0, 0, 0, 0));
        cv::Mat image(height, width, CV_8UC4, pixels, stride);
        for (int row = 0; row < bounds.height; ++row) {
            uint8_t *out = image.ptr<uint8_t>(bounds.y + row) + bounds.x * 4;
            const uint8_t *in = placed.ptr<uint8_t>(row);
            for (int column = 0; column < bounds.width; ++column, out += 4, in += 4) {
                const int alpha = in[3];
                for (int channel = 0; channel < 3; ++channel) {
                    out[channel] = static_cast<uint8_t>((out[channel] * (255 - alpha) + in[channel] * alpha + 127) / 255);
                }
            }
        }
        return CFD_OK;
    });
}

} // extern "C"
