// llama-quantize's choice of a type for every tensor of a model, for its standard mixes
// (Q4_K_M, Q5_K_S, Q3_K_L, Q8_0, ...), and so the exact bytes of the file it writes: llama.cpp
// at 80fb11ac73e66d89eae2c6a91d8a77428fa733ed, src/llama-quant.cpp:
// - llama_ftype_get_default_type: the mix's base type;
// - tensor_allows_quantization: which tensors are quantised at all (2-D and 3-D ".weight"
//   tensors but norms and the expert router; the rest keep the file's f32);
// - llama_tensor_get_type_impl: what raises a tensor above the base (output and tied token
//   embeddings to Q6_K, attn_v and ffn_down of use_more_bits layers, attn_v by the GQA ratio,
//   70B models, 8-expert models, ...), with counters over the tensors in the loader's order;
// - tensor_type_fallback: a row width that does not divide into the type's blocks falls back
//   (Q4_K to Q5_0, Q6_K to Q8_0, ...; F16 when even 32 does not divide).
// With or without an importance matrix (llama-quantize --imatrix: it changes Q4_0, Q5_0, IQ4_NL
// and IQ4_XS), and without overrides (--pure, --tensor-type, --output-tensor-type): a custom
// recipe (Unsloth's UD, per-tensor overrides) is not one of these mixes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engines/llamacpp/llamacpp_tensors.h"
#include "load/records.h"
#include "support/rational.h"
#include "vocab/weight_quant.h"

namespace kvcat {

/// A mix as llama-quantize names it on its command line, and the base type its tensors start from.
struct LlamaMix {
    std::string_view name;  ///< "Q4_K_M"
    std::string_view base;  ///< "Q4_K": a name in the weight-format table
};

/// The mixes kvcat answers exactly, in llama-quantize's order.
std::span<const LlamaMix> llama_mixes();

/// Case-insensitive ("q4_k_m" finds Q4_K_M); nullopt for a name that is not one of them.
std::optional<LlamaMix> find_llama_mix(std::string_view name);

/// The mix whose file llama.cpp's "file type" line names `printed` ("Q4_K - Medium" is Q4_K_M;
/// llama_ftype_name in src/llama-model-loader.cpp at 80fb11ac); nullopt for a type guessed from
/// the tensors ("(guessed) ...") or one kvcat does not plan.
std::optional<LlamaMix> llama_mix_of_file_type(std::string_view printed);

/// ggml's name of a weight format ("q4_K", "iq4_xs", "f32"), as llama.cpp prints a tensor's type.
std::string ggml_type_name(const WeightQuant& type);

struct QuantTensor {
    const GgufTensorShape* tensor;
    WeightQuant type;
    std::int64_t bytes;  ///< rows x the bytes of one row of `type`
};

struct QuantPlan {
    LlamaMix mix;
    bool imatrix = false;  ///< planned as llama-quantize --imatrix quantises
    std::vector<GgufTensorShape> tensors;
    std::vector<QuantTensor> types;  ///< one per tensor, in the same order
    std::int64_t bytes = 0;          ///< every tensor's data: llama-bench's model_size of the file
    /// Tensors per type, for a line a person reads: {"q4_K": 193, "q6_K": 33, "f32": 113}.
    std::map<std::string, int> tensors_per_type() const;
};

/// The plan behind a weight format as fit and plan take it: a GGUF mix by name (Q4_K_M, Q8_0,
/// ...) when the model's record lists its tensors and the engine is llama.cpp or none; F16 and
/// BF16 only with llama.cpp named (without an engine they stay the textbook's parameters x 2
/// bytes, the safetensors a vLLM or SGLang start reads). nullopt otherwise; throws as
/// llamacpp_quant_plan does.
std::optional<QuantPlan> named_quant_plan(const Model& model, std::string_view weights, std::string_view engine,
                                          bool imatrix = false);

/// The bytes of a planned file llama.cpp keeps in host memory when every layer runs on the card:
/// its input layer (token_embd, position_embd, token_types, per_layer_token_embd), which it loads
/// to the CPU (src/llama-model.cpp at 80fb11ac: `dev_input` is the CPU device; src/llama-arch.cpp:
/// LLM_TENSOR_LAYER_INPUT). The host's model buffers print it (`CPU`, `CUDA_Host`, `CPU_Mapped`).
std::int64_t llamacpp_host_bytes(const QuantPlan& plan);
/// The bytes the card then holds: the rest of the file, and for a model without output.weight the
/// copy of token_embd it loads as its output (TENSOR_DUPLICATED, src/llama-model-loader.cpp).
std::int64_t llamacpp_card_bytes(const QuantPlan& plan);
/// "token_embd.weight (q4_K): llama.cpp loads the input layer to the CPU ..." for a line a person reads.
std::string llamacpp_host_bytes_how(const QuantPlan& plan);

/// A tensor of a file by name, and its bytes.
struct NamedTensorBytes {
    std::string name;
    std::int64_t bytes = 0;
    std::string type;  ///< ggml's name of its type, "" when not known
};
/// Of a file of these tensors, the bytes llama.cpp keeps off the card with every layer on it: the
/// input layer, less the copy of token_embd a file without output.weight loads to the card (the
/// rules of llamacpp_host_bytes and llamacpp_card_bytes, for a file kvcat did not plan).
std::int64_t llamacpp_off_card_bytes(const std::vector<NamedTensorBytes>& tensors);
/// The same for a planned file: its bytes less llamacpp_card_bytes.
std::int64_t llamacpp_off_card_bytes(const QuantPlan& plan);
std::string llamacpp_off_card_how(const std::vector<NamedTensorBytes>& tensors);

/// "llama-quantize's Q4_K_M of the model's 707 tensors: 385 q4_K, 65 q6_K, 257 f32 (...)".
std::string quant_plan_how(const QuantPlan& plan);

/// The plan for the model's GGUF in `mix`. Throws std::invalid_argument when the record cannot
/// list its tensors (engines/llamacpp/llamacpp_tensors.h), std::overflow_error past 2^63 bytes.
QuantPlan llamacpp_quant_plan(const Model& model, const LlamaMix& mix, bool imatrix = false);

}  // namespace kvcat
