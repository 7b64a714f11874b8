#include "vocab/dtype.h"

#include <array>

#include <fmt/format.h>

namespace kvcat {

namespace {

constexpr std::array kDtypes = {
    CacheDtype{"f32", 1, 4, "32-bit float"},
    CacheDtype{"fp32", 1, 4, "32-bit float"},
    CacheDtype{"f16", 1, 2, "16-bit float"},
    CacheDtype{"fp16", 1, 2, "16-bit float"},
    CacheDtype{"bf16", 1, 2, "bfloat16"},
    CacheDtype{"fp8", 1, 1, "8-bit float (vLLM's fp8 is fp8_e4m3)"},
    CacheDtype{"fp8_e4m3", 1, 1, "8-bit float, 4 exponent bits"},
    CacheDtype{"fp8_e5m2", 1, 1, "8-bit float, 5 exponent bits"},
    CacheDtype{"q8_0", 32, 34, "ggml block of 32: 32 int8 + fp16 scale"},
    CacheDtype{"q5_1", 32, 24, "ggml block of 32: 5-bit + fp16 scale and min"},
    CacheDtype{"q5_0", 32, 22, "ggml block of 32: 5-bit + fp16 scale"},
    CacheDtype{"q4_1", 32, 20, "ggml block of 32: 4-bit + fp16 scale and min"},
    CacheDtype{"q4_0", 32, 18, "ggml block of 32: 4-bit + fp16 scale"},
    CacheDtype{"iq4_nl", 32, 18, "ggml block of 32: non-linear 4-bit + fp16 scale"},
};

}  // namespace

std::span<const CacheDtype> cache_dtypes() {
    return kDtypes;
}

std::optional<CacheDtype> find_cache_dtype(std::string_view name) {
    for (const auto& d : kDtypes) {
        if (d.name == name) {
            return d;
        }
    }
    return std::nullopt;
}

std::string unknown_cache_dtype_message(std::string_view name) {
    std::string valid;
    for (const auto& d : cache_dtypes()) valid += (valid.empty() ? "" : ", ") + std::string(d.name);
    return fmt::format("unknown KV cache dtype '{}'; valid: {}", name, valid);
}

std::optional<Rational> element_bytes(std::string_view k, const std::optional<std::string>& v) {
    auto key = find_cache_dtype(k);
    if (!key) return std::nullopt;
    if (!v || *v == k) return key->bytes_per_element();
    auto value = find_cache_dtype(*v);
    if (!value) return std::nullopt;
    return (key->bytes_per_element() + value->bytes_per_element()) / Rational(2);
}

}  // namespace kvcat
