#include "cfr.h"

#include <dlib/clustering.h>
#include <dlib/dnn.h>
#include <dlib/image_processing.h>
#include <dlib/image_transforms.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <string>

namespace {

/* dlib's face-recognition ResNet, as its dnn_face_recognition_ex.cpp declares it: the serialized
   model only loads into exactly this type. */
using namespace dlib;

template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual = add_prev1<block<N, BN, 1, tag1<SUBNET>>>;

template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual_down = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<block<N, BN, 2, tag1<SUBNET>>>>>>;

template <int N, template <typename> class BN, int stride, typename SUBNET>
using block = BN<con<N, 3, 3, 1, 1, relu<BN<con<N, 3, 3, stride, stride, SUBNET>>>>>;

template <int N, typename SUBNET> using ares = relu<residual<block, N, affine, SUBNET>>;
template <int N, typename SUBNET> using ares_down = relu<residual_down<block, N, affine, SUBNET>>;

template <typename SUBNET> using alevel0 = ares_down<256, SUBNET>;
template <typename SUBNET> using alevel1 = ares<256, ares<256, ares_down<256, SUBNET>>>;
template <typename SUBNET> using alevel2 = ares<128, ares<128, ares_down<128, SUBNET>>>;
template <typename SUBNET> using alevel3 = ares<64, ares<64, ares<64, ares_down<64, SUBNET>>>>;
template <typename SUBNET> using alevel4 = ares<32, ares<32, ares<32, SUBNET>>>;

using network_type = loss_metric<fc_no_bias<128, avg_pool_everything<alevel0<alevel1<alevel2<alevel3<alevel4<
    max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<150>>>>>>>>>>>>>;

/* The chip's side and the margin around the face in it, as dlib's compute_face_descriptor takes them. */
constexpr unsigned long chip_side = 150;
constexpr double chip_padding = 0.25;

cfr_status fail(cfr_error *error, cfr_status status, const std::string &message) {
    if (error != nullptr) {
        error->status = status;
        std::snprintf(error->message, sizeof error->message, "%s", message.c_str());
        for (char *c = error->message; *c != '\0'; ++c) {
            if (*c == '\n' || *c == '\r') *c = ' ';
        }
    }
    return status;
}

/* Runs `body`, turning any exception into `error`, so that none reaches C or Swift. */
template <typename Body>
cfr_status guarded(cfr_error *error, Body &&body) {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return fail(error, CFR_ERROR_INTERNAL, "out of memory");
    } catch (const std::exception &e) {
        return fail(error, CFR_ERROR_INTERNAL, e.what());
    } catch (...) {
        return fail(error, CFR_ERROR_INTERNAL, "unknown C++ exception");
    }
}

/* Loads a serialized dlib object from `path`, naming the file in the error. */
template <typename Model>
void load(Model &model, const char *path, const char *what) {
    try {
        deserialize(path) >> model;
    } catch (const std::exception &e) {
        throw std::runtime_error(std::string(path) + ": not dlib's " + what + " (" + e.what() + ")");
    }
}

} // namespace

struct cfr_describer {
    dlib::shape_predictor predictor;
    network_type network;
};

