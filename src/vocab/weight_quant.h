// Weight formats and their exact bytes per weight.
//
// The one table of weight sizes, used by the memory-fit and bandwidth checks. Block
// formats store a block of weights with its scales: llama.cpp's Q4_K packs 256
// weights into 144 bytes, 4.5 bits each (ggml/src/ggml-common.h block layouts).
// Mixed recipes such as Q4_K_M vary per tensor and are not in the table: a record
// that names one gets no weight figure rather than a guess. fp8 and fp8_e4m3 are a
// checkpoint scaled per tensor or per channel; fp8_block one scaled per 128 x 128 block
// (Qwen's and DeepSeek's FP8 releases), whose split over cards an engine checks against
// the block (engines/checkpoint_layers.h).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "support/rational.h"

namespace kvcat {

struct WeightQuant {
    std::string_view name;  ///< as records write it: "Q4_K", "bf16", "fp8"
    int block_weights;      ///< weights per block
    int block_bytes;        ///< bytes per block
    Rational bytes_per_weight() const { return Rational(block_bytes, block_weights); }
    Rational bits_per_weight() const { return Rational(block_bytes * 8, block_weights); }
};

std::span<const WeightQuant> weight_quants();

/// Case-insensitive lookup ("q4_k" finds Q4_K); nullopt when the format is not exact.
std::optional<WeightQuant> find_weight_quant(std::string_view name);

}  // namespace kvcat
