/*
 * OpenVINO's CPU runtime through its C API, loaded at run time with dlopen so that facecam starts,
 * and runs on OpenCV, where OpenVINO's libraries are missing or will not load. The declarations
 * below are the subset of OpenVINO 2026.4's openvino/c/ headers that facecam calls (a stable ABI: the
 * C API's types are opaque pointers and two plain structs).
 */
#include "network.hpp"
#include "shim.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct ov_core;
struct ov_model;
struct ov_compiled_model;
struct ov_infer_request;
struct ov_tensor;
typedef int ov_status; // ov_status_e: 0 is OK
struct ov_shape_t {
    int64_t rank;
    int64_t *dims;
};
struct ov_dimension_t {
    int64_t min, max;
};
struct ov_partial_shape_t {
    ov_dimension_t rank;
    ov_dimension_t *dims;
};
struct ov_version_t {
    const char *build_number;
    const char *description;
};
struct ov_core_version_list_t {
    struct {
        const char *device_name;
        ov_version_t version;
    } *versions;
    size_t size;
};
constexpr int ov_element_f32 = 4; // ov_element_type_e F32 (DYNAMIC, BOOLEAN, BF16, F16, F32, ...)

/* OpenVINO's messages span lines ("Exception from FILE:LINE:", "Check '...' failed at FILE:LINE:",
   then the reason): the reason's lines, on one line. */
std::string reason(const std::string &message) {
    std::string kept, all;
    size_t start = 0;
    while (start <= message.size()) {
        size_t end = message.find('\n', start);
        if (end == std::string::npos) end = message.size();
        std::string line = message.substr(start, end - start);
        line.erase(0, line.find_first_not_of(" \t\r"));
        line.erase(line.find_last_not_of(" \t\r") + 1);
        if (!line.empty()) {
            all += (all.empty() ? "" : " ") + line;
            if (line.rfind("Exception from ", 0) != 0 && line.rfind("Check '", 0) != 0) kept += (kept.empty() ? "" : " ") + line;
        }
        start = end + 1;
    }
    return kept.empty() ? all : kept;
}

/* The C API's entry points facecam calls, resolved from libopenvino_c. */
struct OpenVINO {
    void *library = nullptr;
    ov_core *core = nullptr;
    std::string version;
    std::string directory;
    std::string cache_directory; // compiled networks kept between runs; empty for none
    std::string cpu;             // /proc/cpuinfo's model name and flags, which a compiled graph may depend on

    ov_status (*get_openvino_version)(ov_version_t *);
    void (*version_free)(ov_version_t *);
    const char *(*get_last_err_msg)();
    void (*free_string)(const char *);
    ov_status (*core_create)(ov_core **);
    void (*core_free)(ov_core *);
    ov_status (*core_get_versions_by_device_name)(const ov_core *, const char *, ov_core_version_list_t *);
    void (*core_versions_free)(ov_core_version_list_t *);
    ov_status (*core_read_model)(const ov_core *, const char *, const char *, ov_model **);
    ov_status (*core_compile_model)(const ov_core *, const ov_model *, const char *, size_t, ov_compiled_model **, ...);
    void (*model_free)(ov_model *);
    ov_status (*model_reshape_single_input)(const ov_model *, ov_partial_shape_t);
    ov_status (*partial_shape_create)(int64_t, const ov_dimension_t *, ov_partial_shape_t *);
    void (*partial_shape_free)(ov_partial_shape_t *);
    ov_status (*compiled_model_create_infer_request)(const ov_compiled_model *, ov_infer_request **);
    void (*compiled_model_free)(ov_compiled_model *);
    ov_status (*compiled_model_export_model)(const ov_compiled_model *, const char *);
    ov_status (*core_import_model)(const ov_core *, const char *, size_t, const char *, ov_compiled_model **);
    ov_status (*core_set_property)(const ov_core *, const char *, ...);
    ov_status (*infer_request_set_input_tensor)(ov_infer_request *, const ov_tensor *);
    ov_status (*infer_request_infer)(ov_infer_request *);
    ov_status (*infer_request_get_tensor)(const ov_infer_request *, const char *, ov_tensor **);
    void (*infer_request_free)(ov_infer_request *);
    ov_status (*tensor_create_from_host_ptr)(int, ov_shape_t, void *, ov_tensor **);
    ov_status (*tensor_get_shape)(const ov_tensor *, ov_shape_t *);
    ov_status (*tensor_data)(const ov_tensor *, void **);
    void (*tensor_free)(ov_tensor *);
    ov_status (*shape_free)(ov_shape_t *);

