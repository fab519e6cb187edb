/*
 * cv4l2: libv4l2 for Swift. Swift cannot call the variadic v4l2_open and
 * v4l2_ioctl, nor see the VIDIOC_* and V4L2_PIX_FMT_* macros (they expand to
 * expressions), so they are wrapped here in prefixed inline functions and
 * constants. The V4L2 structs come from <linux/videodev2.h> as they are.
 */
#ifndef CV4L2_H
#define CV4L2_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>

#include <libv4l2.h>
#include <linux/videodev2.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Hands a descriptor opened with open(2) to libv4l2, which from then on converts formats for it. */
static inline int cv4l2_fd_open(int fd) { return v4l2_fd_open(fd, 0); }
static inline int cv4l2_close(int fd) { return v4l2_close(fd); }
static inline int cv4l2_ioctl(int fd, unsigned long request, void *argument) { return v4l2_ioctl(fd, request, argument); }
static inline void *cv4l2_mmap(size_t length, int fd, int64_t offset) {
    return v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
}
static inline int cv4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }
static inline int cv4l2_map_failed(const void *address) { return address == MAP_FAILED; }

static const unsigned long CV4L2_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long CV4L2_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long CV4L2_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long CV4L2_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long CV4L2_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long CV4L2_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long CV4L2_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long CV4L2_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long CV4L2_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long CV4L2_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long CV4L2_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long CV4L2_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long CV4L2_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long CV4L2_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;

static const uint32_t CV4L2_PIX_FMT_BGR24 = V4L2_PIX_FMT_BGR24;
static const uint32_t CV4L2_PIX_FMT_RGB24 = V4L2_PIX_FMT_RGB24;
static const uint32_t CV4L2_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const uint32_t CV4L2_PIX_FMT_UYVY = V4L2_PIX_FMT_UYVY;
static const uint32_t CV4L2_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
static const uint32_t CV4L2_PIX_FMT_JPEG = V4L2_PIX_FMT_JPEG;

static const uint32_t CV4L2_BUF_TYPE_VIDEO_CAPTURE = V4L2_BUF_TYPE_VIDEO_CAPTURE;
static const uint32_t CV4L2_BUF_TYPE_VIDEO_OUTPUT = V4L2_BUF_TYPE_VIDEO_OUTPUT;
static const uint32_t CV4L2_CAP_VIDEO_OUTPUT = V4L2_CAP_VIDEO_OUTPUT;
static const uint32_t CV4L2_FIELD_NONE = V4L2_FIELD_NONE;
static const uint32_t CV4L2_MEMORY_MMAP = V4L2_MEMORY_MMAP;
static const uint32_t CV4L2_FIELD_ANY = V4L2_FIELD_ANY;
static const uint32_t CV4L2_BUF_FLAG_ERROR = V4L2_BUF_FLAG_ERROR;
static const uint32_t CV4L2_BUF_FLAG_TIMESTAMP_MASK = V4L2_BUF_FLAG_TIMESTAMP_MASK;
static const uint32_t CV4L2_BUF_FLAG_TIMESTAMP_MONOTONIC = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
static const uint32_t CV4L2_CAP_VIDEO_CAPTURE = V4L2_CAP_VIDEO_CAPTURE;
static const uint32_t CV4L2_CAP_STREAMING = V4L2_CAP_STREAMING;
static const uint32_t CV4L2_CAP_DEVICE_CAPS = V4L2_CAP_DEVICE_CAPS;
static const uint32_t CV4L2_CAP_TIMEPERFRAME = V4L2_CAP_TIMEPERFRAME;
static const uint32_t CV4L2_FRMSIZE_TYPE_DISCRETE = V4L2_FRMSIZE_TYPE_DISCRETE;
static const uint32_t CV4L2_FRMIVAL_TYPE_DISCRETE = V4L2_FRMIVAL_TYPE_DISCRETE;
static const uint32_t CV4L2_FMT_FLAG_EMULATED = V4L2_FMT_FLAG_EMULATED;
static const uint32_t CV4L2_CAP_VIDEO_CAPTURE_MPLANE = V4L2_CAP_VIDEO_CAPTURE_MPLANE;

#ifdef __cplusplus
}
#endif

#endif /* CV4L2_H */
