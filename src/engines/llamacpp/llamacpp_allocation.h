// llama.cpp's KV cache and recurrent memory (and the engines that embed it: llama-server,
// ollama, LM Studio), as its allocator sizes them.
//
// Rules, each read from ggml-org/llama.cpp (the table in docs/engines.md repeats them):
// - cells: n_ctx is padded to 256; a unified cache keeps n_ctx cells in one stream, otherwise
//   each of the n_seq_max streams keeps GGML_PAD(n_ctx / n_seq_max, 256) cells
//   (src/llama-context.cpp, llama_context::llama_context);
// - bytes: each caching layer holds a K tensor of n_embd_k_gqa x cells x streams and a V tensor
//   of n_embd_v_gqa x cells x streams in their ggml types, ggml_row_size each
//   (src/llama-kv-cache.cpp at 3514e9f6e795d3b3cd88d6614f6c07e7ce6f916f, the constructor);
// - ISWA: the sliding layers get their own cache of
//   GGML_PAD(min(size_base, n_swa x (unified ? n_seq_max : 1) + n_ubatch), 256) cells, or the
//   base size with --swa-full (src/llama-kv-cache-iswa.cpp at 2aef9767d982beb7ab61b3ae359366f627eb74dd);
// - recurrent layers keep R (conv, n_embd_r) and S (n_embd_s) in f32, one cell per sequence
//   (src/llama-memory-recurrent.cpp; types from src/llama-model.cpp create_memory);
// - MLA: K holds the latent (kv_lora_rank + rope) in one head; since the V-less cache
//   (ggml-org/llama.cpp pull 19067, merged 2026-01-24) V holds nothing, before it V held
//   kv_lora_rank per token.
#pragma once

#include <cstdint>
#include <functional>

#include "engines/engine_memory.h"

