#include "cfd.h"
#include "shim.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

struct cfd_detector {
    cv::CascadeClassifier classifier;
    /* The last frame cfd_prepare made: equalised upright grey, searched by cfd_search. */
    cv::Mat prepared;
    /* That frame's and the one before's upright grey, before equalising, averaged over cells
     * (cfd_changed_regions), kept once cfd_watch_changes asked for them. */
    bool watching_changes = false;
    cv::Mat cells, previous_cells;
    /* The prepared frame scaled as detectMultiScale scales it, by index in the ladder of scales
     * (cfd_search_in_place), made when first needed for this frame and this scale factor. */
    double scaled_factor = 0;
    std::vector<cv::Mat> scaled;
};

namespace {
/* The side of the cells cfd_changed_regions compares, in pixels. */
constexpr int motion_cell = 8;
/* How many columns of a scaled image cfd_search_in_place scans left of the windows it wants: the
 * cascade skips the window after one that fails its first stage, so a row's scan that starts
 * elsewhere than the whole frame's evaluates other windows until the two scans meet. */
constexpr int scan_lead = 16;

using cfd::fail;
using cfd::guarded;
using cfd::invalid;
using cfd::valid_view;
using cfd::aperture_inside;
using cfd::aperture_mat;
using cfd::upright;

cfd_status check_search(const cfd_detector *detector, const cfd_params *params, const cfd_rects *faces, cfd_error *error) {
    if (detector == nullptr || params == nullptr || faces == nullptr) return invalid(error, "null argument");
    if (detector->prepared.empty()) return invalid(error, "no prepared frame");
    if (!(params->scale_factor > 1.0)) return invalid(error, "scale factor must be greater than 1");
    if (params->min_neighbors < 0) return invalid(error, "min neighbours must not be negative");
    return CFD_OK;
}

/* Hands `found` to the caller in `out` (freed with cfd_rects_free), moved by `offset` (the searched
 * area's origin). */
void give(const std::vector<cv::Rect> &found, cv::Point offset, cfd_rects *out) {
    if (found.empty()) return;
    auto rects = static_cast<cfd_rect *>(std::malloc(found.size() * sizeof(cfd_rect)));
    if (rects == nullptr) throw std::bad_alloc();
    for (size_t i = 0; i < found.size(); ++i) {
        rects[i] = cfd_rect{offset.x + found[i].x, offset.y + found[i].y, found[i].width, found[i].height};
    }
    out->rects = rects;
    out->count = found.size();
}
} // namespace


extern "C" {

cfd_detector *cfd_detector_create(const char *cascade_path, cfd_error *error) {
    cfd_detector *result = nullptr;
    guarded(error, [&]() -> cfd_status {
        if (cascade_path == nullptr) return invalid(error, "no cascade path");
        auto detector = new cfd_detector();
        // load() reports a missing or malformed file by returning false, a
        // malformed XML file also by throwing; both end up here as an error.
        bool loaded = false;
        try {
            loaded = detector->classifier.load(cascade_path) && !detector->classifier.empty();
        } catch (const cv::Exception &e) {
            delete detector;
            // OpenCV's parser names only its own function ("parseValue", "isMap()").
            std::string reason = "not a cascade XML file OpenCV can parse (OpenCV: " + cfd::condensed(e) + ")";
            return fail(error, CFD_ERROR_CASCADE, reason.c_str());
        } catch (...) {
            delete detector;
            throw;
        }
        if (!loaded) {
            delete detector;
            return fail(error, CFD_ERROR_CASCADE, "not a cascade classifier OpenCV can load");
        }
        result = detector;
        return CFD_OK;
    });
    return result;
}

void cfd_detector_destroy(cfd_detector *detector) {
    delete detector;
}

cfd_status cfd_prepare(cfd_detector *detector, const cfd_image_view *image, cfd_rect aperture,
                       int32_t orientation, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (detector == nullptr) return invalid(error, "null argument");
        detector->prepared.release();
        detector->scaled.clear();
        if (!valid_view(image)) return invalid(error, "empty or malformed image");
        if (!aperture_inside(image, aperture)) return invalid(error, "aperture is not inside the image");
        if (orientation < 1 || orientation > 8) return invalid(error, "orientation must be 1...8");
        cv::Mat grey;
        cv::cvtColor(aperture_mat(image, aperture), grey, cv::COLOR_BGRA2GRAY);
        const cv::Mat upright_grey = upright(grey, orientation);
        cv::equalizeHist(upright_grey, detector->prepared);
        if (detector->watching_changes) {
            std::swap(detector->cells, detector->previous_cells);
            cv::resize(upright_grey, detector->cells,
                       cv::Size(std::max(1, upright_grey.cols / motion_cell), std::max(1, upright_grey.rows / motion_cell)), 0,
                       0, cv::INTER_AREA);
        }
        return CFD_OK;
    });
}

