// The engine seam: one place runs a network. A face model builds its input blob and decodes the
// outputs; the engine (OpenCV's dnn or OpenVINO) only maps a blob to named outputs.
#pragma once

#include "cfd.h"

#include <opencv2/core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace cfd {

/* What an engine needs to know of a network, described once by its face model. */
struct NetworkSpec {
    std::string model_path;
    /* The outputs forward() returns, in this order. */
    std::vector<std::string> outputs;
    /* The ONNX file declares a fixed input size, which OpenCV 4.6 plans once and then computes
       wrong maps for any other size (CenterFace): that engine builds a network per input size. */
    bool fixed_input_size = false;
};

class Network {
public:
    virtual ~Network() = default;
    /* Runs the network on an NCHW float blob (batch 1); the outputs are the spec's, in its order,
       each an N-dimensional float Mat that stays valid until the next call. */
    virtual std::vector<cv::Mat> forward(const cv::Mat &blob) = 0;
};

std::unique_ptr<Network> make_opencv_network(const NetworkSpec &spec);
std::unique_ptr<Network> make_openvino_network(const NetworkSpec &spec, const cfd_engine_settings &settings);

/* The network on the engine `settings` names. */
inline std::unique_ptr<Network> make_network(const NetworkSpec &spec, const cfd_engine_settings &settings) {
    return settings.engine == CFD_ENGINE_OPENVINO ? make_openvino_network(spec, settings) : make_opencv_network(spec);
}

} // namespace cfd
