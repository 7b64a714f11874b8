// SGLang's token-to-KV pool, as its memory pool sizes it.
//
// Rules, read from sgl-project/sglang python/sglang/srt/mem_cache/memory_pool.py at
// 000ccdba94d4ed75d4fab7b1dac5f8ebcaaee7e8 (the table in docs/engines.md repeats them):
// - MHATokenToKVPool keeps, per layer, a K and a V buffer of (size + page_size) x kv_heads x
//   head_dim elements: the extra page is the padded slot 0 that padded tokens write to; an
//   fp8 cache is stored as uint8;
// - MLATokenToKVPool keeps one buffer per layer of (size + page_size) x (kv_lora_rank +
//   qk_rope_head_dim);
// - it prints "KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB" (MLA: "KV size")
//   with GB = 2^30 bytes, two decimals;
// - the pool's size is the memory left for it over the bytes one token costs in every layer
//   (model_runner.py profile_max_num_token), rounded down to whole pages.
//
// A model with sliding layers gets SGLang's hybrid SWA pool, read from
// python/sglang/srt/model_executor/pool_configurator.py (HybridSWAPoolConfigurator) at
// 003fca8027387a3d6565b2c08e497e3020ac6211 and python/sglang/srt/mem_cache/swa_memory_pool.py
// (SWAKVPool) at 00381c02b8ad9f78982f46986b63aeab5fc71fe9:
// - a token of the full pool costs its bytes in every full layer plus swa_full_tokens_ratio
//   times its bytes in every sliding layer (a Python float); the memory floor-divided by that
//   cost is max_total_num_tokens;
// - the full pool holds that many tokens, rounded down to whole pages; the SWA pool
//   int(full x ratio), rounded down to whole pages; a SWA pool of no more than the window and
//   one page is refused at start-up;
// - each pool is an MHATokenToKVPool of its own (the padded slots included) over its own
//   layers; the SWA pool is built and prints its "KV Cache is allocated" line first, then the
//   full pool, then "SWAKVPool mem usage: X GB, swa size: N, full size: M".
// Before sgl-project/sglang pull 18039 (merged 2026-01-31) the cost counted every layer as full
// and the split came after; that rule is not held. SGLang's chunked-attention pool (Llama 4) and
// sliding layers beside MLA are not modelled and are refused.
//
// DeepSeek-V3.2 (an MLA model with an indexer) gets SGLang's DSA pool, read from
// python/sglang/srt/mem_cache/memory_pool.py (DSATokenToKVPool) at
// fe571baa82a9cc74d64ab4330e41b04630c15bee, index_key_cache.py at
// 03ac438ac26f42a737e861ca64d0cd2fdce26a5e and pool_configurator.py (calculate_mla_kv_cache_dim) at
// 003fca8027387a3d6565b2c08e497e3020ac6211: pages of 64 tokens; an fp8_e4m3 latent of 656 bytes a
// token and layer (512 fp8 values, 4 float32 scales, a bfloat16 rope of 64), any other dtype
// kv_lora_rank + qk_rope_head_dim elements; the indexer's keys, 128 fp8 values and a float32
// scale a token and layer, in (size + page + 1) // page pages; "KV size" prints both together.
//
// A hybrid with fixed-state layers (Gated DeltaNet, Mamba-2, KDA) gets SGLang's Mamba pool beside
// a KV pool of its attention layers only, read from python/sglang/srt/mem_cache/memory_pool.py
// (MambaPool, HybridLinearKVPool) at fe571baa82a9cc74d64ab4330e41b04630c15bee and
// python/sglang/srt/configs/mamba_utils.py at 02e208ded6769bd3332cbdc6cf0da939f541514f:
// - per fixed-state layer a conv state of conv_dim / tp x (conv_kernel - 1) in bfloat16 and a
//   temporal state of heads / tp x head_dim x state_size in the SSM dtype (float32, or the
//   config's mamba_ssm_dtype, or --mamba-ssm-dtype), each of max_mamba_cache_size + 1 rows;
// - it prints "Mamba Cache is allocated. max_mamba_cache_size: S, conv_state size: X GB,
//   ssm_state size: Y GB" (no space before GB), the whole buffers over 2^30, two decimals;
// - the KV pool's cell counts the full-attention layers only (pool_configurator.py at 003fca80).
// The speculative pool's intermediate caches are not modelled (import-log refuses that line).
#pragma once