cfd_status cfd_search(cfd_detector *detector, const cfd_rect *region, double shrink, const cfd_params *params,
                      cfd_rects *faces, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (faces != nullptr) *faces = cfd_rects{nullptr, 0};
        if (cfd_status status = check_search(detector, params, faces, error); status != CFD_OK) return status;
        if (!(shrink >= 1.0)) return invalid(error, "shrink must be 1 or more");
        const cv::Mat &prepared = detector->prepared;
        cv::Rect area(0, 0, prepared.cols, prepared.rows);
        if (region != nullptr) area &= cv::Rect(region->x, region->y, region->width, region->height);
        if (area.empty()) return CFD_OK;

        cv::Mat searched = prepared(area);
        if (shrink > 1.0) {
            cv::Mat smaller;
            cv::resize(searched, smaller, cv::Size(), 1 / shrink, 1 / shrink, cv::INTER_AREA);
            searched = smaller;
        }
        auto scaled = [shrink](int32_t length) { return static_cast<int>(length / shrink); };
        std::vector<cv::Rect> found;
        detector->classifier.detectMultiScale(
            searched, found, params->scale_factor, params->min_neighbors, 0,
            cv::Size(scaled(params->min_width), scaled(params->min_height)),
            cv::Size(scaled(params->max_width), scaled(params->max_height)));
        // Back to the prepared frame's coordinates (exact when shrink is 1).
        for (cv::Rect &rect : found) {
            rect = cv::Rect(cvRound(rect.x * shrink), cvRound(rect.y * shrink), cvRound(rect.width * shrink),
                            cvRound(rect.height * shrink));
        }
        give(found, area.tl(), faces);
        return CFD_OK;
    });
}

cfd_status cfd_search_in_place(cfd_detector *detector, cfd_rect region, const cfd_params *params, cfd_rects *faces,
                               cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (faces != nullptr) *faces = cfd_rects{nullptr, 0};
        if (cfd_status status = check_search(detector, params, faces, error); status != CFD_OK) return status;
        const cv::Mat &prepared = detector->prepared;
        const cv::Rect area = cv::Rect(region.x, region.y, region.width, region.height) & cv::Rect(0, 0, prepared.cols, prepared.rows);
        if (area.empty()) return CFD_OK;
        if (detector->scaled_factor != params->scale_factor) {
            detector->scaled.clear();
            detector->scaled_factor = params->scale_factor;
        }
        // The ladder of scales, the scaled images, the windows each row's scan reaches and the rects
        // the windows stand for are computed as cascadedetect.cpp's detectMultiScaleNoGrouping
        // (OpenCV 4.6) computes them for the whole frame, in the same types.
        const cv::Size window = detector->classifier.getOriginalWindowSize();
        const cv::Size frame = prepared.size();
        const cv::Size smallest(params->min_width, params->min_height);
        const cv::Size largest = params->max_width > 0 && params->max_height > 0
            ? cv::Size(params->max_width, params->max_height) : frame;
        std::vector<cv::Rect> hits;
        int index = 0;
        for (double factor = 1;; factor *= params->scale_factor, ++index) {
            const float scale = static_cast<float>(factor);
            const cv::Size size(cvRound(window.width * scale), cvRound(window.height * scale));
            if (size.width > frame.width || size.height > frame.height) break;
            if (size.width > largest.width || size.height > largest.height) break;
            if (size.width < smallest.width || size.height < smallest.height) continue;
            // The windows of this scale that lie inside `area`, in the scaled image; a row's scan
            // steps by 2 below scale 2, by 1 from there on, from column and row 0.
            const int step = scale >= 2 ? 1 : 2;
            const cv::Size scaled_size(cvRound(frame.width / scale), cvRound(frame.height / scale));
            // An edge of the frame is the scaled image's edge, which rounding may put beyond it.
            const int x0 = static_cast<int>(std::ceil(area.x / scale)), y0 = static_cast<int>(std::ceil(area.y / scale));
            const int x1 = area.x + area.width == frame.width ? scaled_size.width : static_cast<int>((area.x + area.width) / scale);
            const int y1 = area.y + area.height == frame.height ? scaled_size.height : static_cast<int>((area.y + area.height) / scale);
            if (x1 - x0 < window.width || y1 - y0 < window.height) continue;
            if (static_cast<int>(detector->scaled.size()) <= index) detector->scaled.resize(index + 1);
            cv::Mat &scaled = detector->scaled[index];
            if (scaled.empty()) cv::resize(prepared, scaled, scaled_size, 0, 0, cv::INTER_LINEAR_EXACT);
            const int left = std::max(0, (x0 - scan_lead) / step * step), top = (y0 + step - 1) / step * step;
            const cv::Rect scanned = cv::Rect(left, top, x1 - left, y1 - top) & cv::Rect(0, 0, scaled.cols, scaled.rows);
            if (scanned.width < window.width || scanned.height < window.height) continue;
            // detectMultiScale scans an image at its own size with the step of scale 1 (2); at
            // scale 2 (step 1), an image of twice the size (pixels doubled) is the same image again.
            std::vector<cv::Rect> found;
            if (step == 2) {
                detector->classifier.detectMultiScale(scaled(scanned), found, 1.1, 0, 0, window, window);
            } else {
                cv::Mat doubled;
                cv::resize(scaled(scanned), doubled, cv::Size(), 2, 2, cv::INTER_NEAREST);
                detector->classifier.detectMultiScale(doubled, found, 2.0, 0, 0, window * 2, window * 2);
                for (cv::Rect &rect : found) rect = cv::Rect(rect.x / 2, rect.y / 2, window.width, window.height);
            }
            for (const cv::Rect &rect : found) {
                const int x = scanned.x + rect.x, y = scanned.y + rect.y;
                if (x < x0 || y < y0) continue;
                hits.emplace_back(cvRound(x * scale), cvRound(y * scale), size.width, size.height);
            }
        }
        cv::groupRectangles(hits, params->min_neighbors, 0.2);
        std::vector<cv::Rect> inside;
        for (const cv::Rect &rect : hits) {
            if ((rect & area) == rect) inside.push_back(rect);
        }
        give(inside, cv::Point(0, 0), faces);
        return CFD_OK;
    });
}

