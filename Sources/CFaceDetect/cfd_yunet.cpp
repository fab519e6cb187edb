#include "face_model.hpp"

#include <algorithm>

#include <opencv2/core.hpp>
#include <opencv2/objdetect.hpp>

namespace {

/* OpenCV's FaceDetectorYN. Its input size must equal the image's; setting it rebuilds its priors, so only on a change. */
class YuNet final : public cfd::FaceModel {
public:
    YuNet(const char *model_path, const cfd_model_params &params)
        : detector(cv::FaceDetectorYN::create(model_path, "", cv::Size(64, 64), params.score_threshold,
                                              params.nms_threshold, params.top_k)) {
        if (detector.empty()) throw std::runtime_error("no detector");
    }

    std::vector<cfd_model_face> detect(const cv::Mat &bgr) override {
        std::vector<cfd_model_face> faces;
        // Below 64 pixels a side the network's pooling runs out of rows or columns and OpenCV throws.
        if (bgr.cols < 64 || bgr.rows < 64) return faces;
        // On frames under about 100 rows OpenCV 4.6's FaceDetectorYN reads past its network's
        // outputs: boxes of garbage, different from run to run. Such frames are searched padded with
        // black to 128 a side, below and to the right, so that coordinates stay the frame's.
        cv::Mat input = bgr;
        if (bgr.cols < padded_side || bgr.rows < padded_side) {
            cv::copyMakeBorder(bgr, input, 0, std::max(0, padded_side - bgr.rows), 0, std::max(0, padded_side - bgr.cols),
                               cv::BORDER_CONSTANT, cv::Scalar::all(0));
        }
        if (detector->getInputSize() != input.size()) detector->setInputSize(input.size());
        cv::Mat found;
        detector->detect(input, found);
        if (found.empty()) return faces;
        CV_Assert(found.type() == CV_32F && found.cols >= 15);
        faces.reserve(found.rows);
        for (int i = 0; i < found.rows; ++i) {
            const float *row = found.ptr<float>(i);
            cfd_model_face face;
            face.x = row[0];
            face.y = row[1];
            face.width = row[2];
            face.height = row[3];
            for (int k = 0; k < 10; ++k) face.landmarks[k] = row[4 + k];
            face.score = row[14];
            faces.push_back(face);
        }
        return faces;
    }

private:
    static constexpr int padded_side = 128;
    cv::Ptr<cv::FaceDetectorYN> detector;
};

} // namespace

std::unique_ptr<cfd::FaceModel> cfd::make_yunet(const char *model_path, const cfd_model_params &params) {
    return std::make_unique<YuNet>(model_path, params);
}
