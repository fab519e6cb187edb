// The loop a user would write with OpenCV alone: decode, grey, equalise,
// detectMultiScale, one frame after another. `make bench` times it beside
// facecam on the same clip and compares the boxes frame by frame.
//
//   reference_loop CLIP CASCADE > boxes.jsonl
//   (one line per frame: {"frame":N,"boxes":[[x,y,w,h],...]} sorted by y, x, w, h)
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <opencv2/videoio.hpp>

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <vector>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: reference_loop CLIP CASCADE\n");
        return 64;
    }
    cv::VideoCapture capture(argv[1], cv::CAP_FFMPEG);
    cv::CascadeClassifier classifier;
    if (!capture.isOpened() || !classifier.load(argv[2])) {
        std::fprintf(stderr, "reference_loop: cannot open %s or %s\n", argv[1], argv[2]);
        return 1;
    }
    cv::Mat frame, grey;
    std::vector<cv::Rect> faces;
    for (int index = 0; capture.read(frame); ++index) {
        cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
        cv::equalizeHist(grey, grey);
        classifier.detectMultiScale(grey, faces, 1.1, 3, 0, cv::Size(30, 30));
        std::sort(faces.begin(), faces.end(), [](const cv::Rect &a, const cv::Rect &b) {
            return std::tie(a.y, a.x, a.width, a.height) < std::tie(b.y, b.x, b.width, b.height);
        });
        std::printf("{\"frame\":%d,\"boxes\":[", index);
        for (size_t i = 0; i < faces.size(); ++i) {
            std::printf("%s[%d,%d,%d,%d]", i ? "," : "", faces[i].x, faces[i].y, faces[i].width, faces[i].height);
        }
        std::printf("]}\n");
    }
    return 0;
}
