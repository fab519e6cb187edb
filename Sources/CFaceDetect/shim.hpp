// Shared by the shim's C++ files. Every extern "C" entry point runs its body
// through `guarded`, so no exception reaches C or Swift.
#pragma once

#include "cfd.h"

#include <opencv2/core.hpp>

#include <cstdio>
#include <exception>

namespace cfd {

inline void set_error(cfd_error *error, cfd_status status, const char *message) {
    if (error == nullptr) return;
    error->status = status;
    std::snprintf(error->message, sizeof error->message, "%s", message);
}

inline cfd_status fail(cfd_error *error, cfd_status status, const char *message) {
    set_error(error, status, message);
    return status;
}

inline cfd_status invalid(cfd_error *error, const char *message) {
    return fail(error, CFD_ERROR_INVALID_ARGUMENT, message);
}

inline bool valid_view(const cfd_image_view *image) {
    return image != nullptr && image->pixels != nullptr && image->width > 0 && image->height > 0 &&
           image->stride >= static_cast<size_t>(image->width) * 4;
}

/* Runs `body`, turning every exception into a status and message. */
template <typename Body>
cfd_status guarded(cfd_error *error, Body &&body) {
    if (error != nullptr) {
        error->status = CFD_OK;
        error->message[0] = '\0';
    }
    try {
        return body();
    } catch (const cv::Exception &e) {
        return fail(error, CFD_ERROR_OPENCV, e.what());
    } catch (const std::exception &e) {
        return fail(error, CFD_ERROR_INTERNAL, e.what());
    } catch (...) {
        return fail(error, CFD_ERROR_INTERNAL, "unknown C++ exception");
    }
}

} // namespace cfd
