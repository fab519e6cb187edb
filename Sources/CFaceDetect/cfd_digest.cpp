// File digests: the SHA-256 facecam checks OpenVINO's libraries against before loading them.
#include "shim.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <openssl/evp.h>
#include <unistd.h>
#include <vector>

std::string cfd::sha256_hex(const void *bytes, size_t count) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes, count, digest, &length, EVP_sha256(), nullptr) != 1 || length != 32) {
        throw std::runtime_error("EVP_Digest failed");
    }
    char hex[65];
    for (unsigned int i = 0; i < length; ++i) std::snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return std::string(hex, 64);
}

extern "C" cfd_status cfd_sha256_descriptor(int descriptor, char hex[65], cfd_error *error) {
    return cfd::guarded(error, [&]() -> cfd_status {
        if (descriptor < 0 || hex == nullptr) return cfd::invalid(error, "invalid argument");
        std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX *)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
        if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
            return cfd::fail(error, CFD_ERROR_INTERNAL, "EVP_DigestInit_ex failed");
        }
        std::vector<unsigned char> buffer(1 << 20);
        // pread from the start: the descriptor's offset is the caller's.
        for (off_t offset = 0;;) {
            const ssize_t count = pread(descriptor, buffer.data(), buffer.size(), offset);
            if (count < 0 && errno == EINTR) continue;
            if (count < 0) return cfd::invalid(error, (std::string("read: ") + std::strerror(errno)).c_str());
            if (count == 0) break;
            EVP_DigestUpdate(context.get(), buffer.data(), static_cast<size_t>(count));
            offset += count;
        }
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1 || length != 32) {
            return cfd::fail(error, CFD_ERROR_INTERNAL, "EVP_DigestFinal_ex failed");
        }
        for (unsigned int i = 0; i < length; ++i) std::snprintf(hex + 2 * i, 3, "%02x", digest[i]);
        return CFD_OK;
    });
}
