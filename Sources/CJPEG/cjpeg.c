#include "cjpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr base; /* first, so that cinfo->err points at the whole struct */
    jmp_buf jump;
    char *message;
    size_t message_capacity;
} error_manager;

static void set_message(char *message, size_t capacity, const char *text) {
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", text);
}

static void jump_with_message(j_common_ptr cinfo) {
    error_manager *manager = (error_manager *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    manager->base.format_message(cinfo, text);
    set_message(manager->message, manager->message_capacity, text);
    longjmp(manager->jump, 1);
}

/*
 * libjpeg warns, and goes on with grey or garbage, on truncated files
 * (JWRN_JPEG_EOF), bad entropy codes, markers in the middle of a scan and
 * the like: those hide damage, so they are errors here. Warnings about
 * metadata alone leave the pixels right and stay silent.
 */
static void emit_message(j_common_ptr cinfo, int level) {
    if (level != -1) return; /* trace messages */
    switch (cinfo->err->msg_code) {
    case JWRN_JFIF_MAJOR:
    case JWRN_ADOBE_XFORM:
    case JWRN_BOGUS_ICC:
    case JWRN_NOT_SEQUENTIAL:
        return;
    default:
        jump_with_message(cinfo);
    }
}

static void install_error_manager(error_manager *manager, char *message, size_t capacity) {
    jpeg_std_error(&manager->base);
    manager->base.error_exit = jump_with_message;
    manager->base.emit_message = emit_message;
    manager->message = message;
    manager->message_capacity = capacity;
}

/*
 * The one place libjpeg's decompressor is set up and its longjmp caught: reads the header of the
 * JPEG in data into header; with pixels, decodes it into them instead (BGRA, width x height at
 * stride), refusing an image of another size than the caller was told.
 */
static cjpeg_status decompress(const uint8_t *data, size_t size, cjpeg_header *header, uint8_t *pixels,
                               int32_t width, int32_t height, size_t stride, char *message, size_t message_capacity) {
    struct jpeg_decompress_struct cinfo;
    error_manager manager;
    cinfo.err = &manager.base;
    install_error_manager(&manager, message, message_capacity);
    if (setjmp(manager.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return CJPEG_ERROR_CORRUPT;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cjpeg_status status = CJPEG_OK;
    if (pixels == NULL) {
        if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
            set_message(message, message_capacity, "CMYK JPEG");
            status = CJPEG_ERROR_UNSUPPORTED;
        }
        header->width = (int32_t)cinfo.image_width;
        header->height = (int32_t)cinfo.image_height;
    } else {
        cinfo.out_color_space = JCS_EXT_BGRA;
        jpeg_start_decompress(&cinfo);
        if (cinfo.output_width != (JDIMENSION)width || cinfo.output_height != (JDIMENSION)height) {
            set_message(message, message_capacity, "the image is not the size its header announced");
            status = CJPEG_ERROR_INVALID_ARGUMENT;
        } else {
            while (cinfo.output_scanline < cinfo.output_height) {
                JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
                jpeg_read_scanlines(&cinfo, &row, 1);
            }
            jpeg_finish_decompress(&cinfo);
        }
    }
    jpeg_destroy_decompress(&cinfo);
    return status;
}

cjpeg_status cjpeg_read_header(const uint8_t *data, size_t size, cjpeg_header *header,
                               char *message, size_t message_capacity) {
    if (header == NULL) return CJPEG_ERROR_INVALID_ARGUMENT;
    memset(header, 0, sizeof *header);
    if (data == NULL || size == 0) {
        set_message(message, message_capacity, "empty file");
        return CJPEG_ERROR_CORRUPT;
    }
    return decompress(data, size, header, NULL, 0, 0, 0, message, message_capacity);
}

cjpeg_status cjpeg_decode_into(const uint8_t *data, size_t size, uint8_t *pixels, int32_t width, int32_t height,
                               size_t stride, char *message, size_t message_capacity) {
    if (data == NULL || size == 0 || pixels == NULL || width <= 0 || height <= 0 || stride < (size_t)width * 4) {
        set_message(message, message_capacity, "invalid arguments");
        return CJPEG_ERROR_INVALID_ARGUMENT;
    }
    return decompress(data, size, NULL, pixels, width, height, stride, message, message_capacity);
}

cjpeg_status cjpeg_encode(const uint8_t *pixels, int32_t width, int32_t height, size_t stride,
                          int32_t quality, uint8_t **output, size_t *output_size,
                          char *message, size_t message_capacity) {
    if (pixels == NULL || output == NULL || output_size == NULL || width <= 0 || height <= 0 ||
        width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION || stride < (size_t)width * 4 ||
        quality < 1 || quality > 100) {
        set_message(message, message_capacity, "invalid image or quality");
        return CJPEG_ERROR_INVALID_ARGUMENT;
    }
    *output = NULL;
    *output_size = 0;

    struct jpeg_compress_struct cinfo;
    error_manager manager;
    /* Written by libjpeg through its address, so it survives the longjmp. */
    unsigned char *buffer = NULL;
    unsigned long buffer_size = 0;
    cinfo.err = &manager.base;
    install_error_manager(&manager, message, message_capacity);
    if (setjmp(manager.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return CJPEG_ERROR_CORRUPT;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &buffer_size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_BGRA;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *output = buffer;
    *output_size = buffer_size;
    return CJPEG_OK;
}

void cjpeg_buffer_free(uint8_t *buffer) {
    free(buffer);
}
