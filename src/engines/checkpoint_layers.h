// The weights vLLM and SGLang hold on each card once they have loaded a Hugging Face checkpoint:
// every parameter as the engine's model file builds it, in the checkpoint's format, split over
// tensor-parallel ranks as its layers split them. SGLang's layers are ported from vLLM's (its
// vocab_parallel_embedding.py says "Adapted from" vLLM v0.6.3.post1) and size the same. vLLM's
// "Model loading took" prints this, with the rotary table beside it (vllm/vllm_budget.h).
//
// Engine rules, read in the CentML/vllm mirror (tags carry upstream's commits) at v0.10.0
// (6d8d0a24) and v0.20.1 (132765e3), the same in both unless said:
// - the layers: model_executor/models/llama.py, qwen2.py (q, k and v with biases), qwen3.py and
//   qwen3_moe.py (q and k norms of head_dim), mixtral.py; the expert router is a ReplicatedLinear
//   built with quant_config=None (qwen3_moe.py at v0.10.0, mixtral.py at both); qwen3_moe.py at
//   v0.20.1 passes the checkpoint's quant_config, whose list of modules not to convert keeps it
//   in the model's dtype in Qwen's FP8 checkpoints (a fp8 router puts the 0.27.1 start below
//   0.05 GiB further under what it printed);
// - the split: layers/vocab_parallel_embedding.py (the vocabulary padded to 64, then divided by
//   the ranks: pad_vocab_size, divide), layers/linear.py (QKVParallelLinear: the query heads
//   divided, the K and V heads divided or, with more ranks than heads, one head a rank;
//   MergedColumnParallelLinear and RowParallelLinear divide the feed-forward width), norms and
//   the router replicated; layers/fused_moe/layer.py (FusedMoE: every expert on every rank with
//   its width divided, or with --enable-expert-parallel the experts divided and their width whole);
// - fp8: layers/quantization/fp8.py (Fp8LinearMethod and Fp8MoEMethod.create_weights: the weights
//   in float8_e4m3fn, one float32 weight_scale_inv per 128 x 128 block of a linear layer's
//   partition and of each expert's w13 and w2) and quantization/utils/fp8_utils.py
//   (create_fp8_scale_parameter, validate_fp8_block_shape: the ValueErrors it raises for a
//   partition the block does not divide; later releases moved the experts' check to
//   validate_fp8_block_shape_moe, vllm-project/vllm pull 58152, and may word it otherwise);
//   embeddings and the output head are no linear layer
//   and stay in the model's dtype (UnquantizedEmbeddingMethod);
// - the heads: config/model.py (verify_with_parallel_config: the query heads must divide by the
//   ranks).
// SGLang, read through the code index (sgl-project/sglang, one stored version of each file):
// layers/vocab_parallel_embedding.py at 04d5e392 (DEFAULT_VOCAB_PADDING_SIZE 64, divide),
// layers/linear.py at 0079fcc1 (QKVParallelLinear's K and V replicas as vLLM's),
// layers/quantization/fp8.py at 00563d36 (validate_block_quant_shapes: the same ValueErrors; every
// partition of a merged layer checked), models/qwen3_moe.py at 008af3a6 (the router in bf16 on the
// fp8 path). SGLang's expert parallelism is not modelled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine_memory.h"
#include "load/records.h"

namespace kvcat {

/// The bytes of the weights `engine` ("vLLM", "SGLang", for the words of `how`) loads on each of
/// `gpus` tensor-parallel cards for a checkpoint in
/// `format`: "bf16", "fp16", "f16" or "f32", "fp32" (every parameter in that dtype), "fp8_block" (a
/// checkpoint quantized by 128 x 128 blocks, as Qwen's and DeepSeek's FP8 ones, with a float32
/// scale a block), or "fp8", "fp8_e4m3" (one scaled per tensor or per channel, whose scales, well
/// under 0.1% of the weights, are not counted, and which no block constrains); in each fp8 kind the
/// embeddings, output head, norms, biases and expert router in bf16. nullopt where kvcat has
/// not read the model's file (architectures other than llama, qwen2, qwen3 and qwen3moe), for any
/// other format, or for a model record without a tensors mapping. Throws EngineRefusal with the
/// engine's own words for a split it refuses to load (a block checkpoint's partition the block does
/// not divide, query heads the cards do not divide).
std::optional<EngineWeights> checkpoint_layers(const Model& model, std::string_view format, std::int64_t gpus,
                                               bool expert_parallel, std::string_view engine);

/// The tensors one of `gpus` ranks allocates for a checkpoint in a float `format` (bf16, fp16,
/// f32), in the order the model's file makes them, bytes each: the embeddings; for each layer q, k
/// and v (with qwen2's biases), o, the rotary table of `rotary_bytes` in the first (none at 0), the
/// `layer_scalars` float32 scalars the engine's attention layer makes, qwen3's q and k norms, the experts' w13 and w2
/// and the router (Mixtral's before them, Qwen3's after) or gate_up and down, and the layer's two norms; the last norm
/// and the output head. The same files and commits as checkpoint_layers (llama.py, qwen2.py, qwen3.py, qwen3_moe.py,
/// mixtral.py; the experts as fused_moe/layer.py makes w13_weight and w2_weight). nullopt for an
/// fp8 format (vLLM makes new tensors for those once they are loaded) and wherever
/// checkpoint_layers gives nothing; throws as it does.
std::optional<std::vector<std::int64_t>> checkpoint_allocations(const Model& model, std::string_view format,
                                                                std::int64_t gpus, bool expert_parallel,
                                                                std::int64_t rotary_bytes, std::int64_t layer_scalars);

/// The torch dtype a float checkpoint `format` is run in when the engine is given no --dtype: vLLM's
/// and SGLang's dtype "auto" keeps a float checkpoint's own ("float32" for f32 and fp32, "float16"
/// for fp16 and f16, "bfloat16" for bf16). nullopt for a quantized format, whose activations are in
/// the checkpoint's original dtype, which the format does not say.
std::optional<std::string_view> checkpoint_float_dtype(std::string_view format);

}  // namespace kvcat
