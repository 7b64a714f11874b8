// One meaning per name: a cache dtype as an engine spells it, and as the catalog names it.
//
// Records keep the engine's own spelling (vLLM's `--kv-cache-dtype fp8`), which is what a
// reader finds in the source. The catalog's kv_cache_dtype column holds the catalog's name for
// the same thing (fp8_e4m3), so one filter finds every row of a type, and
// written_kv_cache_dtype keeps the spelling. A family (fp8) names several types at once;
// a filter on it matches each member and says how many rows each gave.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kvcat {

/// The catalog's name for a cache dtype as `engine` spells it: vLLM's fp8 is fp8_e4m3
/// (vllm/config/cache.py, src/check/rules/engine_kv_dtype.cc), fp16 is f16 and fp32 is f32 for
/// every engine; any other name is already the catalog's.
std::string catalog_dtype(std::string_view engine, std::string_view written);

/// The members of a dtype family ("fp8": fp8, fp8_e4m3, fp8_e5m2), or empty when the name is
/// not a family.
std::span<const std::string_view> dtype_family(std::string_view name);

}  // namespace kvcat
