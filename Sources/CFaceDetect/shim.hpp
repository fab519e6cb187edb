// Shared by the shim's C++ files. Every extern "C" entry point runs its body
// through `guarded`, so no exception reaches C or Swift.
#pragma once

#include "cfd.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace cfd {

inline void set_error(cfd_error *error, cfd_status status, const char *message) {
    if (error == nullptr) return;
    error->status = status;
    std::snprintf(error->message, sizeof error->message, "%s", message);
}

inline cfd_status fail(cfd_error *error, cfd_status status, const char *message) {
    set_error(error, status, message);
    return status;
}

inline cfd_status invalid(cfd_error *error, const char *message) {
    return fail(error, CFD_ERROR_INVALID_ARGUMENT, message);
}

inline bool valid_view(const cfd_image_view *image) {
    return image != nullptr && image->pixels != nullptr && image->width > 0 && image->height > 0 &&
           image->stride >= static_cast<size_t>(image->width) * 4;
}

inline bool aperture_inside(const cfd_image_view *image, cfd_rect aperture) {
    return aperture.x >= 0 && aperture.y >= 0 && aperture.width > 0 && aperture.height > 0 &&
           aperture.width <= image->width - aperture.x && aperture.height <= image->height - aperture.y;
}

/* The aperture of a BGRA view as a Mat header; no pixels are copied. */
inline cv::Mat aperture_mat(const cfd_image_view *image, cfd_rect aperture) {
    cv::Mat whole(image->height, image->width, CV_8UC4, const_cast<uint8_t *>(image->pixels), image->stride);
    return whole(cv::Rect(aperture.x, aperture.y, aperture.width, aperture.height));
}

/*
 * Pixel-exact reorientation for EXIF orientations 1...8: the pixel that ends
 * up at upright (u, v) is the one the geometry module maps there.
 */
inline cv::Mat upright(const cv::Mat &buffer, int32_t orientation) {
    cv::Mat out;
    switch (orientation) {
    case 1: return buffer;
    case 2: cv::flip(buffer, out, 1); return out;
    case 3: cv::flip(buffer, out, -1); return out;
    case 4: cv::flip(buffer, out, 0); return out;
    case 5: cv::transpose(buffer, out); return out;
    case 6: cv::rotate(buffer, out, cv::ROTATE_90_CLOCKWISE); return out;
    case 7: {
        cv::Mat transposed;
        cv::transpose(buffer, transposed);
        cv::flip(transposed, out, -1);
        return out;
    }
    case 8: cv::rotate(buffer, out, cv::ROTATE_90_COUNTERCLOCKWISE); return out;
    default: return cv::Mat();
    }
}

/*
 * cv::Exception's what() spans lines ("OpenCV(4.6.0) file:line: error: (-2:...)
 * in function 'f'\n> detail"); its own description, on one line, says enough.
 */
inline std::string condensed(const cv::Exception &e) {
    std::string text = e.err.empty() ? std::string(e.what()) : e.err;
    std::string line;
    bool line_start = true, space = false;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            if (c == '\n' || c == '\r') line_start = true;
            space = !line.empty();
            continue;
        }
        if (line_start && c == '>') continue; // OpenCV's marker for a detail line
        line_start = false;
        if (space) line += ' ';
        space = false;
        line += c;
    }
    return line.empty() ? std::string("OpenCV error ") + std::to_string(e.code) : line;
}

/* Runs `body`, turning every exception into a status and message. */
template <typename Body>
cfd_status guarded(cfd_error *error, Body &&body) {
    if (error != nullptr) {
        error->status = CFD_OK;
        error->message[0] = '\0';
    }
    try {
        return body();
    } catch (const cv::Exception &e) {
        return fail(error, CFD_ERROR_OPENCV, condensed(e).c_str());
    } catch (const std::exception &e) {
        return fail(error, CFD_ERROR_INTERNAL, e.what());
    } catch (...) {
        return fail(error, CFD_ERROR_INTERNAL, "unknown C++ exception");
    }
}

/* The SHA-256 of `count` bytes, as 64 lowercase hexadecimal digits (cfd_digest.cpp). */
std::string sha256_hex(const void *bytes, size_t count);

} // namespace cfd
