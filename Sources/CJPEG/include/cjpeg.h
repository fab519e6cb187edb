/*
 * cjpeg: JPEG decode and encode for 8-bit BGRA images through libjpeg(-turbo).
 *
 * libjpeg reports errors by longjmp, which Swift cannot survive, so the jump
 * lands here and becomes a status and a message in the caller's buffer.
 */
#ifndef CJPEG_H
#define CJPEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CJPEG_OK = 0,
    CJPEG_ERROR_INVALID_ARGUMENT = 1,
    CJPEG_ERROR_CORRUPT = 2,        /* not JPEG data, damaged, or truncated */
    CJPEG_ERROR_UNSUPPORTED = 3,    /* valid JPEG in a colour space this decoder does not convert (CMYK, YCCK) */
    CJPEG_ERROR_TOO_LARGE = 4,      /* dimensions beyond what this process will allocate */
    CJPEG_ERROR_OUT_OF_MEMORY = 5
} cjpeg_status;

/* BGRA pixels allocated by this library; release with cjpeg_image_free. */
typedef struct {
    uint8_t *pixels;
    int32_t width;
    int32_t height;
    size_t stride;
} cjpeg_image;

/*
 * Decodes JPEG bytes to BGRA with libjpeg's defaults (islow DCT, fancy
 * upsampling), the same settings OpenCV's imread uses. A file that ends
 * before its last scan is an error, not a grey-filled image.
 * `message` receives a NUL-terminated reason on failure.
 */
cjpeg_status cjpeg_decode(const uint8_t *data, size_t size, cjpeg_image *image,
                          char *message, size_t message_capacity);
void cjpeg_image_free(cjpeg_image *image);

/* Encodes BGRA pixels at `quality` (1...100); *output is malloc'd, release with cjpeg_buffer_free. */
cjpeg_status cjpeg_encode(const uint8_t *pixels, int32_t width, int32_t height, size_t stride,
                          int32_t quality, uint8_t **output, size_t *output_size,
                          char *message, size_t message_capacity);
void cjpeg_buffer_free(uint8_t *buffer);

#ifdef __cplusplus
}
#endif

#endif /* CJPEG_H */
