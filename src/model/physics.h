// What the hardware allows: memory fit and the bandwidth roofline.
//
// Memory fit: the largest context whose KV cache fits beside the weights, the fixed
// state and a stated runtime reserve. Roofline: decoding one token reads the active
// weights and the whole KV cache at the context, so tokens per second cannot exceed
// the memory bandwidth divided by those bytes. Every term is exact and shown, so a
// reader can redo the sum; the only assumption, the runtime reserve, is named.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "load/records.h"
#include "support/rational.h"
#include "vocab/dtype.h"
#include "vocab/weight_quant.h"

namespace kvcat {

/// Memory held back for the runtime: CUDA context, compute buffers, fragmentation.
inline const Rational kDefaultReserveBytes = Rational(1LL << 30);

/// Thrown when a model or accelerator record lacks a figure the computation needs.
class PhysicsError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

/// Bytes of all the weights (total parameters): what must be resident.
Rational resident_weight_bytes(const Model& model, const WeightQuant& quant);
/// Bytes of the weights read per decoded token (active parameters).
Rational active_weight_bytes(const Model& model, const WeightQuant& quant);
/// The accelerator's memory, bytes: the total its driver or runtime reports (memory_reported)
/// when the record gives it, else the vendor's GB taken as 10^9 bytes.
Rational memory_bytes(const Accelerator& accelerator);
/// Where memory_bytes comes from, for the printout: "nvidia-smi's total, 24576 MiB".
std::string memory_how(const Accelerator& accelerator);
/// The total CUDA or HIP gives a program on this card (memory_runtime_total), bytes; nullopt when the
/// record gives none.
std::optional<Rational> runtime_memory_bytes(const Accelerator& accelerator);
/// Where runtime_memory_bytes comes from: "CUDA's total, 79.19 GiB"; "" without one.
std::string runtime_memory_how(const Accelerator& accelerator);
/// Bytes in one printed unit of memory_reported (B, MiB, GiB, MB); nullopt for another.
std::optional<Rational> memory_unit_bytes(std::string_view unit);

/// How a model is deployed for a fit: the batch, the cards it is spread over and, when known,
/// the real size of its weights.
struct FitSetup {
    std::int64_t batch = 1;
    Rational reserve = kDefaultReserveBytes;  ///< held back on each card
    /// --reserve-gib was given: an engine that works out what the runtime holds (llama.cpp's
    /// compute buffer and the card's memory held before it starts) takes the reserve in place of
    /// its own figure for what it cannot derive.
    bool reserve_given = false;
    std::int64_t gpus = 1;                 ///< tensor parallel over this many cards
    std::optional<Rational> weight_bytes;  ///< the weights' real size; else parameters x bits per weight
    std::string weight_how;                ///< where weight_bytes comes from, for the printout
};

/// Terms of a fit, per card: with --gpus N each card holds its share of the weights, the KV
/// cache and the state, and the largest context is the one the fullest card allows.
struct FitTerms {
    std::int64_t gpus = 1;
    std::string weights_how;   ///< "all parameters x 4.5 bits / 8", or the file it was read from
    std::string kv_split_how;  ///< how the KV heads are spread over the cards
    std::string memory_how;    ///< memory_how(accelerator)
    std::string card_name;     ///< the accelerator's name, for the defaults an engine takes from it
    /// Who reported `memory` (memory_reported.by: nvidia-smi, rocm-smi, cuda, metal); "" for the
    /// vendor's GB. An engine's rule for what the card holds before it starts depends on it.
    std::string memory_by;
    Rational memory;
    /// The total CUDA or HIP gives a program (runtime_memory_bytes), which vLLM and SGLang take their
    /// share of; nullopt when the card's record gives none.
    std::optional<Rational> runtime_memory;
    std::string runtime_memory_how;
    Rational weights;
    /// Of `weights`, the bytes an engine keeps in host memory rather than on the card (llama.cpp's
    /// input layer: engines/llamacpp/llamacpp_quant.h); set by whoever knows the engine and file.
    Rational weights_off_card;
    std::string weights_off_card_how;
    Rational fixed_state;  ///< x batch
    Rational reserve;
    bool reserve_given = false;  ///< FitSetup::reserve_given
    Rational available;          ///< memory - weights - fixed_state - reserve
    Rational growing_per_token;  ///< KV bytes per token of the layers that keep growing, x batch
    Rational sliding_per_token;  ///< of the sliding layers until their window fills, x batch
    std::int64_t window = 0;
    std::int64_t batch = 1;
    std::int64_t max_context = 0;  ///< 0 when even the weights do not fit (JSON: null; the text stops at the refusal)
    std::int64_t native_context = 0;
    /// The model's vocabulary and hidden width (its tensors mapping; 0 when the record has none):
    /// an engine whose start runs the output layer on a batch of its own (vLLM's sampler) needs them.
    std::int64_t vocab_size = 0;
    std::int64_t hidden_size = 0;
    /// The architecture its tensors mapping names ("" without one) and the attention heads' width
    /// (0 when the record gives none): an engine that loads a rotary table of its own beside the
    /// weights (vLLM) sizes it from them and native_context.
    std::string arch;
    std::int64_t head_dim = 0;
    /// A mixture of experts' routed experts, the experts a token goes through and one expert's
    /// feed-forward width (its tensors mapping; 0 for a dense model or a record that does not say):
    /// vLLM's fused experts keep a workspace of them.
    std::int64_t experts = 0;
    std::int64_t experts_used = 0;
    std::int64_t expert_ffn_size = 0;
    /// The weight format the fit was asked for ("bf16", "fp8_block", "Q4_K_M"); "" when the weights
    /// were given as bytes or a file.
    std::string weight_format;
    bool bounded = false;  ///< no layer grows and the window fits: max_context is the native context
    bool fits = true;      ///< false when the weights, state and reserve alone exceed the card
};

/// The model's own figures an engine sizes its buffers from (native_context, vocab_size,
/// hidden_size, arch, head_dim), as fit_context sets them: zero or empty where the record gives
/// none. For an engine's term asked without a card (the report's planner, a test).
FitTerms model_terms(const Model& model);

/// The largest context that fits. Throws PhysicsError when a figure is missing, or when the
/// KV heads cannot be spread over the cards as engines spread them.
FitTerms fit_context(const Model& model, const Accelerator& accelerator, const WeightQuant& quant,
                     const CacheDtype& dtype, std::int64_t batch, const Rational& reserve);
/// The same for a deployment: `quant` may be null when setup.weight_bytes is given.
FitTerms fit_context(const Model& model, const Accelerator& accelerator, const WeightQuant* quant,
                     const CacheDtype& dtype, const FitSetup& setup);

/// Bytes one card holds at `context` tokens: weights, fixed state, reserve and the KV cache.
Rational fit_bytes_at(const FitTerms& terms, std::int64_t context);

/// "does not fit: the weights alone need 1,250.00 GiB of 22.35 GiB" when terms.fits is false.
std::string fit_refusal(const FitTerms& terms);

nlohmann::json fit_json(const FitTerms& terms, const std::string& model_id, const std::string& accelerator_id,
                        const WeightQuant& quant, const CacheDtype& dtype);
std::string fit_text(const FitTerms& terms, const std::string& model_id, const std::string& accelerator_id,
                     const WeightQuant& quant, const CacheDtype& dtype);
/// The same without a weight format (weights given as bytes or read from a file): `weights` names them.
nlohmann::json fit_json(const FitTerms& terms, const std::string& model_id, const std::string& accelerator_id,
                        const std::string& weights, const CacheDtype& dtype);
std::string fit_text(const FitTerms& terms, const std::string& model_id, const std::string& accelerator_id,
                     const std::string& weights, const CacheDtype& dtype);

struct Roofline {
    Rational bandwidth;    ///< bytes per second
    Rational weights;      ///< active weight bytes read per token
    Rational kv;           ///< KV bytes at the context
    Rational fixed_state;  ///< the linear layers' state, read every token
    Rational ceiling_tps;  ///< bandwidth / (weights + kv + fixed_state)
};

/// The decode ceiling for one sequence at `kv_bytes_at_context`. Throws PhysicsError.
Roofline decode_roofline(const Model& model, const Accelerator& accelerator, const WeightQuant& quant,
                         const Rational& kv_bytes_at_context);

/// The weights of a kv-efficiency row: what must be resident and what one decoded token reads.
struct RowWeights {
    Rational resident;
    Rational active;
    std::string label;  ///< "Q4_K weights", or "weights (weight_bytes)" when the record states their size
};

/// From the row's stated weight_bytes when it has one (the part read per token scaled by active /
/// total parameters, which is exact for a dense model), else from the weight format's exact
/// size. nullopt when neither is known (no format, or a mixed recipe such as Q4_K_M).
/// Throws PhysicsError when the model lacks its parameter counts.
std::optional<RowWeights> row_weights(const Model& model, const std::optional<std::string>& weight_quant,
                                      std::optional<std::int64_t> weight_bytes);

/// The decode ceiling of each of `concurrency` requests decoding together at one context: a
/// step reads the active weights at least once and every request's KV cache and state, so
/// each request's speed is at most bandwidth / (active weights + concurrency x (KV + state)).
/// With concurrency 1 it is decode_roofline. Throws PhysicsError.
/// `gpus` cards of the accelerator read in parallel: their bandwidths add up. That is the
/// ceiling of a perfect split; a split that replicates KV heads or weights reaches less.
Roofline batch_roofline(const Accelerator& accelerator, const Rational& active_weights, const Rational& kv_at_context,
                        const Rational& fixed_state, std::int64_t concurrency, std::int64_t gpus = 1);

/// "K bytes of KV at N tokens + F bytes of fixed state", or "8 requests x (...)" for a batch:
/// the per-request terms of a memory or bandwidth sum, as the lint and explain print them.
std::string per_request_terms(const Rational& kv_at_context, const Rational& fixed_state, std::int64_t context,
                              std::int64_t concurrency);

/// How a decode ceiling was worked out: "936 GB/s / (W bytes of Q4_K weights + <per-request
/// terms>)", with `roof` from batch_roofline and `weights_label` from RowWeights.
std::string roofline_how(const Accelerator& accelerator, const Roofline& roof, const std::string& weights_label,
                         const Rational& kv_at_context, const Rational& fixed_state, std::int64_t context,
                         std::int64_t concurrency, std::int64_t gpus = 1);

/// "47.66" for display: a rational to two decimals.
std::string two_decimals(const Rational& r);

}  // namespace kvcat
