/*
 * cfr: face descriptors for recognition, a plain C shim over dlib (Debian's libdlib 19.24).
 *
 * A face's box goes through dlib's 5-point shape predictor to an aligned 150x150 chip (dlib's
 * get_face_chip_details, padding 0.25), and the chip through dlib's face-recognition ResNet to a
 * 128-number descriptor: what dlib's own compute_face_descriptor computes. Two descriptors of one
 * person lie close (Euclidean distance); the models are Davis King's, CC0.
 *
 * Images are 8-bit BGRA, rows `stride` bytes apart, origin top-left. Every entry point that can
 * fail takes a `cfr_error *` out-parameter; no C++ exception crosses it.
 */
#ifndef CFR_H
#define CFR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CFR_OK = 0,
    CFR_ERROR_INVALID_ARGUMENT = 1, /* a null, empty or out-of-range argument */
    CFR_ERROR_MODEL = 2,            /* a model file is missing or is not the model dlib expects */
    CFR_ERROR_INTERNAL = 3          /* anything else dlib or the C++ library raised */
} cfr_status;

/* `message` is one line. */
typedef struct {
    cfr_status status;
    char message[512];
} cfr_error;

typedef struct cfr_describer cfr_describer;

/* The number of values in a descriptor. */
#define CFR_DESCRIPTOR_LENGTH 128

/* Loads the shape predictor (shape_predictor_5_face_landmarks.dat) and the ResNet
 * (dlib_face_recognition_resnet_model_v1.dat). NULL, with `error`, when either will not load. */
cfr_describer *cfr_describer_create(const char *shape_predictor_path, const char *network_path, cfr_error *error);
void cfr_describer_destroy(cfr_describer *describer);

/*
 * The descriptor of the face in the box (`x`, `y`, `width`, `height`, pixels of `image`; dlib's
 * rectangle from left x to right x + width - 1) into `descriptor` (CFR_DESCRIPTOR_LENGTH floats),
 * the descriptor of its chip mirrored left to right into `mirrored` (NULL to skip it: it costs a
 * second pass of the network), and the five points the predictor placed into `landmarks` (x, y
 * each; NULL to skip them). Not thread-safe per describer: give each thread its own.
 */
cfr_status cfr_describe(cfr_describer *describer, const uint8_t *image, int32_t width, int32_t height, int32_t stride,
                        int32_t x, int32_t y, int32_t box_width, int32_t box_height, float *descriptor,
                        float *mirrored, float *landmarks, cfr_error *error);

/*
 * Groups `count` descriptors (CFR_DESCRIPTOR_LENGTH floats each, one after another) by dlib's Chinese
 * whispers, as its Python bindings' chinese_whispers_clustering does: an edge joins every two whose
 * Euclidean distance is below `threshold` (each is joined to itself), then dlib's chinese_whispers
 * with its defaults. `labels` (`count` of them) receives each descriptor's cluster, numbered from 0.
 */
cfr_status cfr_cluster(const float *descriptors, size_t count, double threshold, uint32_t *labels, cfr_error *error);

#ifdef __cplusplus
}
#endif

#endif
