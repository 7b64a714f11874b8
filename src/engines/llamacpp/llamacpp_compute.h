// llama.cpp's compute buffer: the memory its graph allocator keeps for the tensors of one
// micro-batch's forward pass, printed at start-up as "<device> compute buffer size = X MiB".
//
// llama.cpp sizes it by reserving the worst-case graph (src/llama-context.cpp, sched_reserve:
// n_tokens = min(n_ctx, n_ubatch) tokens, every one of them an output) and letting ggml-alloc
// place every intermediate tensor, reusing the memory of those no longer needed. The buffer is
// the peak of what is alive at once, and that peak sits in one of three stages of the graph:
//   - the output: the logits, n_vocab x n_outputs in f32, beside the last hidden state (n_embd x
//     n_outputs in f32); n_outputs is n_tokens in the library's reserve, and the server's slots at
//     the pinned release (LlamaComputeSetting::outputs). The pinned release on the CPU
//     keeps its norm's input alive too (one hidden state more); CUDA builds (b7342) and those of
//     2024 print the one, so kvcat counts one and stays a lower bound on both;
//   - a layer's feed-forward: gate, up and their product (3 x n_ff x n_tokens; for a mixture of
//     experts n_ff is the experts a token goes through times one expert's width), three hidden
//     states (3 x n_embd x n_tokens: the layer's input kept for the residual, the normed input and
//     the down projection's output), all f32, and the attention mask (n_kv x n_tokens: f16 with
//     flash attention, f32 without; src/llama-graph.cpp, build_attn_inp_kq_mask). Most graphs
//     hold a fourth hidden state there too, but not all: with llama-server's outputs the oracle
//     finds a hybrid (Qwen3.5) and four streams without flash attention that do not;
//   - without flash attention, a layer's attention scores: K x Q, n_kv x n_tokens x n_head in f32
//     (src/llama-graph.cpp, build_attn_mha), with the f32 mask and the query, key and value
//     projections around it (3 x n_q + n_embd per token, f32).
// n_kv is the cells of one stream: the whole cache with a unified one, n_ctx / n_seq otherwise.
// kvcat gives the largest of the three. Against the pinned llama.cpp on the CPU (the compute
// oracle, tests/engines/oracle) it is never above the engine's figure; ggml-alloc's placement
// adds some MiB kvcat does not model (docs/engines.md has the table). A GPU's figure comes from
// the same graph and allocator: with every layer on one card, its "CUDA0 compute buffer" is the
// same peak, equal to kvcat's in 16 of the 24 whole starts on one device in records/allocations,
// and in every CUDA start at the output or attention-scores stage (llamacpp_compute_is_exact);
// a CUDA_Host buffer for the inputs comes on top (llamacpp_host_compute.h). A sliding-window model
// has a second mask, for its SWA cache (LlamaComputeSetting::swa_cells_per_stream).
//
// Where kvcat builds the model's graph itself (engines/llamacpp/llamacpp_graph.h: llama, qwen2,
// qwen3, qwen3moe, gpt-oss, glm4, gemma3, llama4, qwen35, qwen35moe, qwen3next, granitehybrid and lfm2, any cache
// type llama.cpp takes, the pinned release),
// LlamaComputeSetting::graph asks
// for it: the graph placed as ggml-alloc places it, the buffer itself (stage "graph", exact).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "load/records.h"

