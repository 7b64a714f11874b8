#include "vocab/weight_mix.h"

#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "support/suggest.h"

namespace kvcat {

namespace {

// From llama_tensor_get_type_impl (see weight_mix.h for the file and commit); "more-bits
// layers" are those use_more_bits picks: the first and last eighth of the layers and every
// third one between.
constexpr std::array kMixes = {
    WeightMix{"Q2_K_S", "Q2_K", "the first eighth of ffn_down to Q4_K"},
    WeightMix{"Q3_K_S", "Q3_K", "output.weight to Q6_K"},
    WeightMix{"Q3_K_M", "Q3_K", "attn_v to Q4_K/Q5_K, ffn_down and attn_output to Q4_K, output.weight to Q6_K"},
    WeightMix{"Q3_K_L", "Q3_K", "attn_v, ffn_down and attn_output to Q5_K, output.weight to Q6_K"},
    WeightMix{"Q4_K_S", "Q4_K",
              "the first attn_v tensors and the first eighth of ffn_down to Q5_K, output.weight to Q6_K"},
    WeightMix{"Q4_K_M", "Q4_K", "attn_v and ffn_down of the more-bits layers to Q6_K, output.weight to Q6_K"},
    WeightMix{"Q5_K_S", "Q5_K", "output.weight to Q6_K"},
    WeightMix{"Q5_K_M", "Q5_K", "attn_v and ffn_down of the more-bits layers to Q6_K, output.weight to Q6_K"},
};

}  // namespace

std::span<const WeightMix> weight_mixes() {
    return kMixes;
}

std::optional<WeightMix> find_weight_mix(std::string_view name) {
    for (const auto& m : kMixes) {
        if (equal_ignoring_case(m.name, name)) return m;
    }
    return std::nullopt;
}

WeightQuant mix_base(const WeightMix& mix) {
    auto q = find_weight_quant(mix.base);
    if (!q) throw std::logic_error("a weight mix's base type is not in the exact table");
    return *q;
}

std::optional<NamedWeights> find_weights(std::string_view name) {
    if (auto q = find_weight_quant(name)) return NamedWeights{*q, std::nullopt};
    if (auto mix = find_weight_mix(name)) return NamedWeights{mix_base(*mix), *mix};
    return std::nullopt;
}

std::string unknown_weights_message(std::string_view name) {
    std::string exact, mixes;
    for (const auto& q : weight_quants()) exact += (exact.empty() ? "" : ", ") + std::string(q.name);
    for (const auto& m : weight_mixes()) mixes += (mixes.empty() ? "" : ", ") + std::string(m.name);
    return fmt::format(
        "unknown weight format '{}'; exact ones are: {}; llama.cpp's mixes, taken at their base type as a lower "
        "bound: {}",
        name, exact, mixes);
}

}  // namespace kvcat