namespace kvcat {

/// llama.cpp pads n_ctx, each stream's cells and the SWA cache to this many cells
/// (llama-context.cpp and llama-kv-cache-iswa.cpp).
inline constexpr std::int64_t kLlamaCellPad = 256;

/// `n` rounded up to a whole number of `to` (GGML_PAD): cells to the pad, rows to a block.
inline constexpr std::int64_t llama_pad(std::int64_t n, std::int64_t to) {
    return (n + to - 1) / to * to;
}

/// Which layers a llama.cpp cache holds.
enum class LlamaCacheScope {
    base,  ///< the layers that keep every token (all of them without an SWA cache of their own)
    swa,   ///< the sliding (or chunked) layers of an ISWA cache
    all,   ///< every caching layer in one cache: a build or model with no separate SWA cache
};

struct LlamaCacheBytes {
    std::int64_t layers = 0;
    Rational k;
    Rational v;
};

/// K and V bytes of one llama.cpp cache of `cells` cells in each of `streams` streams. For an
/// MLA model `mla_v_cache` says whether the build keeps a V cache (kv_lora_rank per token: builds
/// before the V-less cache) or none. Throws EngineError when the model lacks a shape.
LlamaCacheBytes llamacpp_cache_bytes(const Model& model, LlamaCacheScope scope, const CacheDtype& k,
                                     const CacheDtype& v, std::int64_t cells, std::int64_t streams,
                                     bool mla_v_cache = false);

struct LlamaStateBytes {
    std::int64_t layers = 0;
    Rational r;  ///< conv state, f32
    Rational s;  ///< recurrent state, f32
};
/// R and S bytes of llama.cpp's recurrent memory of `cells` cells (one per sequence).
LlamaStateBytes llamacpp_state_bytes(const Model& model, std::int64_t cells);

/// The cells of each stream for -c `context`, -np `parallel` and --kv-unified, padded to `pad`.
std::int64_t llamacpp_cells(std::int64_t context, std::int64_t parallel, bool unified,
                            std::int64_t pad = kLlamaCellPad);
/// The cells of the SWA cache beside a base cache of `size_base` cells, padded to `pad`.
std::int64_t llamacpp_swa_cells(std::int64_t size_base, std::int64_t window, std::int64_t parallel, bool unified,
                                std::int64_t ubatch, bool swa_full, std::int64_t pad = kLlamaCellPad);

/// What mainline llama.cpp `version` pads the cache's cells to (n_ctx, and the SWA cache's size),
/// read in its history (the build is the commit count):
///  - b2493 (95d576b4) to b2770: 32;
///  - b2771 (9c67c277, flash attention) to b2870: 256;
///  - b2871 (614d3b91, llama_kv_cache_get_padding) to b6867: 256 with flash attention, else 32
///    (from b6325 -fa auto counts as on here; 32 needs -fa off);
///  - b6868 (85a7d867, pull 16812) to b6974: not padded (1);
///  - b6975 (16bcc125, pull 17046) on, and a version of no build number: 256.
/// Builds before b2493 did not pad (1).
std::int64_t llamacpp_cell_pad(std::string_view version, bool flash_attn);

/// True when the model's bounded layers get an SWA cache of their own in llama.cpp (both kinds
/// of bounded layer, sliding and chunked, and some layer keeps every token).
/// The last build a log shows reserving an output for every token of the micro-batch (b8198, the
/// records/allocations gpt-oss start on an M5); pull 23861 (reviewed 2026-05-29) has llama-server
/// reserve one a slot, and it is in the pinned release.
inline constexpr std::int64_t kLastBuildReservingEveryOutput = 8198;

/// The outputs llama-server reserves its graph for (LlamaComputeSetting::outputs): one a slot
/// (-np; no draft model is modelled) at the pinned release and any build after b8198; 0 (every
/// token) for a build at or before it.
std::int64_t llamacpp_reserve_outputs(const EngineSettings& settings);

/// Whether the build casts its f32 mask to f16 in the graph (LlamaComputeSetting::mask_cast):
/// with flash attention, for a build given and at or before b8198; not at the pinned release.
bool llamacpp_casts_mask(const EngineSettings& settings);

bool llamacpp_has_swa_cache(const Model& model);

/// llama.cpp's allocation as coefficients, for a page to work it out at any -c and -np: every
/// figure of llamacpp_allocation is linear in the cells, so with the K and V types both `dtype`,
/// no --kv-unified, -ub 512 and no --swa-full the cache holds
///   base_per_cell x cells x streams + swa_per_cell x swa_cells x streams
/// (cells and swa_cells as llamacpp_cells and llamacpp_swa_cells give them, swa_cells 0 when
/// swa_window is 0) and the recurrent memory state_per_sequence x -np.
struct LlamaCoefficients {
    Rational base_per_cell;
    Rational swa_per_cell;
    std::int64_t swa_window = 0;  ///< the window of an SWA cache of its own; 0 when there is none
    Rational state_per_sequence;
};
/// Throws EngineError when the model lacks a shape.
LlamaCoefficients llamacpp_coefficients(const Model& model, const CacheDtype& dtype);

/// Every head's K (head_dim: qk_nope + rope) and V (v_head_dim) of an MLA model over `cells`
/// cells, where the latent is not what is cached: mainline llama.cpp before b5137, a GGUF
/// converted before it, and ik_llama.cpp's -mla 0. Throws EngineError when the model record gives
/// no head_dim and v_head_dim.
LlamaCacheBytes llamacpp_every_head_bytes(const Model& model, const CacheDtype& k, const CacheDtype& v,
                                          std::int64_t cells);

/// The first mainline build that caches an MLA model's latent: b5137, ggml-org/llama.cpp pull
/// 12801 (merge daa42288, 2025-04-15). Before it, llm_build_deepseek2 concatenated each head's
/// k_nope and k_pe into the cache and stored each head's V (src/llama-model.cpp at eccc7a16, b5136).
inline constexpr std::int64_t kLlamaLatentBuild = 5137;

/// The build number of a version written bNNNN; nullopt for any other name (a release tag, a
/// commit, nothing), which kvcat reads with the newest rules.
std::optional<std::int64_t> llamacpp_build(std::string_view version);

/// Whether llama.cpp `version` caches every head's K and V of this MLA model, not its latent
/// (one head, kv_lora_rank + rope): an MLA model under a build before b5137. A version of no
/// build number reads with the newest rules, the latent.
bool llamacpp_caches_every_head(const Model& model, std::string_view version);

/// The most sequences llama.cpp holds (LLAMA_MAX_SEQ, src/llama-cparams.h at 80fb11ac).
inline constexpr std::int64_t kLlamaMaxSeq = 256;

/// llama.cpp's name for a cache type (ggml_type_name): kvcat's fp16 and fp32 are its f16 and f32.
std::string ggml_name(const CacheDtype& dtype);

/// Throws EngineRefusal, in llama.cpp's words, for settings it refuses before it allocates (all
/// read at release 80fb11ac73e66d89eae2c6a91d8a77428fa733ed): a cache type -ctk/-ctv do not take
/// (common/arg.cpp, kv_cache_types), -np above LLAMA_MAX_SEQ (src/llama-context.cpp, the
/// llama_context constructor), different K and V types for an MLA model and a quantized V with
/// flash attention off (src/llama-context.cpp, llama_init_from_model).
void llamacpp_refusals(const Model& model, const CacheDtype& k, const CacheDtype& v, const EngineSettings& settings);

/// The wording of the recurrent-state line a llama.cpp build prints: "" (the newest, the release
/// the oracle test runs: v0.4.0, 80fb11ac) and any name that is not a build number print the
/// newest; bNNNN up to b8999 (the newest build seen with the old line) the old one; later
/// builds the rs_seq line without P (seen at b9421; which build first printed P is not known).
LlamaStateLine llamacpp_state_line_for(std::string_view version);

/// -ctv's type when the settings give one, else `k`; throws EngineError for a name kvcat lacks.
CacheDtype llamacpp_v_type(const CacheDtype& k, const EngineSettings& settings);
/// -c, with 0 taken as the model's native context; throws EngineError when the record has none.
std::int64_t llamacpp_context(const Model& model, const EngineSettings& settings);

/// The largest number of cells, a multiple of `unit` below 2^32, whose allocation
/// (`bytes_at(cells)`) fits in `available`; 0 when not even `unit` cells fit.
std::int64_t llamacpp_largest_fit(std::int64_t unit, const Rational& available,
                                  const std::function<Rational(std::int64_t)>& bytes_at);

/// The whole allocation for `settings` (context, parallel, kv_unified, ubatch, swa_full, the
/// K and V types); with settings.available_bytes, the largest -c whose allocation fits it.
EngineAnswer llamacpp_allocation(const Model& model, const CacheDtype& dtype, const EngineSettings& settings);

/// llama.cpp's start-up lines for this answer: one "llama_kv_cache: size = ..." per cache and
/// "llama_memory_recurrent: size = ..." for the state, padded as the engine pads them.
std::vector<std::string> llamacpp_log_lines(const EngineAnswer& answer, const Model& model);

}  // namespace kvcat