void cfd_watch_changes(cfd_detector *detector) {
    if (detector != nullptr) detector->watching_changes = true;
}

cfd_status cfd_changed_regions(cfd_detector *detector, int32_t threshold, const cfd_rect *ignored, size_t ignored_count,
                               cfd_rects *regions, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (detector == nullptr || regions == nullptr || (ignored == nullptr && ignored_count > 0)) {
            return invalid(error, "null argument");
        }
        *regions = cfd_rects{nullptr, 0};
        const cv::Mat &now = detector->cells, &before = detector->previous_cells;
        if (now.empty() || before.size() != now.size()) return CFD_OK;
        cv::Mat changed;
        cv::absdiff(now, before, changed);
        cv::threshold(changed, changed, threshold, 255, cv::THRESH_BINARY);
        for (size_t i = 0; i < ignored_count; ++i) {
            // Every cell the rect touches.
            const int x0 = std::max(0, ignored[i].x / motion_cell), y0 = std::max(0, ignored[i].y / motion_cell);
            const int x1 = std::min(changed.cols, (ignored[i].x + ignored[i].width + motion_cell - 1) / motion_cell);
            const int y1 = std::min(changed.rows, (ignored[i].y + ignored[i].height + motion_cell - 1) / motion_cell);
            if (x1 > x0 && y1 > y0) changed(cv::Rect(x0, y0, x1 - x0, y1 - y0)).setTo(0);
        }
        // Cells next to a changed one join it, so that one moving thing is one region.
        cv::dilate(changed, changed, cv::Mat());
        cv::Mat labels, stats, centroids;
        const int count = cv::connectedComponentsWithStats(changed, labels, stats, centroids, 8, CV_32S);
        const cv::Rect frame(0, 0, detector->prepared.cols, detector->prepared.rows);
        std::vector<cv::Rect> found;
        for (int label = 1; label < count; ++label) {
            const cv::Rect cells(stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
                                 stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
            found.push_back(cv::Rect(cells.x * motion_cell, cells.y * motion_cell, cells.width * motion_cell,
                                     cells.height * motion_cell) & frame);
        }
        give(found, cv::Point(0, 0), regions);
        return CFD_OK;
    });
}

cfd_status cfd_detect(cfd_detector *detector, const cfd_image_view *image, cfd_rect aperture,
                      int32_t orientation, const cfd_params *params, cfd_rects *faces,
                      cfd_error *error) {
    if (faces != nullptr) *faces = cfd_rects{nullptr, 0};
    cfd_status status = cfd_prepare(detector, image, aperture, orientation, error);
    return status == CFD_OK ? cfd_search(detector, nullptr, 1.0, params, faces, error) : status;
}

