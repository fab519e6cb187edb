// The entry points of libFaceCamMedia.so (this target, CFaceMedia): still images decoded and encoded through
// OpenCV's imgcodecs, videos read and written through its videoio and FFmpeg. The library is loaded when one is
// first wanted (Sources/CFaceDetect/cfd_media.cpp), not linked: those libraries bring over two hundred others (GDAL, GStreamer,
// codecs), whose loading cost every start about 0.12 s of CPU, cameras and JPEG batches included.
#pragma once

#include "cfd.h"

#include <cstdint>

namespace cfd {

/* Raised when what a table holds or what its functions do changes, so that a binary never calls a library built for
   another; the sizes of the structs they pass are compared too. */
constexpr int32_t media_abi = 2;

struct MediaLayout {
    int32_t abi = media_abi;
    uint32_t error = sizeof(cfd_error), image_view = sizeof(cfd_image_view), video_info = sizeof(cfd_video_info),
             video_frame = sizeof(cfd_video_frame);

    bool operator==(const MediaLayout &other) const {
        return abi == other.abi && error == other.error && image_view == other.image_view &&
               video_info == other.video_info && video_frame == other.video_frame;
    }
};

struct MediaEntryPoints {
    MediaLayout layout;
    decltype(&cfd_decode_image_into) decode_image_into;
    decltype(&cfd_decode_image_with_alpha_into) decode_image_with_alpha_into;
    decltype(&cfd_encode_image) encode_image;
    decltype(&cfd_video_open) video_open;
    decltype(&cfd_video_read) video_read;
    decltype(&cfd_video_reported_errors) video_reported_errors;
    decltype(&cfd_video_close) video_close;
    decltype(&cfd_video_start_offset) video_start_offset;
    decltype(&cfd_video_writer_open) video_writer_open;
    decltype(&cfd_video_writer_write) video_writer_write;
    decltype(&cfd_video_writer_close) video_writer_close;
};

} // namespace cfd

/* The one symbol the library exports. */
#define CFD_MEDIA_ENTRY_POINTS "cfd_media_entry_points"
extern "C" const cfd::MediaEntryPoints *cfd_media_entry_points(void);
