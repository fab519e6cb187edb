#include "face_model.hpp"

#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace {

/*
 * YuNet (2022mar) as OpenCV 4.6's FaceDetectorYN runs it, on any engine: the BGR image as a blob
 * (no scaling, no mean), the network's loc, conf and iou outputs decoded against priors made for
 * the input size, then cv::dnn::NMSBoxes on the boxes truncated to whole pixels. The arithmetic is
 * FaceDetectorYN's, step for step, so that on OpenCV's engine the faces are its faces.
 */
class YuNet final : public cfd::FaceModel {
public:
    YuNet(const char *model_path, const cfd_model_params &params, const cfd_engine_settings &engine)
        : params(params), network(cfd::make_network({model_path, {"loc", "conf", "iou"}, false}, engine)) {}

    std::vector<cfd_model_face> detect(const cv::Mat &bgr) override {
        // Below 64 pixels a side the network's pooling runs out of rows or columns and OpenCV throws.
        if (bgr.cols < 64 || bgr.rows < 64) return {};
        // On frames under about 100 rows the priors FaceDetectorYN makes outnumber the network's
        // outputs, which it then reads past. Such frames are searched padded with black to 128 a
        // side, below and to the right, so that coordinates stay the frame's.
        cv::Mat input = bgr;
        if (bgr.cols < padded_side || bgr.rows < padded_side) {
            cv::copyMakeBorder(bgr, input, 0, std::max(0, padded_side - bgr.rows), 0, std::max(0, padded_side - bgr.cols),
                               cv::BORDER_CONSTANT, cv::Scalar::all(0));
        }
        if (input.size() != prior_size) make_priors(input.size());
        const std::vector<cv::Mat> outputs = network->forward(cv::dnn::blobFromImage(input));
        return decode(outputs[0], outputs[1], outputs[2]);
    }

private:
    static constexpr int padded_side = 128;
    cfd_model_params params;
    std::unique_ptr<cfd::Network> network;
    cv::Size prior_size;
    std::vector<cv::Rect2f> priors;

    /* FaceDetectorYN::generatePriors: anchors at strides 8 to 64 over feature maps whose sizes
       follow from the input's. */
    void make_priors(cv::Size size) {
        const int inputW = size.width, inputH = size.height;
        const cv::Size second(int((inputW + 1) / 2) / 2, int((inputH + 1) / 2) / 2);
        const cv::Size third(second.width / 2, second.height / 2);
        const cv::Size fourth(third.width / 2, third.height / 2);
        const cv::Size fifth(fourth.width / 2, fourth.height / 2);
        const cv::Size sixth(fifth.width / 2, fifth.height / 2);
        const cv::Size maps[4] = {third, fourth, fifth, sixth};
        const std::vector<std::vector<float>> min_sizes = {
            {10.0f, 16.0f, 24.0f}, {32.0f, 48.0f}, {64.0f, 96.0f}, {128.0f, 192.0f, 256.0f}};
        const int steps[4] = {8, 16, 32, 64};
        priors.clear();
        for (size_t i = 0; i < 4; ++i) {
            for (int h = 0; h < maps[i].height; ++h) {
                for (int w = 0; w < maps[i].width; ++w) {
                    for (float min_size : min_sizes[i]) {
                        const float s_kx = min_size / inputW, s_ky = min_size / inputH;
                        const float cx = (w + 0.5f) * steps[i] / inputW, cy = (h + 0.5f) * steps[i] / inputH;
                        priors.emplace_back(cx, cy, s_kx, s_ky);
                    }
                }
            }
        }
        prior_size = size;
    }

    /* FaceDetectorYN::postProcess, reading no further than the outputs hold. */
    std::vector<cfd_model_face> decode(const cv::Mat &loc, const cv::Mat &conf, const cv::Mat &iou) const {
        CV_Assert(loc.isContinuous() && conf.isContinuous() && iou.isContinuous());
        CV_Assert(loc.total() >= priors.size() * 14 && conf.total() >= priors.size() * 2 && iou.total() >= priors.size());
        const float *loc_v = loc.ptr<float>(), *conf_v = conf.ptr<float>(), *iou_v = iou.ptr<float>();
        const float variance[2] = {0.1f, 0.2f};
        const int inputW = prior_size.width, inputH = prior_size.height;
        std::vector<cfd_model_face> candidates(priors.size());
        std::vector<cv::Rect2i> boxes(priors.size());
        std::vector<float> scores(priors.size());
        for (size_t i = 0; i < priors.size(); ++i) {
            const cv::Rect2f &prior = priors[i];
            const float *l = loc_v + i * 14;
            const float score = std::sqrt(conf_v[i * 2 + 1] * std::min(1.0f, std::max(0.0f, iou_v[i])));
            const float cx = (prior.x + l[0] * variance[0] * prior.width) * inputW;
            const float cy = (prior.y + l[1] * variance[0] * prior.height) * inputH;
            const float w = prior.width * std::exp(l[2] * variance[0]) * inputW;
            const float h = prior.height * std::exp(l[3] * variance[1]) * inputH;
            cfd_model_face &face = candidates[i];
            face.x = cx - w / 2;
            face.y = cy - h / 2;
            face.width = w;
            face.height = h;
            for (int k = 0; k < 5; ++k) {
                face.landmarks[2 * k] = (prior.x + l[4 + 2 * k] * variance[0] * prior.width) * inputW;
                face.landmarks[2 * k + 1] = (prior.y + l[5 + 2 * k] * variance[0] * prior.height) * inputH;
            }
            face.score = score;
            boxes[i] = cv::Rect2i(int(face.x), int(face.y), int(face.width), int(face.height));
            scores[i] = score;
        }
        if (candidates.size() <= 1) return candidates;
        return cfd::suppressed(candidates, boxes, scores, params);
    }
};

const cfd::FaceModelRegistration registration("yunet", [](const char *model_path, const cfd_model_params &params,
                                                          const cfd_engine_settings &engine) -> std::unique_ptr<cfd::FaceModel> {
    return std::make_unique<YuNet>(model_path, params, engine);
});

} // namespace