    /* Throws, naming `call` and OpenVINO's own message, unless `status` is OK. */
    void check(ov_status status, const char *call) const {
        if (status == 0) return;
        std::string message = std::string("OpenVINO ") + call + " failed (status " + std::to_string(status) + ")";
        if (const char *detail = get_last_err_msg()) {
            message += ": " + reason(detail);
            free_string(detail);
        }
        throw std::runtime_error(message);
    }
};

template <typename Function>
void resolve(void *library, const char *name, Function &function) {
    function = reinterpret_cast<Function>(dlsym(library, name));
    if (function == nullptr) throw std::runtime_error(std::string("libopenvino_c has no ") + name);
}

std::mutex loading;
OpenVINO *loaded = nullptr; // once loaded, kept for the process's life

/* Resolves the C API's entry points, makes the core and checks that its CPU plugin runs here. */
void start(OpenVINO &runtime) {
    OpenVINO *ov = &runtime;
    void *lib = ov->library;
    resolve(lib, "ov_get_openvino_version", ov->get_openvino_version);
    resolve(lib, "ov_version_free", ov->version_free);
    resolve(lib, "ov_get_last_err_msg", ov->get_last_err_msg);
    resolve(lib, "ov_free", ov->free_string);
    resolve(lib, "ov_core_create", ov->core_create);
    resolve(lib, "ov_core_free", ov->core_free);
    resolve(lib, "ov_core_get_versions_by_device_name", ov->core_get_versions_by_device_name);
    resolve(lib, "ov_core_versions_free", ov->core_versions_free);
    resolve(lib, "ov_core_read_model", ov->core_read_model);
    resolve(lib, "ov_core_compile_model", ov->core_compile_model);
    resolve(lib, "ov_model_free", ov->model_free);
    resolve(lib, "ov_model_reshape_single_input", ov->model_reshape_single_input);
    resolve(lib, "ov_partial_shape_create", ov->partial_shape_create);
    resolve(lib, "ov_partial_shape_free", ov->partial_shape_free);
    resolve(lib, "ov_compiled_model_create_infer_request", ov->compiled_model_create_infer_request);
    resolve(lib, "ov_compiled_model_free", ov->compiled_model_free);
    resolve(lib, "ov_compiled_model_export_model", ov->compiled_model_export_model);
    resolve(lib, "ov_core_import_model", ov->core_import_model);
    resolve(lib, "ov_core_set_property", ov->core_set_property);
    resolve(lib, "ov_infer_request_set_input_tensor", ov->infer_request_set_input_tensor);
    resolve(lib, "ov_infer_request_infer", ov->infer_request_infer);
    resolve(lib, "ov_infer_request_get_tensor", ov->infer_request_get_tensor);
    resolve(lib, "ov_infer_request_free", ov->infer_request_free);
    resolve(lib, "ov_tensor_create_from_host_ptr", ov->tensor_create_from_host_ptr);
    resolve(lib, "ov_tensor_get_shape", ov->tensor_get_shape);
    resolve(lib, "ov_tensor_data", ov->tensor_data);
    resolve(lib, "ov_tensor_free", ov->tensor_free);
    resolve(lib, "ov_shape_free", ov->shape_free);
    ov_version_t version{};
    ov->check(ov->get_openvino_version(&version), "ov_get_openvino_version");
    ov->version = version.build_number != nullptr ? version.build_number : "unknown";
    ov->version_free(&version);
    ov->check(ov->core_create(&ov->core), "ov_core_create");
    // The CPU plugin refuses processors without the instructions it needs: asked now, so that
    // facecam runs on OpenCV there rather than failing at its first model.
    ov_core_version_list_t devices{};
    const ov_status cpu = ov->core_get_versions_by_device_name(ov->core, "CPU", &devices);
    if (cpu == 0) ov->core_versions_free(&devices);
    try {
        ov->check(cpu, "CPU plugin");
    } catch (...) {
        ov->core_free(ov->core);
        throw;
    }
}