namespace kvcat {

struct LlamaComputeBuffer {
    std::int64_t bytes = 0;  ///< the largest stage: a lower bound of the buffer llama.cpp prints
    std::string stage;       ///< "output", "feed-forward", "attention scores", or "graph"
    std::string how;         ///< the arithmetic of that stage, for an answer
    /// The whole graph placed by ggml-alloc (LlamaComputeSetting::graph): the buffer itself.
    bool exact = false;
};

struct LlamaComputeSetting {
    std::int64_t ubatch = 512;          ///< -ub
    std::int64_t context = 4096;        ///< n_ctx: every cell of every stream
    std::int64_t cells_per_stream = 0;  ///< n_kv in the reserve: the cells one sequence's stream has
    bool flash_attn = true;
    /// The tokens that output in the reserve; 0 = every one of them: the library's default
    /// (n_outputs_max 0 is n_batch) and every build before pull 23861. From that pull llama-server
    /// and llama-cli (which runs the server inside) reserve n_parallel x (1 + drafts) outputs
    /// (tools/server/server-context.cpp server_output_limits, common/speculative.cpp
    /// common_speculative_get_output_limits, src/llama-context.cpp sched_reserve: n_outputs_pp =
    /// min(n_tokens, n_outputs_max)).
    std::int64_t outputs = 0;
    /// n_kv of a sliding-window model's second cache (its SWA layers' cells of one stream), whose
    /// mask is an input beside the base cache's; 0 for a model without one.
    std::int64_t swa_cells_per_stream = 0;
    /// Flash attention in a build before pull 23764, which made the mask as f32 and cast it to f16
    /// in the graph (src/llama-graph.cpp, ggml_cast of self_kq_mask): at the cast both masks are
    /// alive beside the embeddings (on a GPU, the copies of the host's inputs). The pinned
    /// release makes it f16.
    bool mask_cast = false;
    /// Build the pinned release's own graph and place it as ggml-alloc does
    /// (engines/llamacpp/llamacpp_graph.h) where its architecture and cache types are built: the
    /// buffer, not a bound. A log of another build is held to the stages (its graph differs).
    bool graph = false;
    std::int64_t seqs = 0;  ///< -np, for the graph (0: the streams, context / cells_per_stream)
    std::string cache_k = "f16";
    std::string cache_v = "f16";
    bool device = true;  ///< the graph's part on a GPU that runs every layer, not a CPU-only start
};

/// The last build a log shows casting its mask (b8198: its host buffer holds the f32 mask,
/// records/allocations/llamacpp-b8198-...); pull 23764 (reviewed 2026-05-28) made it f16.
inline constexpr std::int64_t kLastBuildCastingTheMask = 8198;

/// The bound with flash attention on and the mask made as f16 (the pinned release's defaults), as
/// coefficients a page can apply to any cells and tokens: the largest of the output stage,
/// output_per_output x outputs, and the feed-forward stage, ff_per_token x tokens + 2 x (cells +
/// SWA cells) x tokens, plus 4 x tokens of positions. nullopt for a model without a tensors mapping.
struct LlamaComputeCoefficients {
    std::int64_t output_per_output = 0;        ///< (vocabulary + hidden) x 4 bytes
    std::optional<std::int64_t> ff_per_token;  ///< (3 x feed-forward width + 3 x hidden) x 4 bytes; none without one
};
std::optional<LlamaComputeCoefficients> llamacpp_compute_coefficients(const Model& model);

/// The compute buffer for a model whose record has a tensors mapping (its vocabulary and widths);
/// nullopt for one without. Throws OverflowError (support/rational.h) past 2^63 bytes.
std::optional<LlamaComputeBuffer> llamacpp_compute_buffer(const Model& model, const LlamaComputeSetting& setting);

/// Whether the bound is the buffer itself, to the printed 0.01 MiB: on a CUDA device (its
/// buffer named "CUDA0", "CUDA1", ...), at the output or the attention-scores stage, with the
/// start's flash attention known (settings_known: a flash_attn line, or n_ubatch printed by a
/// build from before the line). Every whole start of that kind in records/allocations prints the
/// stage's figure, as if no other tensor of the graph were alive there beside the ones kvcat
/// counts (the allocator's placement itself was not read for this): 12 on CUDA cards, from ollama 0.1.30 (March 2024)
/// to llama.cpp b7772 (docs/engines.md). Elsewhere the stage is a lower bound: the CPU keeps one hidden state more at
/// the output (0.01 MiB and more), Metal's buffers are larger (gpt-oss-20b: 420.08 against 398.38
/// MiB), and at the feed-forward and mask-cast stages tensors kvcat does not count are alive.
bool llamacpp_compute_is_exact(std::string_view device, const LlamaComputeBuffer& bound, bool settings_known);

/// What an answer says beside an exact compute buffer.
inline constexpr std::string_view kLlamaExactComputeNote =
    "; on a CUDA device this stage is the buffer itself, as every such start in the records prints it";

}  // namespace kvcat
