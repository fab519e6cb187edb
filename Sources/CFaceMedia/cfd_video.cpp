#include "cfd.h"
#include "shim.hpp"

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/log.h>
}

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using cfd::fail;
using cfd::guarded;
using cfd::invalid;
using cfd::valid_view;

struct cfd_video_reader {
    cv::VideoCapture capture;
    cfd_video_info info;
    cv::Mat bgr;
    /* Frames grabbed or lost so far: the index of the next one. */
    int64_t attempts = 0;
    /* Opening and reading give up after this long without data; 0 for never (files). */
    int32_t timeout_ms = 0;
    /* A read waited out the timeout. */
    bool timed_out = false;
    /* FFmpeg's error count (`reported_errors`) when the reader was opened. */
    uint64_t errors_at_open = 0;
    /* The index and time (seconds) of the last frame grabbed; -1 before the first. */
    int64_t last_index = -1;
    double last_time = 0;
    /* The time from the frame before the last to the last, per frame; 0 until known. */
    double last_step = 0;
    /* The index and time of the first frame grabbed. */
    int64_t first_index = -1;
    double first_time = 0;
};

struct cfd_video_writer {
    cv::VideoWriter writer;
    int32_t width;
    int32_t height;
    cv::Mat bgr;
};

namespace {

/*
 * The clockwise turn a player gives the frames. OpenCV 4.6.0 reports
 * CAP_PROP_ORIENTATION_META in the opposite direction to 4.5 and to FFmpeg's
 * own players (opencv/opencv#22088), so there it is turned back.
 */
int32_t clockwise_rotation(double meta) {
    int32_t degrees = ((cvRound(meta) % 360) + 360) % 360;
#if CV_VERSION_MAJOR == 4 && CV_VERSION_MINOR == 6
    degrees = (360 - degrees) % 360;
#endif
    return degrees;
}

/*
 * FFmpeg logs damaged input on stderr ("moov atom not found", "overread");
 * facecam reports each bad file itself, as one line. OpenCV reads this
 * variable once, before its first capture; a user's own setting is kept.
 */
/* Errors FFmpeg's demuxers and decoders reported (at AV_LOG_ERROR or worse) since the process started. */
std::atomic<uint64_t> reported_errors{0};

void count_ffmpeg_errors(void *context, int level, const char *, va_list) {
    if (level > AV_LOG_ERROR || context == nullptr) return;
    // As av_log sorts its lines: a format or codec context knows whether it reads or writes.
    const AVClass *logged = *static_cast<const AVClass *const *>(context);
    if (logged == nullptr) return;
    const AVClassCategory category = logged->get_category ? logged->get_category(context) : logged->category;
    if (category == AV_CLASS_CATEGORY_DEMUXER || category == AV_CLASS_CATEGORY_DECODER || category == AV_CLASS_CATEGORY_INPUT) {
        reported_errors.fetch_add(1, std::memory_order_relaxed);
    }
}

/* FFmpeg prints nothing (facecam says what went wrong, in one line). OpenCV sets FFmpeg's log level
 * from OPENCV_FFMPEG_LOGLEVEL, and its own printing callback, whenever it opens a video to read or
 * write: quiet then, and `count_ffmpeg_errors_from_now` again before each read. */
void quiet_ffmpeg_logging() {
    static const bool done = [] { return setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0) == 0; }();
    (void)done;
}

/* From now on FFmpeg's errors go to `count_ffmpeg_errors`, which counts them and prints nothing. */
void count_ffmpeg_errors_from_now() {
    av_log_set_callback(count_ffmpeg_errors);
    av_log_set_level(AV_LOG_ERROR);
}

int fourcc_for(const std::string &path) {
    auto dot = path.rfind('.');
    std::string extension = dot == std::string::npos ? "" : path.substr(dot + 1);
    for (auto &c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (extension == "mp4" || extension == "mov" || extension == "m4v") return cv::VideoWriter::fourcc('m', 'p', '4', 'v');
    return cv::VideoWriter::fourcc('M', 'J', 'P', 'G');
}

/*
 * Why FFmpeg cannot open `name` as a video, asked of libavformat itself, since OpenCV says only that
 * it failed: the protocol's or demuxer's error ("Server returned 404 Not Found", "Invalid data found
 * when processing input"), or that the input has no video stream. Empty when it cannot tell, and for
 * standard input, whose bytes OpenCV has already taken.
 */
std::string open_failure_reason(const char *name, int32_t timeout_ms) {
    if (std::strncmp(name, "pipe:", 5) == 0) return "";
    AVDictionary *options = nullptr;
    if (timeout_ms > 0) av_dict_set_int(&options, "rw_timeout", static_cast<int64_t>(timeout_ms) * 1000, 0);
    AVFormatContext *context = nullptr;
    const int opened = avformat_open_input(&context, name, nullptr, &options);
    av_dict_free(&options);
    if (opened < 0) {
        char text[AV_ERROR_MAX_STRING_SIZE] = {};
        av_strerror(opened, text, sizeof text);
        return text;
    }
    std::string reason;
    if (avformat_find_stream_info(context, nullptr) >= 0 &&
        av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0) < 0) {
        reason = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0) >= 0
                     ? "it has no video stream, only audio"
                     : "it has no video stream";
    }
    avformat_close_input(&context);
    return reason;
}

