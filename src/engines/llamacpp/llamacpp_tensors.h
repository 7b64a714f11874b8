// The tensors of a GGUF converted from a model, as llama.cpp's convert_hf_to_gguf.py writes them
// and its loader expects them, each with its shape in ggml's order (ne[0] is a row's width) and
// whether the converter keeps it in f32 whatever the file's type. From a model record's heads and
// its tensors mapping (load/records.h TensorWidths).
//
// Engine rules, llama.cpp at 80fb11ac73e66d89eae2c6a91d8a77428fa733ed (the pinned release):
// - the tensors and shapes: src/models/llama.cpp, qwen2.cpp, qwen3.cpp, qwen3moe.cpp, gemma3.cpp,
//   glm4.cpp, llama4.cpp, openai-moe.cpp (gpt-oss), qwen35.cpp, granite-hybrid.cpp, lfm2.cpp and
//   deepseek2.cpp, qwen3next.cpp (load_arch_tensors), src/llama-model.cpp (create_tensor_qkv: q, k, v and their
//   biases); conversion/deepseek.py (kv_b_proj split into attn_k_b and attn_v_b, the MTP layer
//   left out); conversion/qwen.py (Qwen3-Next's in_proj_qkvz split into attn_qkv and
//   attn_gate);
// - f32 in the file: conversion/base.py (prepare_tensors: 1-D tensors, norms, anything not
//   named .weight such as biases, and the expert router ffn_gate_inp);
// - the order: src/llama-model-loader.h weight_name_comparer (tensors outside the blocks first,
//   then block by block, by name within one), the order llama-quantize walks them in.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "load/records.h"

namespace kvcat {

struct GgufTensorShape {
    std::string name;                            ///< "blk.0.attn_v.weight"
    std::array<std::int64_t, 3> ne = {1, 1, 1};  ///< ggml's order: ne[0] is the row width
    int dims = 1;
    bool f32_in_file = false;  ///< the converter keeps it in f32: never quantised
    std::int64_t rows() const { return ne[1] * ne[2]; }
};

/// The block (layer) of a tensor named "blk.N. ...", or -1 for one outside the blocks, as
/// llama.cpp's loader and quantizer read it.
int gguf_block_of(const std::string& name);

/// The most layers llama.cpp holds (LLAMA_MAX_LAYERS, src/llama-hparams.h): a record of more
/// implies no GGUF it can load, and listing its tensors would take memory without bound.
inline constexpr std::int64_t kLlamaMaxLayers = 512;

/// True for an architecture whose converter writes head_count_kv one a layer, 0 for a state layer
/// (conversion/granite.py for granitehybrid, conversion/lfm2.py for lfm2): llama.cpp's n_gqa()
/// is then layer 0's, and 0 where that layer keeps no KV heads (src/llama-hparams.cpp).
bool gguf_kv_heads_per_layer(std::string_view arch);

/// The head_count_kv the converter writes: 1 for an MLA model (deepseek2 caches one latent,
/// conversion/deepseek.py), the record's kv_heads otherwise. Needs has_tensor_inventory.
std::int64_t gguf_head_count_kv(const Model& model);

/// True when the record carries what llamacpp_tensors needs.
bool has_tensor_inventory(const Model& model);

/// Every tensor of the model's GGUF, in llama.cpp's loader order. Throws std::invalid_argument
/// naming what the record lacks when it has no complete tensors mapping or heads, or more layers
/// than llama.cpp holds.
std::vector<GgufTensorShape> llamacpp_tensors(const Model& model);

}  // namespace kvcat
