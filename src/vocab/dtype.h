// KV cache element types and their exact sizes.
//
// The one table of bytes per element. Quantised llama.cpp types store a block of 32
// values with their scale(s), so their size is a fraction: q8_0 is 34 bytes per 32
// values. Sources: ggml/src/ggml-common.h block layouts; vLLM vllm/config/cache.py.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "support/rational.h"

namespace kvcat {

struct CacheDtype {
    std::string_view name;  ///< as written in records: "bf16", "q8_0", "fp8_e4m3"
    int block_values;       ///< values per block (1 for plain types)
    int block_bytes;        ///< bytes per block
    std::string_view description;
    Rational bytes_per_element() const { return Rational(block_bytes, block_values); }
};

/// Every cache dtype a record may name.
std::span<const CacheDtype> cache_dtypes();

/// Lookup by exact name; nullopt when unknown.
std::optional<CacheDtype> find_cache_dtype(std::string_view name);
/// "unknown KV cache dtype 'X'; valid: f32, f16, ...".
std::string unknown_cache_dtype_message(std::string_view name);

/// Bytes per cached element of a cache whose K is `k` and whose V is `v` (the same as K when
/// absent): the mean of the two, so that elements x 2 (K and V) x it is exact for a cache
/// that keeps K and V at different types (llama.cpp's -ctk q8_0 -ctv q4_0: 26/32).
/// nullopt when either name is unknown.
std::optional<Rational> element_bytes(std::string_view k, const std::optional<std::string>& v);

}  // namespace kvcat