/* Milliseconds since `start`. */
int64_t elapsed_ms(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

extern "C" {

cfd_video_reader *cfd_video_open(const char *path, int32_t timeout_ms, cfd_video_info *info, cfd_error *error) {
    cfd_video_reader *result = nullptr;
    guarded(error, [&]() -> cfd_status {
        if (path == nullptr || info == nullptr || timeout_ms < 0) return invalid(error, "null argument");
        quiet_ffmpeg_logging();
        auto reader = std::make_unique<cfd_video_reader>();
        reader->timeout_ms = timeout_ms;
        std::vector<int> params;
        if (timeout_ms > 0) params = {cv::CAP_PROP_OPEN_TIMEOUT_MSEC, timeout_ms, cv::CAP_PROP_READ_TIMEOUT_MSEC, timeout_ms};
        const auto start = std::chrono::steady_clock::now();
        if (!reader->capture.open(path, cv::CAP_FFMPEG, params)) {
            if (timeout_ms > 0 && elapsed_ms(start) >= timeout_ms * 9 / 10) {
                return fail(error, CFD_ERROR_TIMEOUT, "no frame arrived within the timeout");
            }
            const std::string reason = open_failure_reason(path, timeout_ms);
            if (reason.rfind("it has no video", 0) == 0) return fail(error, CFD_ERROR_DECODE, reason.c_str());
            return fail(error, CFD_ERROR_DECODE, ("FFmpeg cannot open it" + (reason.empty() ? "" : " (" + reason + ")")).c_str());
        }
        reader->errors_at_open = reported_errors.load();
        // Frames come out as stored; the rotation becomes an orientation in the geometry.
        reader->capture.set(cv::CAP_PROP_ORIENTATION_AUTO, 0);
        auto &capture = reader->capture;
        reader->info = cfd_video_info{
            static_cast<int32_t>(capture.get(cv::CAP_PROP_FRAME_WIDTH)),
            static_cast<int32_t>(capture.get(cv::CAP_PROP_FRAME_HEIGHT)),
            capture.get(cv::CAP_PROP_FPS),
            static_cast<int64_t>(capture.get(cv::CAP_PROP_FRAME_COUNT)),
            clockwise_rotation(capture.get(cv::CAP_PROP_ORIENTATION_META)),
        };
        if (reader->info.width <= 0 || reader->info.height <= 0) {
            return fail(error, CFD_ERROR_DECODE, "no video stream");
        }
        if (!(reader->info.frames_per_second > 0 && reader->info.frames_per_second < 1000)) {
            reader->info.frames_per_second = 0;
        }
        if (reader->info.frame_count < 0) reader->info.frame_count = 0;
        *info = reader->info;
        result = reader.release();
        return CFD_OK;
    });
    return result;
}

cfd_status cfd_video_read(cfd_video_reader *reader, int32_t decode_every, uint8_t *pixels, size_t stride,
                          cfd_video_frame *frame, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (reader == nullptr || frame == nullptr || decode_every < 1) return invalid(error, "null argument");
        if (pixels == nullptr || stride < static_cast<size_t>(reader->info.width) * 4) {
            return invalid(error, "malformed destination");
        }
        // OpenCV takes FFmpeg's log back whenever it opens a video (this one, an annotated video's writer).
        count_ffmpeg_errors_from_now();
        // A damaged stretch makes grab() fail for the frames in it, and FFmpeg
        // goes on after it: each failure is one frame lost. Before the
        // container's frame count, the file goes on; past it (an estimate for
        // TS and MKV: duration x rate), or without one, a run of failures is
        // taken for the end.
        const int64_t announced = reader->info.frame_count;
        int64_t failures = 0;
        while (true) {
            if ((announced <= 0 || reader->attempts >= announced) && failures >= 8) return CFD_END_OF_STREAM;
            const int64_t index = reader->attempts++;
            const auto start = std::chrono::steady_clock::now();
            const bool grabbed = reader->capture.grab();
            // FFmpeg gave up waiting on a stream (the grab that waited may still return what had arrived).
            if (reader->timeout_ms > 0 && elapsed_ms(start) >= reader->timeout_ms * 9 / 10) reader->timed_out = true;
            if (!grabbed) {
                // After a wait that timed out, a stream is stalled: every frame to come would fail alike.
                if (reader->timed_out) {
                    reader->attempts = index;
                    return fail(error, CFD_ERROR_TIMEOUT, "no frame arrived within the timeout");
                }
                ++failures;
                continue;
            }
            frame->index = index;
            frame->lost = failures;
            // The frames a decoder gives back at the end of a stream with B-frames come without a
            // time (OpenCV says 0), and so do APNG's (a huge negative number): a time that is missing
            // or does not move on is worked out. A stream that has kept its container's rate so far
            // (to the millisecond its times are stored in) goes on at it, counted from its first
            // frame, as ffprobe's times do: steps between millisecond times would drift a
            // millisecond a frame at 30 frames/s. Any other goes on at its last step (a
            // variable-rate stream's own), or one frame at the container's rate.
            double time = reader->capture.get(cv::CAP_PROP_POS_MSEC) / 1000.0;
            if (!(time >= 0) || !std::isfinite(time)) time = reader->last_index >= 0 ? reader->last_time : 0;
            const double rate = reader->info.frames_per_second;
            if (reader->last_index >= 0 && !(time > reader->last_time)) {
                const auto at_rate = [&](int64_t frame) {
                    return reader->first_time + static_cast<double>(frame - reader->first_index) / rate;
                };
                if (rate > 0 && std::abs(reader->last_time - at_rate(reader->last_index)) <= 0.0015) {
                    time = at_rate(index);
                } else {
                    const double step = reader->last_step > 0 ? reader->last_step : rate > 0 ? 1 / rate : 0;
                    time = reader->last_time + step * static_cast<double>(index - reader->last_index);
                }
            }
            if (reader->first_index < 0) {
                reader->first_index = index;
                reader->first_time = time;
            }
            if (reader->last_index >= 0) reader->last_step = (time - reader->last_time) / static_cast<double>(index - reader->last_index);
            reader->last_index = index;
            reader->last_time = time;
            frame->time = time;
            frame->decoded = index % decode_every == 0;
            break;
        }
        if (!frame->decoded) return CFD_OK;
        if (!reader->capture.retrieve(reader->bgr) || reader->bgr.empty()) {
            return fail(error, CFD_ERROR_DECODE, "the frame could not be decoded");
        }
        if (reader->bgr.cols != reader->info.width || reader->bgr.rows != reader->info.height) {
            return fail(error, CFD_ERROR_DECODE, "the frame size changed mid-stream");
        }
        cv::Mat out(reader->info.height, reader->info.width, CV_8UC4, pixels, stride);
        cv::cvtColor(reader->bgr, out, reader->bgr.channels() == 1 ? cv::COLOR_GRAY2BGRA : cv::COLOR_BGR2BGRA);
        return CFD_OK;
    });
}

