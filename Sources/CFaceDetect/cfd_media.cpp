// The still-image and video entry points, forwarded to libFaceCamMedia.so (media.hpp), which is loaded the first
// time one is called: from beside the running program (the build's folder, where the tests run too), else from
// ../lib/facecam/media beside it (make install, the .deb; not ../lib/facecam itself, which holds OpenVINO's libraries
// and nothing else). What cannot be loaded is CFD_ERROR_MEDIA with the paths tried.
#include "media.hpp"
#include "shim.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <mutex>
#include <string>
#include <type_traits>

using namespace cfd;

namespace {

struct Media {
    const MediaEntryPoints *entry_points = nullptr;
    std::string problem; // why it could not be loaded; empty once loaded
};

/* The folder of the program the kernel ran (symbolic links resolved); empty when it cannot be told. */
std::string program_directory() {
    char path[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0) return std::string();
    std::string program(path, static_cast<size_t>(length));
    return program.substr(0, program.rfind('/'));
}

void load(Media &loaded) {
    const std::string directory = program_directory();
    if (directory.empty()) {
        // Never the working directory, which may be a folder of inputs.
        loaded.problem = "facecam's media library cannot be loaded: /proc/self/exe does not say where facecam is";
        return;
    }
    std::string tried;
    for (const std::string &path : {directory + "/libFaceCamMedia.so", directory + "/../lib/facecam/media/libFaceCamMedia.so"}) {
        std::string reason;
        if (void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            auto entry_points = reinterpret_cast<decltype(&cfd_media_entry_points)>(dlsym(library, CFD_MEDIA_ENTRY_POINTS));
            const MediaEntryPoints *table = entry_points != nullptr ? entry_points() : nullptr;
            if (table != nullptr && table->layout == MediaLayout()) {
                loaded.entry_points = table;
                return;
            }
            // Left loaded: unloading would run the destructors of the libraries it brought for nothing.
            reason = "not facecam's media library, or one built for another facecam";
        } else {
            const char *error = dlerror();
            reason = error != nullptr ? error : "dlopen failed";
            if (reason.rfind(path + ": ", 0) == 0) reason.erase(0, path.size() + 2); // dlerror names the path again
        }
        tried += (tried.empty() ? "" : "; ") + path + " (" + reason + ")";
    }
    loaded.problem = "facecam's media library cannot be loaded: " + tried;
}

const Media &media() {
    static Media loaded;
    static std::once_flag once;
    std::call_once(once, [] {
        try {
            load(loaded);
        } catch (const std::exception &e) {
            loaded.problem = std::string("facecam's media library cannot be loaded: ") + e.what();
        }
    });
    return loaded;
}

/*
 * The library's `entry` called with `arguments`; when the library cannot be loaded, `error` says why and the
 * result is CFD_ERROR_MEDIA, or NULL for the calls that open something.
 */
template <typename Result, typename... Parameters, typename... Arguments>
Result forwarded(Result (*MediaEntryPoints::*entry)(Parameters...), cfd_error *error, Arguments... arguments) {
    const Media &loaded = media();
    if (loaded.entry_points != nullptr) return (loaded.entry_points->*entry)(arguments...);
    set_error(error, CFD_ERROR_MEDIA, loaded.problem.c_str());
    if constexpr (std::is_pointer_v<Result>) {
        return nullptr;
    } else {
        return CFD_ERROR_MEDIA;
    }
}

} // namespace

extern "C" {

cfd_status cfd_decode_image_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width, int32_t height,
                                 size_t stride, cfd_error *error) {
    return forwarded(&MediaEntryPoints::decode_image_into, error, data, size, pixels, width, height, stride, error);
}

cfd_status cfd_decode_image_with_alpha_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width,
                                            int32_t height, size_t stride, int32_t *has_alpha, cfd_error *error) {
    return forwarded(&MediaEntryPoints::decode_image_with_alpha_into, error, data, size, pixels, width, height, stride,
                     has_alpha, error);
}

cfd_status cfd_encode_image(const cfd_image_view *image, const char *extension, int32_t quality, uint8_t **data,
                            size_t *size, cfd_error *error) {
    return forwarded(&MediaEntryPoints::encode_image, error, image, extension, quality, data, size, error);
}

cfd_video_reader *cfd_video_open(const char *path, int32_t timeout_ms, cfd_video_info *info, cfd_error *error) {
    return forwarded(&MediaEntryPoints::video_open, error, path, timeout_ms, info, error);
}

cfd_status cfd_video_start_offset(const char *name, double *seconds, cfd_error *error) {
    return forwarded(&MediaEntryPoints::video_start_offset, error, name, seconds, error);
}

cfd_video_writer *cfd_video_writer_open(const char *path, int32_t width, int32_t height, double frames_per_second,
                                        cfd_error *error) {
    return forwarded(&MediaEntryPoints::video_writer_open, error, path, width, height, frames_per_second, error);
}

cfd_status cfd_video_read(cfd_video_reader *reader, int32_t decode_every, uint8_t *pixels, size_t stride,
                          cfd_video_frame *frame, cfd_error *error) {
    return forwarded(&MediaEntryPoints::video_read, error, reader, decode_every, pixels, stride, frame, error);
}

cfd_status cfd_video_writer_write(cfd_video_writer *writer, const cfd_image_view *frame, cfd_error *error) {
    return forwarded(&MediaEntryPoints::video_writer_write, error, writer, frame, error);
}

// A reader or a writer exists only once the library is loaded.
int64_t cfd_video_reported_errors(const cfd_video_reader *reader) {
    return reader != nullptr ? media().entry_points->video_reported_errors(reader) : 0;
}

void cfd_video_close(cfd_video_reader *reader) {
    if (reader != nullptr) media().entry_points->video_close(reader);
}

void cfd_video_writer_close(cfd_video_writer *writer) {
    if (writer != nullptr) media().entry_points->video_writer_close(writer);
}

} // extern "C"
