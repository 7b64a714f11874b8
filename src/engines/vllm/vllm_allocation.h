// vLLM V1's KV cache pool, as its KV-cache manager sizes it.
//
// Rules, each read from vllm-project/vllm (the table in docs/engines.md repeats them):
// - a layer's page is block_size x kv_heads x (head_size + head_size_v) x dtype bytes; an MLA
//   layer's block_size x latent x dtype bytes, or block_size x 656 for fp8_ds_mla, the FlashMLA
//   sparse layout (vllm/v1/kv_cache_interface.py at 001cabc1be16a59a70d720ed61a13b678c060a18);
// - a sliding layer needs at most cdiv(min(window - 1 + max_num_batched_tokens, max_model_len),
//   block_size) + 1 blocks per request, a chunked one cdiv(min(chunk + max_num_batched_tokens,
//   max_model_len), block_size), a full one cdiv(max_model_len, block_size), a Mamba layer one
//   page (the same file);
// - with the hybrid manager off, sliding and chunked layers become full attention layers
//   (unify_hybrid_kv_cache_specs); with it on, layers are grouped by spec into groups of the
//   smallest type's layer count (the largest when it is under 1.5 x the smallest), the pool
//   holds available // (page x group_size) blocks, and "GPU KV cache size" prints
//   num_blocks // groups x block_size (vllm/v1/core/kv_cache_utils.py at 001cabc1...); the
//   release after the fix of vllm-project/vllm issue 40691 prints int(max_concurrency x
//   max_model_len) instead;
// - VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE defaulted to 0 from vllm-project/vllm
//   pull 21761 (the hybrid manager off for chunked-attention models such as Llama 4) until pull
//   29627 set it to 1;
// - a Mamba hybrid's attention block size is raised to 16 x cdiv(mamba page, 16 x attention page
//   per token) and the Mamba page padded to the attention page; DeepSeek-V3.2 stores an fp8
//   (or auto) cache as fp8_ds_mla (vllm/model_executor/models/config.py at
//   0144dd5b0d2d9ef9ac2651a3ab6efa83d0497ea9);
// - the conv state is kept in mamba_cache_dtype (auto: the model dtype), the recurrent state in
//   mamba_ssm_cache_dtype (auto: the conv state's) (vllm/model_executor/layers/mamba/mamba_utils.py
//   at 02d710837549a368073552333f66d714477415d2); for Qwen3.5 an auto mamba_ssm_cache_dtype takes
//   the config's mamba_ssm_dtype (vllm/model_executor/models/config.py,
//   Qwen3_5ForConditionalGenerationConfig), which the model record's state_dtype holds.
#pragma once

#include <cstdint>

#include "engines/engine_memory.h"