cfd_status cfd_video_start_offset(const char *name, double *seconds, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (name == nullptr || seconds == nullptr) return invalid(error, "null argument");
        *seconds = 0;
        AVFormatContext *context = nullptr;
        if (avformat_open_input(&context, name, nullptr, nullptr) < 0) return fail(error, CFD_ERROR_DECODE, "FFmpeg cannot open it");
        const bool known = avformat_find_stream_info(context, nullptr) >= 0;
        const int video = known ? av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0) : -1;
        if (video >= 0 && context->start_time != AV_NOPTS_VALUE && context->streams[video]->start_time != AV_NOPTS_VALUE) {
            const AVStream *stream = context->streams[video];
            const double start = static_cast<double>(stream->start_time) * av_q2d(stream->time_base);
            *seconds = std::max(0.0, start - static_cast<double>(context->start_time) / AV_TIME_BASE);
        }
        avformat_close_input(&context);
        return CFD_OK;
    });
}

int64_t cfd_video_reported_errors(const cfd_video_reader *reader) {
    if (reader == nullptr) return 0;
    return static_cast<int64_t>(reported_errors.load() - reader->errors_at_open);
}

void cfd_video_close(cfd_video_reader *reader) {
    delete reader;
}

cfd_video_writer *cfd_video_writer_open(const char *path, int32_t width, int32_t height, double frames_per_second,
                                        cfd_error *error) {
    cfd_video_writer *result = nullptr;
    guarded(error, [&]() -> cfd_status {
        if (path == nullptr || width <= 0 || height <= 0) return invalid(error, "null path or empty size");
        quiet_ffmpeg_logging();
        auto writer = std::make_unique<cfd_video_writer>();
        writer->width = width;
        writer->height = height;
        double fps = frames_per_second > 0 ? frames_per_second : 25;
        if (!writer->writer.open(path, cv::CAP_FFMPEG, fourcc_for(path), fps, cv::Size(width, height), true)) {
            return fail(error, CFD_ERROR_DECODE, "FFmpeg cannot write a video there (use .avi, .mkv or .mp4)");
        }
        result = writer.release();
        return CFD_OK;
    });
    return result;
}

cfd_status cfd_video_writer_write(cfd_video_writer *writer, const cfd_image_view *frame, cfd_error *error) {
    return guarded(error, [&]() -> cfd_status {
        if (writer == nullptr || !valid_view(frame)) return invalid(error, "null writer or malformed frame");
        if (frame->width != writer->width || frame->height != writer->height) {
            return invalid(error, "frame size differs from the video's");
        }
        cv::Mat bgra(frame->height, frame->width, CV_8UC4, const_cast<uint8_t *>(frame->pixels), frame->stride);
        cv::cvtColor(bgra, writer->bgr, cv::COLOR_BGRA2BGR);
        writer->writer.write(writer->bgr);
        return CFD_OK;
    });
}

void cfd_video_writer_close(cfd_video_writer *writer) {
    delete writer;
}

} // extern "C"
