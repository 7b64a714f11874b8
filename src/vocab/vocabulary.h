// The names rows from many sources must share so that they query together: inference
// engines and weight formats, each with the spellings people use for it.
//
// An engine outside the table is an error (a catalog that says "vllm" in one row and "vLLM"
// in another splits every query); a fork is its own engine and names its upstream. Weight
// formats change with every new quantisation recipe, so an unknown one is a warning with a
// did-you-mean, and a known one spelled differently is an error that names the spelling.
// Cache dtypes are a closed enumeration of the schema already.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kvcat {

struct EngineName {
    std::string_view name;      ///< as the catalog writes it
    std::string_view upstream;  ///< the engine it was forked from, or ""
    std::string_view what;
    std::span<const std::string_view> spellings;  ///< other ways people write it (matched without case)
};

struct WeightFormatName {
    std::string_view name;
    std::string_view what;
};

std::span<const EngineName> engine_names();
std::span<const WeightFormatName> weight_format_names();

/// The engine written exactly so, or nullptr.
const EngineName* find_engine(std::string_view name);
/// The engine a spelling means (its name or a known spelling, any case), or nullptr.
const EngineName* engine_spelled(std::string_view spelling);

/// The weight format written exactly so, or nullptr.
const WeightFormatName* find_weight_format(std::string_view name);
/// The weight format a spelling means, ignoring case, or nullptr.
const WeightFormatName* weight_format_spelled(std::string_view spelling);

}  // namespace kvcat
