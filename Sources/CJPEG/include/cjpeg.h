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
    CJPEG_ERROR_UNSUPPORTED = 3     /* valid JPEG in a colour space this decoder does not convert (CMYK, YCCK) */
} cjpeg_status;

/* What a JPEG's header says, read before any pixel is allocated. */
typedef struct {
    int32_t width;
    int32_t height;
} cjpeg_header;

/*
 * Reads the header only (cheap): the caller checks the size against its
 * limits, then allocates for cjpeg_decode_into. CJPEG_ERROR_UNSUPPORTED for
 * CMYK and YCCK files. `message` receives a NUL-terminated reason on failure.
 */
cjpeg_status cjpeg_read_header(const uint8_t *data, size_t size, cjpeg_header *header,
                               char *message, size_t message_capacity);

/*
 * Decodes JPEG bytes to BGRA into `pixels` (`height` rows of `stride` >=
 * 4 x `width` bytes, the header's size) with libjpeg's defaults (islow DCT,
 * fancy upsampling), the same settings OpenCV's imread uses. Damage is an
 * error, not a grey-filled image: a file that ends early, and every warning
 * libjpeg calls corrupt data, except those about metadata alone (an unknown
 * JFIF revision or Adobe transform code, a bad ICC marker, non-sequential
 * SOS parameters).
 */
cjpeg_status cjpeg_decode_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width, int32_t height,
                               size_t stride, char *message, size_t message_capacity);

/* Encodes BGRA pixels at `quality` (1...100); *output is malloc'd, release with cjpeg_buffer_free. */
cjpeg_status cjpeg_encode(const uint8_t *pixels, int32_t width, int32_t height, size_t stride,
                          int32_t quality, uint8_t **output, size_t *output_size,
                          char *message, size_t message_capacity);
void cjpeg_buffer_free(uint8_t *buffer);

#ifdef __cplusplus
}
#endif

#endif /* CJPEG_H */