namespace kvcat {

/// The pool vLLM builds in `available` bytes (per card) with the other settings from `settings`.
struct VllmPool {
    std::int64_t block_size = 16;
    std::int64_t groups = 0;      ///< KV cache groups (1 for a uniform model)
    std::int64_t group_size = 0;  ///< layers per group
    std::int64_t num_blocks = 0;
    std::int64_t tokens = 0;              ///< "GPU KV cache size: N tokens", as the version prints it
    double max_concurrency = 0;           ///< "Maximum concurrency for N tokens per request", as computed
    std::int64_t per_request_blocks = 0;  ///< blocks one request of max_model_len takes, all groups
    bool hybrid_manager = true;
};

/// The pool's arithmetic before the memory and max_model_len enter: a block of `divisor` bytes
/// (one block of every layer group), so that the pool holds available // divisor blocks, and the
/// terms whose blocks one request takes. Everything vllm_pool computes comes from it, and the
/// report exports it, so that a page can work the pool out at any context and memory.
struct VllmPoolRule {
    enum class Kind { full, sliding, chunked, state };
    struct Term {
        Kind kind = Kind::full;
        std::int64_t page = 0;    ///< bytes of one block of one layer (a state page after padding)
        std::int64_t layers = 0;  ///< the layers of this spec, for the bytes one request holds
        std::int64_t weight = 0;  ///< how many times a request's blocks of this spec count in the pool
        std::int64_t window = 0;  ///< sliding and chunked: the window or chunk
    };
    std::int64_t block_size = 16;
    std::int64_t divisor = 0;     ///< bytes the pool spends per block
    std::int64_t groups = 0;      ///< KV cache groups (1 for a uniform model)
    std::int64_t group_size = 0;  ///< layers per group
    std::int64_t max_num_batched_tokens = 2048;
    std::int64_t state_blocks = 1;  ///< pages of each Mamba layer one request takes
    bool hybrid_manager = true;
    std::vector<Term> terms;
};

/// The rule for this model, dtype and settings (max_model_len and available_bytes are not read).
/// Throws EngineError.
VllmPoolRule vllm_pool_rule(const Model& model, const CacheDtype& dtype, const EngineSettings& settings);

/// Blocks of one layer of `term` that a request of `max_model_len` tokens takes.
std::int64_t vllm_request_blocks(const VllmPoolRule& rule, const VllmPoolRule::Term& term, std::int64_t max_model_len);

/// The pool for an available memory of `available` bytes. Throws EngineError.
VllmPool vllm_pool(const Model& model, const CacheDtype& dtype, const EngineSettings& settings, std::int64_t available);

/// Whether vLLM's hybrid manager is on for this model and these settings, and why.
bool vllm_hybrid_manager(const Model& model, const EngineSettings& settings, std::string* why);

/// The whole answer: per-request parts (what one request of max_model_len takes), the state, the
/// pool with settings.available_bytes, and each difference from the textbook named.
EngineAnswer vllm_allocation(const Model& model, const CacheDtype& dtype, const EngineSettings& settings);

/// Compares two vLLM versions ("0.10.1.1" < "0.19.0"); "" is newer than every version.
bool vllm_version_before(std::string_view version, std::string_view than);

/// vLLM's "GPU KV cache size: N tokens" line.
std::string vllm_cache_size_line(std::int64_t tokens);

/// vLLM's start-up lines for this answer: the cache size and, with a pool, "Maximum concurrency
/// for N tokens per request: X.XXx"; none without a pool.
std::vector<std::string> vllm_log_lines(const EngineAnswer& answer);

/// Whether vLLM takes its larger batch defaults on a card (EngineArgs.get_batch_defaults): at least
/// 70 GiB and a name that does not say A100.
bool vllm_large_card(const Rational& card_bytes, std::string_view card_name);

/// vLLM's default --max-num-seqs for a card (EngineArgs.get_batch_defaults, vllm/engine/arg_utils.py,
/// the same rule at v0.10.0 6d8d0a24, v0.11.0 b8b302cd and v0.19.0 2a69949b): 1024 on a card of at
/// least 70 GiB whose name does not say A100, 256 on any other, for `vllm serve` as for the LLM class.
std::int64_t vllm_default_max_num_seqs(const Rational& card_bytes, std::string_view card_name);

/// That default on a card of at least 70 GiB that is no A100, and on any other.
inline constexpr std::int64_t kVllmLargeCardMaxNumSeqs = 1024;
inline constexpr std::int64_t kVllmSmallCardMaxNumSeqs = 256;

/// `vllm serve`'s default --max-num-batched-tokens by the same rule: 8192 on such a card, 2048 on
/// any other. (From 0.11.2 a default is also held to max_num_seqs x max_model_len, which only a
/// start of a few short requests reaches; kvcat does not apply it.)
inline constexpr std::int64_t kVllmLargeCardMaxNumBatchedTokens = 8192;
inline constexpr std::int64_t kVllmMaxNumBatchedTokens = 2048;

/// Fills settings.max_num_seqs and settings.max_num_batched_tokens with the card's defaults when
/// they are not set.
void vllm_card_defaults(EngineSettings& settings, const Rational& card_bytes, std::string_view card_name);

/// vLLM's refusal when a model with Mamba (fixed-state) layers is started with more sequences than
/// its pool has blocks, as a template that fit and the planner page both fill: {max_num_seqs} and
/// {blocks}. Each decode sequence keeps its state in one block, and with full CUDA graphs (V1's
/// default mode) vLLM checks the blocks before it captures them (CompilationConfig.
/// resolve_cudagraph_mode_and_sizes, vllm/config/compilation.py, from pull 38270, merged
/// 2026-03-30; read through the code index, which names no commit).
inline constexpr std::string_view kVllmMambaBlocksWords =
    "max_num_seqs ({max_num_seqs}) exceeds available Mamba cache blocks ({blocks}). Each decode sequence requires "
    "one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most {blocks} or "
    "increase gpu_memory_utilization.";

/// The words of vLLM's line that gives the memory left for its cache at start-up.
inline constexpr std::string_view kVllmAvailableMemoryWords = "Available KV cache memory";

/// vLLM's refusal when one request of max_model_len does not fit (_check_enough_kv_cache_memory,
/// vllm/v1/core/kv_cache_utils.py at 001cabc1be16a59a70d720ed61a13b678c060a18), as a template that
/// fit and the planner page both fill: {max_model_len}, {needed_gib} and {available_gib}, then
/// {estimate}, kVllmEstimateWords filled with {estimated} when vLLM's estimate is above 0.
inline constexpr std::string_view kVllmRefusalWords =
    "To serve at least one request with the models's max seq len ({max_model_len}), ({needed_gib} GiB KV cache is "
    "needed, which is larger than the available KV cache memory ({available_gib} GiB). {estimate}";
inline constexpr std::string_view kVllmEstimateWords =
    "Based on the available memory, the estimated maximum model length is {estimated}. ";
/// What vLLM adds after the refusal (fit prints it; the page leaves it out).
inline constexpr std::string_view kVllmRefusalAdvice =
    "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. See "
    "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.";

}  // namespace kvcat
