#include "network.hpp"

#include <opencv2/dnn.hpp>

#include <fstream>
#include <iterator>
#include <list>
#include <stdexcept>
#include <utility>

namespace {

/* A network on OpenCV's dnn module. For a model with a fixed input size, each input size gets its
   own network, built from the model's bytes read once; the few most recently used stay. */
class OpenCVNetwork final : public cfd::Network {
public:
    explicit OpenCVNetwork(const cfd::NetworkSpec &spec) : spec(spec) {
        std::ifstream file(spec.model_path, std::ios::binary);
        if (!file) throw std::runtime_error("cannot open the model file");
        model.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
        network(cv::Size(0, 0)); // parses the model now, so that a bad file fails at load
    }

    std::vector<cv::Mat> forward(const cv::Mat &blob) override {
        CV_Assert(blob.dims == 4 && blob.size[0] == 1);
        cv::dnn::Net &net = network(spec.fixed_input_size ? cv::Size(blob.size[3], blob.size[2]) : cv::Size(0, 0));
        net.setInput(blob);
        std::vector<cv::Mat> outputs;
        net.forward(outputs, std::vector<cv::String>(spec.outputs.begin(), spec.outputs.end()));
        return outputs;
    }

private:
    static constexpr size_t kept_networks = 4;
    cfd::NetworkSpec spec;
    std::vector<uchar> model;
    std::list<std::pair<cv::Size, cv::dnn::Net>> networks; // most recently used first

    /* The network for inputs of `size` (all sizes share the one keyed 0x0 when the model's is not fixed). */
    cv::dnn::Net &network(cv::Size size) {
        for (auto it = networks.begin(); it != networks.end(); ++it) {
            if (it->first == size) {
                networks.splice(networks.begin(), networks, it);
                return networks.front().second;
            }
        }
        cv::dnn::Net net = cv::dnn::readNetFromONNX(model);
        if (net.empty()) throw std::runtime_error("no network");
        networks.emplace_front(size, std::move(net));
        if (networks.size() > kept_networks) networks.pop_back();
        return networks.front().second;
    }
};

} // namespace

std::unique_ptr<cfd::Network> cfd::make_opencv_network(const NetworkSpec &spec) {
    return std::make_unique<OpenCVNetwork>(spec);
}
