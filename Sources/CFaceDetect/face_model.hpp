// The DNN face models behind cfd_model: each turns one BGR image into faces in its pixels. A model
// owns its pre- and post-processing and runs its network through the engine seam (network.hpp).
#pragma once

#include "cfd.h"
#include "network.hpp"

#include <opencv2/core.hpp>

#include <memory>
#include <vector>

namespace cfd {

class FaceModel {
public:
    virtual ~FaceModel() = default;
    /* Faces in `bgr`'s pixels, in the model's order. */
    virtual std::vector<cfd_model_face> detect(const cv::Mat &bgr) = 0;
};

std::unique_ptr<FaceModel> make_yunet(const char *model_path, const cfd_model_params &params,
                                      const cfd_engine_settings &engine);
std::unique_ptr<FaceModel> make_centerface(const char *model_path, const cfd_model_params &params,
                                           const cfd_engine_settings &engine);

} // namespace cfd
