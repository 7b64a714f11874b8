// llama.cpp's quantisation mixes (Q4_K_M, Q5_K_S, Q3_K_L, ...): weight formats that are not
// one block type but a recipe choosing a type per tensor.
//
// A mix has no exact bits per weight: which tensors get more bits depends on the model's
// tensor shapes, its layer count and its architecture, none of which a model record holds.
// What is exact is a lower bound. In llama.cpp (ggml-org/llama.cpp, src/llama-quant.cpp at
// commit 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714) llama_ftype_get_default_type gives each
// mix its base block type (Q4_K for Q4_K_S and Q4_K_M), and llama_tensor_get_type_impl only
// ever raises a tensor above it (output.weight to Q6_K; attn_v and ffn_down in the layers
// use_more_bits picks to Q6_K for Q4_K_M; ...), while tensors it does not quantise (norms)
// stay in f32. So every parameter at the base type's bits is at most the file's tensor data.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "vocab/weight_quant.h"

namespace kvcat {

struct WeightMix {
    std::string_view name;    ///< as llama.cpp's quantize tool names it: "Q4_K_M"
    std::string_view base;    ///< the block type most tensors keep: "Q4_K"
    std::string_view raised;  ///< what llama.cpp raises, in a few words
};

std::span<const WeightMix> weight_mixes();

/// Case-insensitive lookup ("q4_k_m" finds Q4_K_M); nullopt for a name that is not a mix.
std::optional<WeightMix> find_weight_mix(std::string_view name);

/// The base block type of a mix, from the exact table.
WeightQuant mix_base(const WeightMix& mix);

/// A weight format as fit, curve and plan take its name: an exact format, or a llama.cpp mix at
/// its base type (`mix` set: the weights so sized are a lower bound).
struct NamedWeights {
    WeightQuant quant;
    std::optional<WeightMix> mix;
    std::string_view name() const { return mix ? mix->name : quant.name; }
};
/// Case-insensitive, exact formats first; nullopt for a name that is neither.
std::optional<NamedWeights> find_weights(std::string_view name);

/// "unknown weight format 'X'; exact ones are: ...; llama.cpp's mixes, taken at their base type as
/// a lower bound: ...".
std::string unknown_weights_message(std::string_view name);

}  // namespace kvcat