/* Loads libopenvino_c from `directory` and makes the process's one ov::Core. */
OpenVINO *load(const std::string &directory, const std::string &cache_directory) {
    auto ov = std::make_unique<OpenVINO>();
    const std::string path = directory + "/libopenvino_c.so.2641";
    ov->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (ov->library == nullptr) {
        const char *reason = dlerror();
        throw std::runtime_error(reason != nullptr ? reason : ("cannot load " + path).c_str());
    }
    try {
        start(*ov);
    } catch (...) {
        dlclose(ov->library);
        throw;
    }
    ov->directory = directory;
    ov->cache_directory = cache_directory;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string model_name, flags;
    for (std::string line; std::getline(cpuinfo, line) && (model_name.empty() || flags.empty());) {
        if (model_name.empty() && line.rfind("model name", 0) == 0) model_name = line;
        if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
    }
    ov->cpu = model_name + "\n" + flags;
    return ov.release();
}

OpenVINO &runtime() {
    std::lock_guard<std::mutex> lock(loading);
    if (loaded == nullptr) throw std::runtime_error("OpenVINO is not loaded (cfd_openvino_load)");
    return *loaded;
}

/* The whole of a regular file of at most `limit` bytes (this user's own when `own`), or false. O_NOFOLLOW and
   O_NONBLOCK: a link or a FIFO put in a cached file's place is none. */
bool read_whole_file(const std::string &path, size_t limit, bool own, std::string &bytes) {
    int descriptor;
    do descriptor = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (own ? O_NOFOLLOW : 0));
    while (descriptor < 0 && errno == EINTR);
    if (descriptor < 0) return false;
    std::unique_ptr<int, void (*)(int *)> closing(&descriptor, [](int *d) { close(*d); });
    struct stat info {};
    if (fstat(descriptor, &info) != 0 || !S_ISREG(info.st_mode) || (own && info.st_uid != geteuid()) ||
        static_cast<unsigned long long>(info.st_size) > limit) {
        return false;
    }
    bytes.resize(static_cast<size_t>(info.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t count = read(descriptor, &bytes[done], bytes.size() - done);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return false;
        done += static_cast<size_t>(count);
    }
    return true;
}

/* Held while the CPU plugin's settings are set and a network compiled or imported with them: jobs make their
   networks side by side. */
std::mutex plugin_settings;

/* Sets the CPU plugin's settings for the next compile or import (under `plugin_settings`): one stream of `threads`
   threads, not pinned, as facecam's jobs each run their own network. */
void set_plugin_settings(const OpenVINO &ov, const char *precision, const std::string &threads) {
    const char *properties[][2] = {{"INFERENCE_PRECISION_HINT", precision},
                                   {"INFERENCE_NUM_THREADS", threads.c_str()},
                                   {"NUM_STREAMS", "1"},
                                   {"PERFORMANCE_HINT", "LATENCY"},
                                   {"ENABLE_CPU_PINNING", "NO"}};
    for (const auto &property : properties) ov.check(ov.core_set_property(ov.core, "CPU", property[0], property[1]), property[0]);
}

/*
 * Networks compiled by an earlier run, kept as OpenVINO exports them in the cache folder facecam was loaded with: an
 * import takes about a fifth of the CPU a compile does (YuNet's 0.04 s against 0.2). A file holds the key it was made
 * for (OpenVINO's version, the model's SHA-256, the settings, the CPU) and its payload's SHA-256, and is written whole
 * under another name, then renamed, so that a run reads another's file whole or not at all. Whatever fails (no folder,
 * a full disk, a file damaged or made for something else, an import OpenVINO refuses) only costs the compile.
 */