extern "C" {

cfr_describer *cfr_describer_create(const char *shape_predictor_path, const char *network_path, cfr_error *error) {
    cfr_describer *result = nullptr;
    const cfr_status status = guarded(error, [&]() -> cfr_status {
        if (shape_predictor_path == nullptr || network_path == nullptr) {
            return fail(error, CFR_ERROR_INVALID_ARGUMENT, "null argument");
        }
        auto describer = std::make_unique<cfr_describer>();
        try {
            load(describer->predictor, shape_predictor_path, "5-point shape predictor");
            load(describer->network, network_path, "face-recognition network");
        } catch (const std::exception &e) {
            return fail(error, CFR_ERROR_MODEL, e.what());
        }
        result = describer.release();
        return CFR_OK;
    });
    return status == CFR_OK ? result : nullptr;
}

void cfr_describer_destroy(cfr_describer *describer) {
    delete describer;
}

cfr_status cfr_describe(cfr_describer *describer, const uint8_t *image, int32_t width, int32_t height, int32_t stride,
                        int32_t x, int32_t y, int32_t box_width, int32_t box_height, float *descriptor,
                        float *mirrored, float *landmarks, cfr_error *error) {
    return guarded(error, [&]() -> cfr_status {
        if (describer == nullptr || image == nullptr || descriptor == nullptr) {
            return fail(error, CFR_ERROR_INVALID_ARGUMENT, "null argument");
        }
        if (width < 1 || height < 1 || stride < int64_t(width) * 4) {
            return fail(error, CFR_ERROR_INVALID_ARGUMENT, "empty or malformed image");
        }
        if (box_width < 1 || box_height < 1) return fail(error, CFR_ERROR_INVALID_ARGUMENT, "empty face box");
        dlib::matrix<dlib::rgb_pixel> rgb(height, width);
        for (int32_t row = 0; row < height; ++row) {
            const uint8_t *pixel = image + int64_t(row) * stride;
            for (int32_t column = 0; column < width; ++column, pixel += 4) {
                rgb(row, column) = dlib::rgb_pixel(pixel[2], pixel[1], pixel[0]);
            }
        }
        const dlib::rectangle box(x, y, int64_t(x) + box_width - 1, int64_t(y) + box_height - 1);
        const dlib::full_object_detection shape = describer->predictor(rgb, box);
        dlib::matrix<dlib::rgb_pixel> chip;
        dlib::extract_image_chip(rgb, dlib::get_face_chip_details(shape, chip_side, chip_padding), chip);
        const dlib::matrix<float, 0, 1> values = describer->network(chip);
        if (values.size() != CFR_DESCRIPTOR_LENGTH) return fail(error, CFR_ERROR_INTERNAL, "the network gave no descriptor");
        for (long k = 0; k < values.size(); ++k) descriptor[k] = values(k);
        if (mirrored != nullptr) {
            dlib::matrix<dlib::rgb_pixel> flipped;
            dlib::flip_image_left_right(chip, flipped);
            const dlib::matrix<float, 0, 1> other = describer->network(flipped);
            if (other.size() != CFR_DESCRIPTOR_LENGTH) return fail(error, CFR_ERROR_INTERNAL, "the network gave no descriptor");
            for (long k = 0; k < other.size(); ++k) mirrored[k] = other(k);
        }
        if (landmarks != nullptr) {
            for (unsigned long k = 0; k < shape.num_parts() && k < 5; ++k) {
                landmarks[2 * k] = float(shape.part(k).x());
                landmarks[2 * k + 1] = float(shape.part(k).y());
            }
        }
        return CFR_OK;
    });
}

cfr_status cfr_cluster(const float *descriptors, size_t count, double threshold, uint32_t *labels, cfr_error *error) {
    return guarded(error, [&]() -> cfr_status {
        if (count == 0) return CFR_OK;
        if (descriptors == nullptr || labels == nullptr) return fail(error, CFR_ERROR_INVALID_ARGUMENT, "null argument");
        if (!(threshold > 0)) return fail(error, CFR_ERROR_INVALID_ARGUMENT, "threshold not positive");
        // The Python bindings take the threshold as a float, and measure in doubles.
        const double limit = float(threshold);
        std::vector<dlib::sample_pair> edges;
        for (size_t i = 0; i < count; ++i) {
            const float *a = descriptors + i * CFR_DESCRIPTOR_LENGTH;
            for (size_t j = i; j < count; ++j) {
                const float *b = descriptors + j * CFR_DESCRIPTOR_LENGTH;
                double sum = 0;
                for (size_t k = 0; k < CFR_DESCRIPTOR_LENGTH; ++k) sum += (double(a[k]) - b[k]) * (double(a[k]) - b[k]);
                if (std::sqrt(sum) < limit) edges.push_back(dlib::sample_pair(i, j));
            }
        }
        std::vector<unsigned long> found;
        dlib::chinese_whispers(edges, found);
        if (found.size() != count) return fail(error, CFR_ERROR_INTERNAL, "chinese_whispers labelled a different number of descriptors");
        for (size_t i = 0; i < count; ++i) labels[i] = uint32_t(found[i]);
        return CFR_OK;
    });
}

} // extern "C"
