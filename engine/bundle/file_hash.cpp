#include "engine/bundle/file_hash.hpp"

#include <openssl/evp.h>

#include "runtime/json.hpp"
#include "runtime/yaml.hpp"
#include "stdlib/crypto_support.hpp"

namespace gavel::engine::bundle {

namespace {

const EVP_MD* digest_for(std::string_view algorithm) {
    if (algorithm == "MD5") return EVP_md5();
    if (algorithm == "SHA-1") return EVP_sha1();
    if (algorithm == "SHA-224") return EVP_sha224();
    if (algorithm == "SHA-256") return EVP_sha256();
    if (algorithm == "SHA-384") return EVP_sha384();
    if (algorithm == "SHA-512") return EVP_sha512();
    if (algorithm == "SHA-512-224") return EVP_sha512_224();
    if (algorithm == "SHA-512-256") return EVP_sha512_256();
    return nullptr;
}

std::string_view base_name(std::string_view path) {
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

struct DigestStream::Ctx {
    stdlib::crypto::MdCtxPtr md;
};

DigestStream::DigestStream(std::string_view algorithm) {
    const EVP_MD* md = digest_for(algorithm);
    if (!md) return;
    auto ctx = std::make_unique<Ctx>();
    ctx->md.reset(EVP_MD_CTX_new());
    if (!ctx->md || EVP_DigestInit_ex(ctx->md.get(), md, nullptr) != 1) return;
    ctx_ = std::move(ctx);
}

DigestStream::~DigestStream() = default;
DigestStream::DigestStream(DigestStream&&) noexcept = default;

void DigestStream::update(std::string_view bytes) {
    if (ctx_) EVP_DigestUpdate(ctx_->md.get(), bytes.data(), bytes.size());
}

std::string DigestStream::hex() {
    if (!ctx_) return {};
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_->md.get(), out, &n);
    ctx_.reset();
    return stdlib::crypto::hex(std::string_view(reinterpret_cast<const char*>(out), n));
}

std::optional<std::string> hash_bytes(std::string_view bytes, std::string_view algorithm, std::string& error) {
    DigestStream digest(algorithm);
    if (!digest.ok()) {
        error = "unsupported hashing algorithm: " + std::string(algorithm);
        return std::nullopt;
    }
    digest.update(bytes);
    return digest.hex();
}

bool is_structured_doc(std::string_view path) {
    auto base = base_name(path);
    return base == "data.json" || base == "data.yaml" || base == "signatures.json" || base == ".manifest";
}

std::optional<std::string> hash_value(const runtime::Value& value, std::string_view algorithm, std::string& error) {
    // Compact JSON with sorted keys and Go's escaping is exactly what OPA's walk feeds the hash.
    return hash_bytes(runtime::to_json(value), algorithm, error);
}

std::optional<std::string> hash_file(std::string_view path, std::string_view bytes, std::string_view algorithm,
                                     std::string& error) {
    if (!is_structured_doc(path)) return hash_bytes(bytes, algorithm, error);
    auto parsed = base_name(path) == "data.yaml" ? runtime::load_yaml_data(bytes) : runtime::parse_json(bytes);
    if (!parsed) {
        error = std::string(path) + ": " + parsed.error.message;
        return std::nullopt;
    }
    return hash_value(parsed.value, algorithm, error);
}

}  // namespace gavel::engine::bundle
