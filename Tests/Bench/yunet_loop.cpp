// The YuNet loop a user would write with OpenCV alone: decode, FaceDetectorYN
// on each frame at its own size, one frame after another. `make bench` times it
// beside facecam --detector yunet on the same clip and compares the boxes.
//
//   yunet_loop CLIP MODEL > boxes.jsonl
//   (one line per frame: {"frame":N,"boxes":[[x,y,w,h],...]}, each value rounded, sorted by y, x, w, h)
#include <opencv2/objdetect.hpp>
#include <opencv2/videoio.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: yunet_loop CLIP MODEL\n");
        return 64;
    }
    try {
        cv::VideoCapture capture(argv[1], cv::CAP_FFMPEG);
        if (!capture.isOpened()) {
            std::fprintf(stderr, "yunet_loop: cannot open %s\n", argv[1]);
            return 1;
        }
        auto detector = cv::FaceDetectorYN::create(argv[2], "", cv::Size(320, 320), 0.9f, 0.3f, 5000);
        cv::Mat frame, faces;
        for (int index = 0; capture.read(frame); ++index) {
            detector->setInputSize(frame.size());
            detector->detect(frame, faces);
            std::vector<std::array<int, 4>> boxes;
            for (int i = 0; i < faces.rows; ++i) {
                const float *row = faces.ptr<float>(i);
                boxes.push_back({(int)std::lround(row[0]), (int)std::lround(row[1]), (int)std::lround(row[2]),
                                 (int)std::lround(row[3])});
            }
            std::sort(boxes.begin(), boxes.end(), [](const auto &a, const auto &b) {
                return std::make_tuple(a[1], a[0], a[2], a[3]) < std::make_tuple(b[1], b[0], b[2], b[3]);
            });
            std::printf("{\"frame\":%d,\"boxes\":[", index);
            for (size_t i = 0; i < boxes.size(); ++i) {
                std::printf("%s[%d,%d,%d,%d]", i ? "," : "", boxes[i][0], boxes[i][1], boxes[i][2], boxes[i][3]);
            }
            std::printf("]}\n");
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "yunet_loop: %s\n", e.what());
        return 1;
    }
    return 0;
}