class CompiledNetworkCache {
public:
    CompiledNetworkCache(const OpenVINO &ov, const std::string &model_path, const std::string &precision,
                         const std::string &threads)
        : ov(ov) {
        if (ov.cache_directory.empty()) return;
        std::string model;
        if (!read_whole_file(model_path, 1u << 30, false, model)) return;
        key = "facecam compiled network 1\nopenvino " + ov.version + "\nmodel " + cfd::sha256_hex(model.data(), model.size()) +
              "\nprecision " + precision + " threads " + threads + "\n" + ov.cpu + "\n";
        path = ov.cache_directory + "/" + cfd::sha256_hex(key.data(), key.size()).substr(0, 32) + ".blob";
    }

    /* The network this key's file holds, or nullptr; called with the plugin's settings set, which an import compiles
       with. The network may use `file`'s bytes (its weights) for as long as it lives. */
    ov_compiled_model *load(std::string &file) const {
        if (path.empty() || !read_whole_file(path, 512u << 20, true, file) || file.compare(0, key.size(), key) != 0) return nullptr;
        const size_t digest_line = std::strlen("payload ") + 64;
        if (file.find('\n', key.size()) != key.size() + digest_line || file.compare(key.size(), 8, "payload ") != 0) return nullptr;
        const char *payload = file.data() + key.size() + digest_line + 1;
        const size_t payload_size = file.size() - key.size() - digest_line - 1;
        if (file.compare(key.size() + 8, 64, cfd::sha256_hex(payload, payload_size)) != 0) return nullptr;
        ov_compiled_model *compiled = nullptr;
        if (ov.core_import_model(ov.core, payload, payload_size, "CPU", &compiled) != 0) return nullptr;
        return compiled;
    }

    /* Keeps `compiled` for the next run, when the folder takes it. The C API exports only to a path: that file is read
       back and written again after the key and the payload's digest. */
    void store(const ov_compiled_model *compiled) const {
        if (path.empty()) return;
        const std::string suffix = "." + std::to_string(getpid()) + "-" + std::to_string(++stores) + ".part";
        const std::string exported = path + ".export" + suffix, whole = path + suffix;
        std::string payload;
        if (ov.compiled_model_export_model(compiled, exported.c_str()) == 0 && read_whole_file(exported, 512u << 20, true, payload)) {
            std::ofstream out(whole, std::ios::binary | std::ios::trunc);
            out << key << "payload " << cfd::sha256_hex(payload.data(), payload.size()) << "\n" << payload;
            out.close();
            if (!out.fail()) {
                chmod(whole.c_str(), 0600);
                if (rename(whole.c_str(), path.c_str()) != 0) unlink(whole.c_str());
            } else {
                unlink(whole.c_str());
            }
        }
        unlink(exported.c_str());
    }

private:
    const OpenVINO &ov;
    std::string key, path;
    static inline std::atomic<unsigned> stores{0};
};

/* One compiled model with a dynamic input size ([1, 3, ?, ?]), so that no input size is compiled
   twice, and its one infer request. */
class OpenVINONetwork final : public cfd::Network {
public:
    OpenVINONetwork(const cfd::NetworkSpec &spec, const cfd_engine_settings &settings)
        : ov(runtime()), names(spec.outputs) {
        const std::string threads = std::to_string(std::max(1, settings.threads));
        const char *precision = settings.precision == CFD_PRECISION_BF16 ? "bf16" : "f32";
        const CompiledNetworkCache cache(ov, spec.model_path, precision, threads);
        bool made_here = false;
        {
            std::lock_guard<std::mutex> lock(plugin_settings);
            set_plugin_settings(ov, precision, threads);
            compiled = cache.load(imported);
            if (compiled == nullptr) {
                compile(spec);
                made_here = true;
            }
        }
        if (made_here) cache.store(compiled);
        if (const ov_status status = ov.compiled_model_create_infer_request(compiled, &request)) {
            ov.compiled_model_free(compiled);
            ov.check(status, "create_infer_request");
        }
    }

    ~OpenVINONetwork() override {
        release_outputs();
        if (request != nullptr) ov.infer_request_free(request);
        if (compiled != nullptr) ov.compiled_model_free(compiled);
    }