cfd_status cfd_convert_to_bgra(const uint8_t *source, size_t source_stride, cfd_pixel_layout layout,
                               int32_t width, int32_t height, uint8_t *destination, size_t destination_stride,
                               cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (source == nullptr || destination == nullptr || width <= 0 || height <= 0 ||
            destination_stride < static_cast<size_t>(width) * 4) {
            return invalid(error, "malformed frame");
        }
        int type = CV_8UC3, code = cv::COLOR_BGR2BGRA;
        size_t bytes_per_pixel = 3;
        switch (layout) {
        case CFD_PIXELS_BGR24: break;
        case CFD_PIXELS_RGB24: code = cv::COLOR_RGB2BGRA; break;
        case CFD_PIXELS_YUYV: type = CV_8UC2; bytes_per_pixel = 2; code = cv::COLOR_YUV2BGRA_YUYV; break;
        case CFD_PIXELS_UYVY: type = CV_8UC2; bytes_per_pixel = 2; code = cv::COLOR_YUV2BGRA_UYVY; break;
        default: return invalid(error, "unknown pixel layout");
        }
        if (source_stride < static_cast<size_t>(width) * bytes_per_pixel) return invalid(error, "source rows too short");
        cv::Mat in(height, width, type, const_cast<uint8_t *>(source), source_stride);
        cv::Mat out(height, width, CV_8UC4, destination, destination_stride);
        cv::cvtColor(in, out, code);
        return CFD_OK;
    });
}

cfd_status cfd_convert_bgra_to_yuyv(const cfd_image_view *image, uint8_t *destination, size_t destination_stride,
                                    cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (!valid_view(image) || image->width % 2 != 0) return invalid(error, "malformed frame (the width must be even)");
        if (destination == nullptr || destination_stride < static_cast<size_t>(image->width) * 2) {
            return invalid(error, "destination rows too short");
        }
        cv::Mat bgra(image->height, image->width, CV_8UC4, const_cast<uint8_t *>(image->pixels), image->stride);
        cv::Mat bgr, yuv;
        cv::cvtColor(bgra, bgr, cv::COLOR_BGRA2BGR);
        cv::cvtColor(bgr, yuv, cv::COLOR_BGR2YUV);
        for (int row = 0; row < yuv.rows; ++row) {
            const uint8_t *in = yuv.ptr<uint8_t>(row);
            uint8_t *out = destination + row * destination_stride;
            for (int x = 0; x < yuv.cols; x += 2) {
                const uint8_t *a = in + 3 * x, *b = a + 3;
                out[2 * x] = a[0];
                out[2 * x + 1] = static_cast<uint8_t>((a[1] + b[1] + 1) / 2);
                out[2 * x + 2] = b[0];
                out[2 * x + 3] = static_cast<uint8_t>((a[2] + b[2] + 1) / 2);
            }
        }
        return CFD_OK;
    });
}

void cfd_set_opencv_threads(int32_t threads) {
    try {
        cv::setNumThreads(threads);
    } catch (...) {
        // Only a hint: OpenCV keeps its current pool.
    }
}

void cfd_run_blas_on_caller(void) {
    // A thread count the user asked OpenBLAS for is theirs.
    if (std::getenv("OPENBLAS_NUM_THREADS") != nullptr) return;
    // Looked up rather than linked: the BLAS behind libblas.so.3 is the system's choice (Debian's alternatives).
    using set_threads = void (*)(int);
    using stop_pool = int (*)(void);
    if (auto set = reinterpret_cast<set_threads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
        set(1);
        if (auto stop = reinterpret_cast<stop_pool>(dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"))) stop();
    }
}

int32_t cfd_usable_cpus(void) {
    try {
        return std::max(1, cv::getNumberOfCPUs());
    } catch (...) {
        return 1;
    }
}

int32_t cfd_opencv_threads(void) {
    try {
        return cv::getNumThreads();
    } catch (...) {
        return 1;
    }
}

const char *cfd_opencv_version(void) {
    return CV_VERSION;
}

void cfd_rects_free(cfd_rects *rects) {
    if (rects == nullptr) return;
    std::free(rects->rects);
    rects->rects = nullptr;
    rects->count = 0;
}

cfd_status cfd_warp_affine(const cfd_image_view *source, cfd_rect aperture, const double inverse_map[6],
                           uint8_t *destination, int32_t width, int32_t height, size_t stride,
                           cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (!valid_view(source)) return invalid(error, "empty or malformed source image");
        if (!aperture_inside(source, aperture)) return invalid(error, "aperture is not inside the image");
        if (inverse_map == nullptr || destination == nullptr || width <= 0 || height <= 0 ||
            stride < static_cast<size_t>(width) * 4) {
            return invalid(error, "malformed destination");
        }
        // Copy the aperture so that bilinear sampling at its edges cannot
        // reach pixels outside it: those belong to the black border.
        cv::Mat shown = aperture_mat(source, aperture).clone();
        cv::Mat out(height, width, CV_8UC4, destination, stride);
        cv::Matx23d map(inverse_map[0], inverse_map[2], inverse_map[4],
                        inverse_map[1], inverse_map[3], inverse_map[5]);
        cv::warpAffine(shown, out, map, out.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                       cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0, 255));
        return CFD_OK;
    });
}

} // extern "C"
