// The DNN face models behind cfd_model: each turns one BGR image into faces in its pixels. A model
// owns its pre- and post-processing and runs its network through the engine seam (network.hpp).
#pragma once

#include "cfd.h"
#include "network.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include <memory>
#include <vector>

namespace cfd {

class FaceModel {
public:
    virtual ~FaceModel() = default;
    /* Faces in `bgr`'s pixels, in the model's order. */
    virtual std::vector<cfd_model_face> detect(const cv::Mat &bgr) = 0;
};

/* The candidates cv::dnn::NMSBoxes keeps, best first: `boxes` and `scores` are the candidates', as the
   model compares them (YuNet: whole pixels, CenterFace: fractions). */
template <typename Box>
std::vector<cfd_model_face> suppressed(const std::vector<cfd_model_face> &candidates, const std::vector<Box> &boxes,
                                       const std::vector<float> &scores, const cfd_model_params &params) {
    std::vector<int> kept;
    cv::dnn::NMSBoxes(boxes, scores, params.score_threshold, params.nms_threshold, kept, 1.0f, params.top_k);
    std::vector<cfd_model_face> faces;
    faces.reserve(kept.size());
    for (int k : kept) faces.push_back(candidates[k]);
    return faces;
}

/* Makes a model from its file, with the caller's parameters, on an engine. */
using FaceModelMaker = std::unique_ptr<FaceModel> (*)(const char *model_path, const cfd_model_params &params,
                                                      const cfd_engine_settings &engine);

/* Registers a model under its id (Swift's FaceModelKind.id) as the program starts: each model's own file
   holds one, so that a model is added in its file alone. Nothing else refers to those files: SwiftPM links a
   target's objects whole, where a static archive would drop them; the engine tests make every model, so a dropped
   one fails them. */
struct FaceModelRegistration {
    FaceModelRegistration(const char *id, FaceModelMaker make);
};

/* The maker registered under `id`; nullptr for none. */
FaceModelMaker registered_model(const char *id);

} // namespace cfd
