#include "predict/nominal_weights.h"

#include <array>

#include <fmt/format.h>

#include "support/suggest.h"
#include "vocab/weight_mix.h"
#include "vocab/weight_quant.h"

namespace kvcat {

namespace {

/// A block format kvcat's exact table leaves out because files in it mix other types into
/// some tensors (gpt-oss keeps attention in bf16 beside MXFP4 experts), with its block layout.
struct BlockFormat {
    std::string_view name;
    int block_weights;
    int block_bytes;
    std::string_view layout;
};

// llama.cpp, ggml/src/ggml-common.h: block_mxfp4 is one E8M0 exponent and 16 bytes of FP4
// codes for 32 weights; block_nvfp4 four UE4M3 scales and 32 bytes for 64; block_iq4_xs a
// half scale, 2 + 4 bytes of sub-scales and 128 bytes for 256. ik_llama.cpp, the same file:
// block_iq3_k (d, extra, scales_h, scales_l[8], qs[64], qh[32]) and block_iq4_k (d, extra,
// scales_h[4], scales_l[8], qs[128]). A group-quantised INT4 checkpoint (compressed-tensors,
// GPTQ) keeps a 16-bit scale per group of 128; AWQ adds a 4-bit zero point per group.
constexpr std::array kBlockFormats{
    BlockFormat{"MXFP4", 32, 17, "32 FP4 codes and one shared exponent byte"},
    BlockFormat{"NVFP4", 64, 36, "64 FP4 codes and four FP8 scales"},
    BlockFormat{"IQ4_XS", 256, 136, "256 4-bit codes, a half scale and 6 bytes of sub-scales"},
    BlockFormat{"IQ3_K", 256, 110, "256 3-bit codes with their scales"},
    BlockFormat{"IQ4_K", 256, 144, "256 4-bit codes with their scales"},
    BlockFormat{"INT4", 256, 132, "4-bit weights and a 16-bit scale per group of 128"},
    BlockFormat{"AWQ-INT4", 256, 133, "4-bit weights, a 16-bit scale and a 4-bit zero per group of 128"},
    BlockFormat{"GPTQ-INT4", 256, 132, "4-bit weights and a 16-bit scale per group of 128"},
};

}  // namespace

std::optional<NominalWeights> nominal_weights(std::string_view weight_quant) {
    if (auto exact = find_weight_quant(weight_quant)) {
        return NominalWeights{exact->bytes_per_weight(), fmt::format("{} at its exact {} bits a weight", exact->name,
                                                                     exact->bits_per_weight().to_display())};
    }
    if (auto mix = find_weight_mix(weight_quant)) {
        WeightQuant base = mix_base(*mix);
        return NominalWeights{base.bytes_per_weight(),
                              fmt::format("{} taken at its base {} ({} bits a weight; the file is larger)", mix->name,
                                          base.name, base.bits_per_weight().to_display())};
    }
    for (const auto& f : kBlockFormats) {
        if (!equal_ignoring_case(f.name, weight_quant)) continue;
        Rational bytes(f.block_bytes, f.block_weights);
        return NominalWeights{bytes, fmt::format("{} taken as {} bits a weight throughout ({})", f.name,
                                                 (bytes * Rational(8)).to_display(), f.layout)};
    }
    return std::nullopt;
}

}  // namespace kvcat