    std::vector<cv::Mat> forward(const cv::Mat &blob) override {
        CV_Assert(blob.dims == 4 && blob.type() == CV_32F && blob.isContinuous());
        release_outputs();
        int64_t dims[4] = {blob.size[0], blob.size[1], blob.size[2], blob.size[3]};
        ov_tensor *input = nullptr;
        ov.check(ov.tensor_create_from_host_ptr(ov_element_f32, ov_shape_t{4, dims}, blob.data, &input), "tensor_create");
        const ov_status set = ov.infer_request_set_input_tensor(request, input);
        ov.tensor_free(input);
        ov.check(set, "set_input_tensor");
        ov.check(ov.infer_request_infer(request), "infer");
        std::vector<cv::Mat> mats;
        for (const std::string &name : names) {
            ov_tensor *tensor = nullptr;
            ov.check(ov.infer_request_get_tensor(request, name.c_str(), &tensor), "get_tensor");
            outputs.push_back(tensor);
            ov_shape_t shape{};
            ov.check(ov.tensor_get_shape(tensor, &shape), "tensor_get_shape");
            std::vector<int> sizes(shape.dims, shape.dims + shape.rank);
            ov.shape_free(&shape);
            void *data = nullptr;
            ov.check(ov.tensor_data(tensor, &data), "tensor_data");
            mats.emplace_back(static_cast<int>(sizes.size()), sizes.data(), CV_32F, data);
        }
        return mats;
    }

private:
    const OpenVINO &ov;
    std::vector<std::string> names;
    std::string imported; // the cached file `compiled` was imported from, whose bytes it may use
    ov_compiled_model *compiled = nullptr;
    ov_infer_request *request = nullptr;
    std::vector<ov_tensor *> outputs; // the last forward's, whose data its Mats point into

    void release_outputs() {
        for (ov_tensor *tensor : outputs) ov.tensor_free(tensor);
        outputs.clear();
    }

    /* Compiles the model with the plugin's settings (set by the caller). */
    void compile(const cfd::NetworkSpec &spec) {
        ov_model *model = nullptr;
        ov.check(ov.core_read_model(ov.core, spec.model_path.c_str(), nullptr, &model), "read_model");
        std::unique_ptr<ov_model, void (*)(ov_model *)> owned(model, ov.model_free);
        const ov_dimension_t dims[4] = {{1, 1}, {3, 3}, {-1, -1}, {-1, -1}};
        ov_partial_shape_t shape{};
        ov.check(ov.partial_shape_create(4, dims, &shape), "partial_shape_create");
        const ov_status reshaped = ov.model_reshape_single_input(model, shape);
        ov.partial_shape_free(&shape);
        ov.check(reshaped, "reshape");
        ov.check(ov.core_compile_model(ov.core, model, "CPU", 0, &compiled), "compile_model");
    }
};

} // namespace

std::unique_ptr<cfd::Network> cfd::make_openvino_network(const NetworkSpec &spec, const cfd_engine_settings &settings) {
    return std::make_unique<OpenVINONetwork>(spec, settings);
}

extern "C" {

cfd_status cfd_openvino_load(const char *directory, const char *cache_directory, char *version, size_t version_capacity, char *loaded_from,
                             size_t loaded_from_capacity, cfd_error *error) {
    return cfd::guarded(error, [&]() -> cfd_status {
        if (directory == nullptr || version == nullptr || version_capacity == 0 || loaded_from == nullptr ||
            loaded_from_capacity == 0) {
            return cfd::invalid(error, "null argument");
        }
        std::lock_guard<std::mutex> lock(loading);
        if (loaded == nullptr) {
            try {
                loaded = load(directory, cache_directory != nullptr ? cache_directory : "");
            } catch (const std::exception &e) {
                return cfd::fail(error, CFD_ERROR_ENGINE, e.what());
            }
        }
        std::snprintf(version, version_capacity, "%s", loaded->version.c_str());
        std::snprintf(loaded_from, loaded_from_capacity, "%s", loaded->directory.c_str());
        return CFD_OK;
    });
}

} // extern "C"
