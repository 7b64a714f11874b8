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
// SGLang's SWA pool (its full/SWA token ratio) and its Mamba pool are not modelled: a model with
// sliding or fixed-state layers is refused.
#pragma once

#include <cstdint>

#include "engine_memory.h"

namespace kvcat {

struct SglangPoolBytes {
    Rational k;  ///< MLA: the whole latent buffer
    Rational v;  ///< MLA: 0
    bool mla = false;
};

/// K and V bytes of a pool of `tokens` tokens (per card). Throws EngineError.
SglangPoolBytes sglang_pool_bytes(const Model& model, const CacheDtype& dtype, std::int64_t tokens,
                                  std::int64_t page_size, std::int64_t gpus);

/// Bytes one token costs over every layer (the pool's cell size), per card.
Rational sglang_cell_bytes(const Model& model, const CacheDtype& dtype, std::int64_t gpus);

/// The pool for settings.available_bytes (the memory left for the pool); without it, the pool of
/// settings.context tokens.
EngineAnswer sglang_allocation(const Model& model, const CacheDtype& dtype, const EngineSettings& settings);

}  // namespace kvcat
