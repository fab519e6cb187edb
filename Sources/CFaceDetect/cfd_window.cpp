// A desktop window through OpenCV's highgui (Qt on Debian), for live --show.
//
// highgui is loaded when a window is first wanted, not linked: it pulls in Qt, which a
// command-line tool on a headless machine should not need to install. Its C entry points
// (cvNamedWindow, ...) are looked up in the libopencv_highgui beside the libopencv_core this
// shim links, so both are of one OpenCV build. Every call must come from the one thread that
// made the first one: highgui's Qt back end runs its event loop on that thread.
#include "shim.hpp"

#include <opencv2/highgui/highgui_c.h>

#include <dlfcn.h>

#include <mutex>
#include <string>

using namespace cfd;

namespace {

struct Highgui {
    decltype(&cvNamedWindow) named_window = nullptr;
    decltype(&cvResizeWindow) resize_window = nullptr;
    decltype(&cvShowImage) show_image = nullptr;
    decltype(&cvWaitKey) wait_key = nullptr;
    decltype(&cvGetWindowProperty) window_property = nullptr;
    decltype(&cvDestroyWindow) destroy_window = nullptr;
    std::string problem; // why it could not be loaded; empty once loaded
};

/* The path of the libopencv_highgui that belongs with the libopencv_core in this process. */
std::string highgui_path() {
    Dl_info info{};
    const char *fallback = "libopencv_highgui.so." CV_VERSION;
    if (dladdr(reinterpret_cast<void *>(&cv::getBuildInformation), &info) == 0 || info.dli_fname == nullptr) return fallback;
    std::string core = info.dli_fname;
    const auto at = core.rfind("libopencv_core");
    if (at == std::string::npos) return fallback;
    return core.substr(0, at) + "libopencv_highgui" + core.substr(at + std::string("libopencv_core").size());
}

template <typename Function>
bool find(void *library, const char *name, Function &function) {
    function = reinterpret_cast<Function>(dlsym(library, name));
    return function != nullptr;
}

const Highgui &highgui() {
    static Highgui loaded;
    static std::once_flag once;
    std::call_once(once, [] {
        const std::string path = highgui_path();
        void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) {
            // Debian names the package after the library's soname: libopencv_highgui.so.406 is in libopencv-highgui406.
            const auto so = path.rfind(".so.");
            const std::string package = "libopencv-highgui" + (so == std::string::npos ? std::string() : path.substr(so + 4));
            loaded.problem = "OpenCV's highgui (" + path + ") cannot be loaded: install " + package;
            return;
        }
        if (!(find(library, "cvNamedWindow", loaded.named_window) && find(library, "cvResizeWindow", loaded.resize_window) &&
              find(library, "cvShowImage", loaded.show_image) && find(library, "cvWaitKey", loaded.wait_key) &&
              find(library, "cvGetWindowProperty", loaded.window_property) &&
              find(library, "cvDestroyWindow", loaded.destroy_window))) {
            loaded.problem = path + " lacks highgui's C functions";
        }
    });
    return loaded;
}

} // namespace

extern "C" {

cfd_status cfd_window_available(cfd_error *error) {
    return guarded(error, [&] {
        const Highgui &library = highgui();
        return library.problem.empty() ? CFD_OK : fail(error, CFD_ERROR_INTERNAL, library.problem.c_str());
    });
}

cfd_status cfd_window_open(const char *title, int32_t width, int32_t height, cfd_error *error) {
    return guarded(error, [&] {
        if (title == nullptr || width <= 0 || height <= 0) return invalid(error, "a window needs a title and a size");
        const Highgui &library = highgui();
        if (!library.problem.empty()) return fail(error, CFD_ERROR_INTERNAL, library.problem.c_str());
        // No toolbar or status bar: the window is the preview, pixel for pixel until resized.
        if (library.named_window(title, CV_WINDOW_NORMAL | CV_WINDOW_KEEPRATIO | CV_GUI_NORMAL) == 0) {
            return fail(error, CFD_ERROR_OPENCV, "highgui could not make the window");
        }
        library.resize_window(title, width, height);
        return CFD_OK;
    });
}

cfd_status cfd_window_show(const char *title, const cfd_image_view *image, cfd_error *error) {
    return guarded(error, [&] {
        if (title == nullptr || !valid_view(image)) return invalid(error, "no window title or no image");
        const Highgui &library = highgui();
        if (!library.problem.empty()) return fail(error, CFD_ERROR_INTERNAL, library.problem.c_str());
        const cfd_rect whole{0, 0, image->width, image->height};
        cv::Mat bgr;
        cv::cvtColor(aperture_mat(image, whole), bgr, cv::COLOR_BGRA2BGR);
        CvMat header = cvMat(bgr.rows, bgr.cols, CV_8UC3, bgr.data);
        header.step = static_cast<int>(bgr.step);
        library.show_image(title, &header);
        return CFD_OK;
    });
}

cfd_status cfd_window_poll(const char *title, int32_t wait_ms, int32_t *key, int32_t *visible, cfd_error *error) {
    return guarded(error, [&] {
        if (title == nullptr || key == nullptr || visible == nullptr) return invalid(error, "no window title or no result");
        const Highgui &library = highgui();
        if (!library.problem.empty()) return fail(error, CFD_ERROR_INTERNAL, library.problem.c_str());
        *key = library.wait_key(wait_ms > 0 ? wait_ms : 1);
        *visible = library.window_property(title, CV_WND_PROP_VISIBLE) >= 1 ? 1 : 0;
        return CFD_OK;
    });
}

void cfd_window_close(const char *title) {
    cfd_error ignored;
    guarded(&ignored, [&] {
        const Highgui &library = highgui();
        if (title == nullptr || !library.problem.empty()) return CFD_OK;
        library.destroy_window(title);
        library.wait_key(1);
        return CFD_OK;
    });
}

} // extern "C"
