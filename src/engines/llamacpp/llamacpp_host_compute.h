// llama.cpp's compute buffer on the host: with every layer on a GPU, the graph's inputs stay in the
// host's memory and are copied to the card ("CUDA_Host compute buffer size = X MiB", the CPU's
// beside Metal). ggml-backend's scheduler places every input on its last backend, the CPU
// (ggml/src/ggml-backend.cpp, ggml_backend_sched_backend_id_from_cur: "input tensors are assigned
// to the cpu backend"), and the token embeddings are looked up there too, as token_embd is on the
// CPU (llamacpp_quant.h). Nothing else of the graph runs on the host, so the buffer is the sum of
// those tensors: no allocator placement to guess, an exact figure.
//
// What the inputs are has changed with the release; each era is named by the pull request that
// changed it, and its first and last builds seen in a log bound where it sits (llamacpp_inputs_eras).
// The pinned release (80fb11ac), per micro-batch of n_tokens = min(n_ctx, n_ubatch):
//   - src/llama-graph.cpp build_inp_embd: the token ids (i32), the embeddings input (f32, n_embd) and
//     the token path's get_rows result (f32, n_embd), both kept since pull 18898;
//   - build_inp_pos (i32 x n_pos_per_embd: 1, and 4 for Qwen 3.5's multi-section RoPE),
//     build_inp_out_ids (i32, one a reserved output: every token in the library's reserve, one a
//     slot in llama-server's);
//   - a hybrid's recurrent rows (build_rs_inp_impl: s_copy, one i32 a row of the full memory,
//     max(1, n_seq_max) rows);
//   - per attention cache (the base and, for a sliding-window model, the SWA one):
//     build_attn_inp_kq_mask, n_kv x n_tokens (f16 under flash attention since pull 23764, f32
//     before and without it); src/llama-kv-cache.cpp build_input_k_idxs and build_input_v_idxs (i64
//     a token; V's a token and a column, n_embd_v_gqa of them, when V is transposed, which it is
//     without flash attention), and a quantized cache's rotation matrices (build_input_k_rot:
//     nrot x nrot f32, nrot the largest power of two from 64 dividing the head; build_input_v_rot:
//     64 x 64 f32).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "load/records.h"

namespace kvcat {

/// The eras of llama.cpp's host inputs, oldest first.
enum class LlamaInputs {
    own_buffer,       ///< before pull 6017: the inputs had a buffer of their own; only the lookup is here
    mask,             ///< pull 6017 (pipeline parallelism): token ids, positions and the f32 mask join it
    output_ids,       ///< pull 6122: the ids of the tokens that output
    row_indices,      ///< ggml_set_rows (pull 14285): each cache's K and V row indices
    embedding_input,  ///< pull 18898: the embeddings input beside the lookup's result
    half_mask,        ///< pull 23764: an f16 mask under flash attention; quantized caches' rotations (pull 21038)
};

inline constexpr LlamaInputs kPinnedInputs = LlamaInputs::half_mask;

struct LlamaInputsEra {
    LlamaInputs inputs;
    const char* change;       ///< what the era added, with its pull request
    std::int64_t first_seen;  ///< the first build a log in records/ shows in it; 0 for none
    std::int64_t last_seen;   ///< the last such build; 0 for none
};

/// Every era, oldest first.
std::span<const LlamaInputsEra> llamacpp_inputs_eras();

/// Whether a log of build `build` (b2961 is 2961) can be of `era`: no build seen in a later era is
/// at or before it, and none seen in an earlier era at or after it.
bool llamacpp_inputs_era_holds(LlamaInputs era, std::int64_t build);

/// The era fit answers in for a build (b2961 is 2961): the newest one the build may be of; the
/// pinned release's without a build.
LlamaInputs llamacpp_inputs_era_of(std::optional<std::int64_t> build);

struct LlamaHostSetting {
    std::int64_t ubatch = 512;              ///< -ub
    std::int64_t context = 4096;            ///< n_ctx: every cell of every stream
    std::vector<std::int64_t> cache_cells;  ///< n_kv of each attention cache: one stream's cells (base, then SWA)
    bool flash_attn = true;
    bool k_quantized = false;  ///< the cache's K type is a quantized one (q8_0, q4_0, ...)
    bool v_quantized = false;
    /// The outputs the graph is reserved for (LlamaComputeSetting::outputs): the output ids are one
    /// i32 an output; 0 = every token.
    std::int64_t outputs = 0;
    /// n_seq_max: a hybrid's recurrent rows, one i32 index each (s_copy).
    std::int64_t sequences = 1;
};

struct LlamaHostCompute {
    std::int64_t bytes = 0;
    std::string how;  ///< the tensors, summed
};

/// The host's compute buffer of a start with every layer on one GPU, in `era`; nullopt for a model
/// whose graph kvcat has not read for it (an architecture outside llama, qwen2, qwen3, qwen3moe,
/// glm4 and gpt-oss, or a record without a tensors mapping). Throws OverflowError past 2^63 bytes.
std::optional<LlamaHostCompute> llamacpp_host_compute(const Model& model, const LlamaHostSetting& setting,
                                                      LlamaInputs era = kPinnedInputs);

}  // namespace kvcat
