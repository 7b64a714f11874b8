#include "vocab/dtype_spelling.h"

#include <array>

namespace kvcat {

namespace {

struct Spelling {
    std::string_view engine;  ///< "" for every engine
    std::string_view written;
    std::string_view catalog;
};

// vLLM: `fp8` is fp8_e4m3 on CUDA and ROCm (CacheDType in vllm/config/cache.py of
// vllm-project/vllm at commit c1d86421174a87056edc90a41dc9942391509e84; see
// src/check/rules/engine_kv_dtype.cc). fp16/fp32 are the catalog's synonyms of f16/f32.
constexpr std::array kSpellings = {
    Spelling{"vLLM", "fp8", "fp8_e4m3"},
    Spelling{"", "fp16", "f16"},
    Spelling{"", "fp32", "f32"},
};

constexpr std::array<std::string_view, 3> kFp8 = {"fp8", "fp8_e4m3", "fp8_e5m2"};
constexpr std::array<std::string_view, 2> kF16 = {"f16", "fp16"};
constexpr std::array<std::string_view, 2> kF32 = {"f32", "fp32"};

}  // namespace

std::string catalog_dtype(std::string_view engine, std::string_view written) {
    for (const auto& s : kSpellings) {
        if ((s.engine.empty() || s.engine == engine) && s.written == written) return std::string(s.catalog);
    }
    return std::string(written);
}

std::span<const std::string_view> dtype_family(std::string_view name) {
    if (name == "fp8") return kFp8;
    if (name == "f16" || name == "fp16") return kF16;
    if (name == "f32" || name == "fp32") return kF32;
    return {};
}

}  // namespace kvcat
