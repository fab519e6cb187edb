#include "cfd.h"
#include "face_model.hpp"
#include "shim.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

struct cfd_model {
    std::unique_ptr<cfd::FaceModel> model;
    /* The last frame cfd_model_prepare made: the upright aperture in BGR. */
    cv::Mat prepared;
};

using cfd::guarded;
using cfd::invalid;

namespace {

/* The smallest side any model is run on: below it no face fits. */
constexpr int smallest_side = 16;
/* The most pixels one search may look at (8192 x 8192): about 6 GB of YuNet's working memory. */
constexpr int64_t most_pixels = int64_t(1) << 26;

/* A face a model could have found: every number finite, and coordinates no farther out than the
   most pixels a search takes, since garbage from a model (see cfd_yunet.cpp) must not reach Swift's conversions to Int. */
bool plausible(const cfd_model_face &face) {
    const auto near = [](float v) { return std::isfinite(v) && std::fabs(v) <= float(most_pixels); };
    if (!near(face.x) || !near(face.y) || !near(face.width) || !near(face.height) || !std::isfinite(face.score)) {
        return false;
    }
    return std::all_of(std::begin(face.landmarks), std::end(face.landmarks), near);
}

/* Every DNN face model the shim decodes, by the id Swift's FaceModelKind gives it: filled by the models' own
   files as the program starts (a function's static, so that it exists before the first registration). */
std::vector<std::pair<const char *, cfd::FaceModelMaker>> &registry() {
    static std::vector<std::pair<const char *, cfd::FaceModelMaker>> models;
    return models;
}

} // namespace

cfd::FaceModelRegistration::FaceModelRegistration(const char *id, FaceModelMaker make) {
    registry().emplace_back(id, make);
}

cfd::FaceModelMaker cfd::registered_model(const char *id) {
    for (const auto &[registered, make] : registry()) {
        if (std::strcmp(registered, id) == 0) return make;
    }
    return nullptr;
}

extern "C" {

cfd_model *cfd_model_create(const char *kind, const char *model_path, const cfd_model_params *params,
                            const cfd_engine_settings *engine, cfd_error *error) {
    cfd_model *result = nullptr;
    guarded(error, [&]() -> cfd_status {
        if (kind == nullptr || model_path == nullptr || params == nullptr || engine == nullptr) {
            return invalid(error, "null argument");
        }
        if (!(params->score_threshold >= 0 && params->score_threshold <= 1) ||
            !(params->nms_threshold >= 0 && params->nms_threshold <= 1) || params->top_k < 1) {
            return invalid(error, "score and NMS thresholds must be 0...1 and top-k 1 or more");
        }
        const cfd::FaceModelMaker make = cfd::registered_model(kind);
        if (make == nullptr) return invalid(error, "unknown model kind");
        if ((engine->engine != CFD_ENGINE_OPENCV && engine->engine != CFD_ENGINE_OPENVINO) ||
            (engine->precision != CFD_PRECISION_F32 && engine->precision != CFD_PRECISION_BF16) || engine->threads < 1) {
            return invalid(error, "unknown engine or precision, or threads under 1");
        }
        auto model = std::make_unique<cfd_model>();
        model->model = make(model_path, *params, *engine);
        // A file that parses as some other network fails only when run: try it once on a black image.
        model->model->detect(cv::Mat(64, 64, CV_8UC3, cv::Scalar::all(0)));
        result = model.release();
        return CFD_OK;
    });
    if (result == nullptr && error != nullptr && error->status != CFD_ERROR_INVALID_ARGUMENT) {
        error->status = CFD_ERROR_MODEL;
    }
    return result;
}

void cfd_model_destroy(cfd_model *model) {
    delete model;
}

cfd_status cfd_model_prepare(cfd_model *model, const cfd_image_view *image, cfd_rect aperture, int32_t orientation,
                             cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (model == nullptr) return invalid(error, "null argument");
        model->prepared.release();
        if (!cfd::valid_view(image)) return invalid(error, "empty or malformed image");
        if (!cfd::aperture_inside(image, aperture)) return invalid(error, "aperture is not inside the image");
        if (orientation < 1 || orientation > 8) return invalid(error, "orientation must be 1...8");
        cv::Mat bgr;
        cv::cvtColor(cfd::aperture_mat(image, aperture), bgr, cv::COLOR_BGRA2BGR);
        model->prepared = cfd::upright(bgr, orientation);
        return CFD_OK;
    });
}

cfd_status cfd_model_search(cfd_model *model, cfd_rect region, int32_t width, int32_t height, cfd_model_faces *faces,
                            cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (model == nullptr || faces == nullptr) return invalid(error, "null argument");
        *faces = cfd_model_faces{nullptr, 0};
        const cv::Mat &prepared = model->prepared;
        if (prepared.empty()) return invalid(error, "no prepared frame");
        const cv::Rect area(region.x, region.y, region.width, region.height);
        if (area.width < 1 || area.height < 1 || (area & cv::Rect(0, 0, prepared.cols, prepared.rows)) != area) {
            return invalid(error, "region must lie inside the prepared image");
        }
        if (width < 1 || height < 1 || int64_t(width) * height > most_pixels) {
            return invalid(error, "search size must be 1x1 up to 2^26 pixels");
        }
        if (width < smallest_side || height < smallest_side) return CFD_OK;
        cv::Mat searched = prepared(area);
        if (width != area.width || height != area.height) {
            const bool shrinking = int64_t(width) * height < int64_t(area.width) * area.height;
            cv::resize(prepared(area), searched, cv::Size(width, height), 0, 0,
                       shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
        }
        std::vector<cfd_model_face> found = model->model->detect(searched);
        found.erase(std::remove_if(found.begin(), found.end(), [](const cfd_model_face &face) { return !plausible(face); }),
                    found.end());
        if (found.empty()) return CFD_OK;

        auto list = static_cast<cfd_model_face *>(std::malloc(found.size() * sizeof(cfd_model_face)));
        if (list == nullptr) throw std::bad_alloc();
        // Back to the prepared image's coordinates (exact when not resized).
        const float sx = static_cast<float>(area.width) / width, sy = static_cast<float>(area.height) / height;
        for (size_t i = 0; i < found.size(); ++i) {
            cfd_model_face face = found[i];
            face.x = face.x * sx + area.x;
            face.y = face.y * sy + area.y;
            face.width *= sx;
            face.height *= sy;
            for (int k = 0; k < 10; k += 2) {
                face.landmarks[k] = face.landmarks[k] * sx + area.x;
                face.landmarks[k + 1] = face.landmarks[k + 1] * sy + area.y;
            }
            list[i] = face;
        }
        faces->faces = list;
        faces->count = found.size();
        return CFD_OK;
    });
}

void cfd_model_faces_free(cfd_model_faces *faces) {
    if (faces == nullptr) return;
    std::free(faces->faces);
    *faces = cfd_model_faces{nullptr, 0};
}

} // extern "C"
