// Still images decoded and encoded through OpenCV's imgcodecs (a part of libFaceCamMedia.so).
#include "shim.hpp"

#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace cfd;

namespace {

/* cfd_decode_image_into's work; with `has_alpha`, the image's own alpha is kept (8-bit, a 16-bit one
   scaled down) and *has_alpha says whether it had one, else alpha is opaque. */
cfd_status decode_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width, int32_t height, size_t stride,
                       int32_t *has_alpha, cfd_error *error) {
    if (pixels == nullptr || width <= 0 || height <= 0 || stride < static_cast<size_t>(width) * 4) {
        return invalid(error, "malformed destination");
    }
    if (data == nullptr || size == 0) return fail(error, CFD_ERROR_DECODE, "empty file");
    if (size > static_cast<size_t>(INT32_MAX)) return fail(error, CFD_ERROR_DECODE, "file too large");
    cv::Mat encoded(1, static_cast<int>(size), CV_8UC1, const_cast<uint8_t *>(data));
    cv::Mat decoded = cv::imdecode(
        encoded, (has_alpha != nullptr ? cv::IMREAD_UNCHANGED : cv::IMREAD_COLOR) | cv::IMREAD_IGNORE_ORIENTATION);
    if (decoded.empty()) return fail(error, CFD_ERROR_DECODE, "not an image OpenCV can decode, or damaged");
    if (decoded.cols != width || decoded.rows != height) {
        return fail(error, CFD_ERROR_DECODE, "the image is not the size its header announced");
    }
    if (decoded.depth() != CV_8U) decoded.convertTo(decoded, CV_8U, decoded.depth() == CV_16U ? 1.0 / 257 : 1.0);
    cv::Mat bgra(height, width, CV_8UC4, pixels, stride);
    if (has_alpha != nullptr) *has_alpha = decoded.channels() == 4;
    switch (decoded.channels()) {
    case 1: cv::cvtColor(decoded, bgra, cv::COLOR_GRAY2BGRA); break;
    case 4: decoded.copyTo(bgra); break;
    default: cv::cvtColor(decoded, bgra, cv::COLOR_BGR2BGRA); break;
    }
    return CFD_OK;
}

} // namespace

extern "C" {

cfd_status cfd_decode_image_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width, int32_t height,
                                 size_t stride, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status { return decode_into(data, size, pixels, width, height, stride, nullptr, error); });
}

cfd_status cfd_decode_image_with_alpha_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width,
                                            int32_t height, size_t stride, int32_t *has_alpha, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (has_alpha == nullptr) return invalid(error, "null argument");
        return decode_into(data, size, pixels, width, height, stride, has_alpha, error);
    });
}

cfd_status cfd_encode_image(const cfd_image_view *image, const char *extension, int32_t quality, uint8_t **data,
                            size_t *size, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (!valid_view(image)) return invalid(error, "empty or malformed image");
        if (extension == nullptr || data == nullptr || size == nullptr) return invalid(error, "missing argument");
        if (!cv::haveImageWriter(extension)) return invalid(error, "OpenCV cannot write this format");
        cv::Mat bgra(image->height, image->width, CV_8UC4, const_cast<uint8_t *>(image->pixels), image->stride);
        cv::Mat bgr;
        cv::cvtColor(bgra, bgr, cv::COLOR_BGRA2BGR);
        const int level = std::clamp<int>(quality, 1, 100);
        const std::vector<int> parameters{cv::IMWRITE_JPEG_QUALITY, level, cv::IMWRITE_WEBP_QUALITY, level};
        std::vector<uint8_t> bytes;
        if (!cv::imencode(extension, bgr, bytes, parameters)) return fail(error, CFD_ERROR_OPENCV, "cv::imencode failed");
        *data = static_cast<uint8_t *>(std::malloc(bytes.empty() ? 1 : bytes.size()));
        if (*data == nullptr) return fail(error, CFD_ERROR_INTERNAL, "out of memory");
        std::memcpy(*data, bytes.data(), bytes.size());
        *size = bytes.size();
        return CFD_OK;
    });
}

} // extern "C"
