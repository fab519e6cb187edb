#include "cfd.h"
#include "shim.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <cstdlib>
#include <new>

struct cfd_yunet {
    cv::Ptr<cv::FaceDetectorYN> detector;
    /* The last frame cfd_yunet_prepare made: the upright aperture in BGR. */
    cv::Mat prepared;
};

using cfd::fail;
using cfd::guarded;
using cfd::invalid;

namespace {

/* FaceDetectorYN wants its input size to equal the image's; setting it rebuilds its priors, so only on a change. */
cv::Mat run(cfd_yunet *yunet, const cv::Mat &image) {
    if (yunet->detector->getInputSize() != image.size()) yunet->detector->setInputSize(image.size());
    cv::Mat found;
    yunet->detector->detect(image, found);
    return found;
}

} // namespace

extern "C" {

cfd_yunet *cfd_yunet_create(const char *model_path, const cfd_yunet_params *params, cfd_error *error) {
    cfd_yunet *result = nullptr;
    guarded(error, [&]() -> cfd_status {
        if (model_path == nullptr || params == nullptr) return invalid(error, "null argument");
        if (!(params->score_threshold >= 0 && params->score_threshold <= 1) ||
            !(params->nms_threshold >= 0 && params->nms_threshold <= 1) || params->top_k < 1) {
            return invalid(error, "score and NMS thresholds must be 0...1 and top-k 1 or more");
        }
        auto yunet = new cfd_yunet();
        try {
            yunet->detector = cv::FaceDetectorYN::create(
                model_path, "", cv::Size(64, 64), params->score_threshold, params->nms_threshold, params->top_k);
            // A file that parses as some other network fails only when run: try it once on a black image.
            if (yunet->detector.empty()) throw std::runtime_error("no detector");
            run(yunet, cv::Mat(64, 64, CV_8UC3, cv::Scalar::all(0)));
        } catch (...) {
            delete yunet;
            throw;
        }
        result = yunet;
        return CFD_OK;
    });
    if (result == nullptr && error != nullptr && error->status != CFD_ERROR_INVALID_ARGUMENT) {
        error->status = CFD_ERROR_MODEL;
    }
    return result;
}

void cfd_yunet_destroy(cfd_yunet *detector) {
    delete detector;
}

cfd_status cfd_yunet_prepare(cfd_yunet *detector, const cfd_image_view *image, cfd_rect aperture,
                             int32_t orientation, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (detector == nullptr) return invalid(error, "null argument");
        detector->prepared.release();
        if (!cfd::valid_view(image)) return invalid(error, "empty or malformed image");
        if (!cfd::aperture_inside(image, aperture)) return invalid(error, "aperture is not inside the image");
        if (orientation < 1 || orientation > 8) return invalid(error, "orientation must be 1...8");
        cv::Mat bgr;
        cv::cvtColor(cfd::aperture_mat(image, aperture), bgr, cv::COLOR_BGRA2BGR);
        detector->prepared = cfd::upright(bgr, orientation);
        return CFD_OK;
    });
}

cfd_status cfd_yunet_search(cfd_yunet *detector, int32_t width, int32_t height, cfd_yunet_faces *faces,
                            cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (detector == nullptr || faces == nullptr) return invalid(error, "null argument");
        *faces = cfd_yunet_faces{nullptr, 0};
        const cv::Mat &prepared = detector->prepared;
        if (prepared.empty()) return invalid(error, "no prepared frame");
        if (width < 1 || height < 1 || width > prepared.cols || height > prepared.rows) {
            return invalid(error, "search size must be 1x1 up to the prepared image's");
        }
        cv::Mat searched = prepared;
        if (width != prepared.cols || height != prepared.rows) {
            cv::resize(prepared, searched, cv::Size(width, height), 0, 0, cv::INTER_AREA);
        }
        cv::Mat found = run(detector, searched);
        if (found.empty()) return CFD_OK;
        CV_Assert(found.type() == CV_32F && found.cols >= 15);

        auto list = static_cast<cfd_yunet_face *>(std::malloc(found.rows * sizeof(cfd_yunet_face)));
        if (list == nullptr) throw std::bad_alloc();
        // Back to the prepared image's coordinates (exact when not resized).
        const float sx = static_cast<float>(prepared.cols) / width, sy = static_cast<float>(prepared.rows) / height;
        for (int i = 0; i < found.rows; ++i) {
            const float *row = found.ptr<float>(i);
            cfd_yunet_face &face = list[i];
            face.x = row[0] * sx;
            face.y = row[1] * sy;
            face.width = row[2] * sx;
            face.height = row[3] * sy;
            for (int k = 0; k < 10; k += 2) {
                face.landmarks[k] = row[4 + k] * sx;
                face.landmarks[k + 1] = row[5 + k] * sy;
            }
            face.score = row[14];
        }
        faces->faces = list;
        faces->count = static_cast<size_t>(found.rows);
        return CFD_OK;
    });
}

void cfd_yunet_faces_free(cfd_yunet_faces *faces) {
    if (faces == nullptr) return;
    std::free(faces->faces);
    *faces = cfd_yunet_faces{nullptr, 0};
}

} // extern "C"