#include <cstdint>

#include "engines/engine_memory.h"

namespace kvcat {

struct SglangPoolBytes {
    Rational k;        ///< MLA: the whole latent buffer
    Rational v;        ///< MLA: 0
    Rational indexer;  ///< DeepSeek-V3.2's indexer keys (DSATokenToKVPool), printed inside "KV size"
    bool mla = false;
};

/// Tokens a page holds for DeepSeek's sparse attention (DSA): SGLang sets it whatever is asked.
inline constexpr std::int64_t kSglangDsaPage = 64;
/// An MLA model with a sparse-attention indexer (DeepSeek-V3.2): SGLang's DSA pool.
bool sglang_dsa(const Model& model);
/// The page SGLang uses: kSglangDsaPage for a DSA model, else `requested` (at least 1).
std::int64_t sglang_page_size(const Model& model, std::int64_t requested);

/// K and V bytes of a pool of `tokens` tokens (per card), for a model of one pool (no sliding
/// layers). Throws EngineError.
SglangPoolBytes sglang_pool_bytes(const Model& model, const CacheDtype& dtype, std::int64_t tokens,
                                  std::int64_t page_size, std::int64_t gpus);

/// Bytes one token costs over every layer (the pool's cell size), per card, for a model of one
/// pool.
Rational sglang_cell_bytes(const Model& model, const CacheDtype& dtype, std::int64_t gpus);

/// SGLang's Mamba pool for a hybrid's fixed-state layers (memory_pool.py MambaPool): per layer a
/// conv state and a temporal (SSM) state buffer of `slots` + 1 rows, the extra row the padded
/// slot 0, per card.
struct SglangMambaBytes {
    Rational conv;      ///< every conv state buffer
    Rational ssm;       ///< every temporal state buffer
    Rational per_slot;  ///< one request's conv and SSM state, every layer
    std::int64_t layers = 0;
    std::string conv_type, ssm_type;  ///< torch's names: "bfloat16", "float32"
};

/// The conv state's dtype SGLang keeps, whatever the model's (mamba_utils.py mamba2_state_dtype;
/// only the SGLANG_MAMBA_CONV_DTYPE environment variable moves it).
inline constexpr std::string_view kSglangConvDtype = "bfloat16";

/// The SSM state's dtype SGLang keeps: `setting` (--mamba-ssm-dtype) unless "auto" or "", else
/// the model record's state_dtype (the config's mamba_ssm_dtype), else float32.
std::string sglang_ssm_dtype(const Model& model, const std::string& setting);

/// The Mamba pool of `slots` requests. Throws EngineError for a model with no fixed-state layers
/// or a dtype kvcat has no size for.
SglangMambaBytes sglang_mamba_bytes(const Model& model, std::int64_t slots, std::int64_t gpus,
                                    const std::string& conv_dtype, const std::string& ssm_dtype);

/// The pool for settings.available_bytes (the memory left for the pool); without it, the pool of
/// settings.context tokens. A model with sliding layers gets the full and the SWA pool.
EngineAnswer sglang_allocation(const Model& model, const CacheDtype& dtype, const EngineSettings& settings);

/// SGLang's start-up lines for this answer, as its pools print them: "KV Cache is allocated"
/// per pool (the MLA latent with its indexer's keys as one figure), MambaPool's line, and with
/// a sliding window the SWAKVPool lines.
std::vector<std::string> sglang_log_lines(const EngineAnswer& answer);

}  // namespace kvcat
