// A desktop window through OpenCV's highgui (Qt on Debian), for live --show.
// Every call must come from the one thread that opened the window: highgui's
// Qt back end runs its event loop on the thread that first used it.
#include "shim.hpp"

#include <opencv2/highgui.hpp>

using namespace cfd;

extern "C" {

cfd_status cfd_window_open(const char *title, int32_t width, int32_t height, cfd_error *error) {
    return guarded(error, [&] {
        if (title == nullptr || width <= 0 || height <= 0) return invalid(error, "a window needs a title and a size");
        // No toolbar or status bar: the window is the preview, pixel for pixel until resized.
        cv::namedWindow(title, cv::WINDOW_NORMAL | cv::WINDOW_KEEPRATIO | cv::WINDOW_GUI_NORMAL);
        cv::resizeWindow(title, width, height);
        return CFD_OK;
    });
}

cfd_status cfd_window_show(const char *title, const cfd_image_view *image, cfd_error *error) {
    return guarded(error, [&] {
        if (title == nullptr || !valid_view(image)) return invalid(error, "no window title or no image");
        const cfd_rect whole{0, 0, image->width, image->height};
        cv::Mat bgr;
        cv::cvtColor(aperture_mat(image, whole), bgr, cv::COLOR_BGRA2BGR);
        cv::imshow(title, bgr);
        return CFD_OK;
    });
}

cfd_status cfd_window_poll(const char *title, int32_t wait_ms, int32_t *key, int32_t *visible, cfd_error *error) {
    return guarded(error, [&] {
        if (title == nullptr || key == nullptr || visible == nullptr) return invalid(error, "no window title or no result");
        *key = cv::waitKey(wait_ms > 0 ? wait_ms : 1);
        *visible = cv::getWindowProperty(title, cv::WND_PROP_VISIBLE) >= 1 ? 1 : 0;
        return CFD_OK;
    });
}

void cfd_window_close(const char *title) {
    cfd_error ignored;
    guarded(&ignored, [&] {
        if (title != nullptr) cv::destroyWindow(title);
        cv::waitKey(1);
        return CFD_OK;
    });
}

} // extern "C"
