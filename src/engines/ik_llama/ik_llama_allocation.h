// ik_llama.cpp's KV cache, where it is not llama.cpp's (--engine ik_llama.cpp).
//
// Rules, each read from ikawrakow/ik_llama.cpp at 8337e4cd3861406fc04e0854b1409cd1b027fbc9
// (src/llama.cpp unless named):
// - cells: n_ctx (-c; 0 is the model's native context) padded to 256 with flash attention and
//   to 32 without (llama_kv_cache::get_padding, src/llama-context.h), in one cache that every
//   sequence shares: -np does not multiply or split the cells, the server gives each slot
//   n_ctx / -np of them (examples/server/server-context.cpp);
// - MLA (-mla 1, 2 or 3; 3 and flash attention are the defaults since 2025-11): each layer keeps
//   the latent, kv_lora_rank + rope elements per cell, in -ctk's type, except under -mla 2 or 3
//   without flash attention, where it is in -ctv's (llama_kv_cache_init's primary_kv_type); only
//   -mla 1 without flash attention also keeps the latent's first kv_lora_rank elements again,
//   transposed, in -ctv's type (kv^T); -mla 0 keeps every head's expanded K and V;
// - a quantized V needs flash attention (llama_init_from_model refuses it otherwise);
// - the line it prints: "KV self size  = %7.2f MiB, c^KV (%s): %7.2f MiB, kv^T: not used" (or
//   "kv^T (%s): %7.2f MiB" without flash attention) for an MLA model, "K (%s) ... V (%s)" for
//   others, each figure computed in float, with the -ctk and -ctv names as given.
// Sliding-window and recurrent layers are not modelled for this engine: it is refused with why.
//
// -mla 0 on an MLA model keeps, per layer and cell, every head's expanded K (attention_heads x
// head_dim, qk_nope + rope) in -ctk's type and V (attention_heads x v_head_dim) in -ctv's, which
// the model record gives as head_dim and v_head_dim (llama.cpp's n_embd_head_k and n_embd_head_v).
#pragma once

#include "engines/engine_memory.h"
#include "engines/llamacpp/llamacpp_allocation.h"

namespace kvcat {

/// ik_llama.cpp's cell padding: with flash attention, and without.
inline constexpr std::int64_t kIkCellPadFlash = 256;
inline constexpr std::int64_t kIkCellPad = 32;

/// The allocation for `settings` (context, parallel, ik_mla, flash_attn, the K and V types);
/// with settings.available_bytes, the largest -c whose cache fits it. Throws EngineError for a
/// model or a setting it does not take.
EngineAnswer ik_llama_allocation(const Model& model, const CacheDtype& dtype, const EngineSettings& settings);

/// ik_llama.cpp's total line per cache, as llama_init_from_model prints it (two spaces before
/// "="; an MLA cache names c^KV and kv^T).
std::vector<std::string> ik_llama_log_lines(const EngineAnswer& answer);

}  // namespace kvcat
