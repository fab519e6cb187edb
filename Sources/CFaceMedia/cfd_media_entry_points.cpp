// What libFaceCamMedia.so offers the shim that loads it: the library is built with hidden visibility, so that
// this table is its one exported symbol and its copies of the cfd_ functions never stand in for the binary's.
#include "media.hpp"

extern "C" __attribute__((visibility("default"))) const cfd::MediaEntryPoints *cfd_media_entry_points(void) {
    static const cfd::MediaEntryPoints table{
        cfd::MediaLayout(),
        cfd_decode_image_into,
        cfd_decode_image_with_alpha_into,
        cfd_encode_image,
        cfd_video_open,
        cfd_video_read,
        cfd_video_reported_errors,
        cfd_video_close,
        cfd_video_start_offset,
        cfd_video_writer_open,
        cfd_video_writer_write,
        cfd_video_writer_close,
    };
    return &table;
}
