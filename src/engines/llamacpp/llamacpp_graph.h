// llama.cpp's compute graph for a model, as the pinned release builds the one it sizes its compute
// buffer by: the prompt's micro-batch in the worst case (src/llama-context.cpp, sched_reserve and
// graph_reserve). With ggml's allocator over it (engines/llamacpp/ggml_alloc.h) it gives the
// buffer llama.cpp prints on a device that runs every layer, not a bound.
//
// The graph is built call for call as llama.cpp builds it, at
// 80fb11ac73e66d89eae2c6a91d8a77428fa733ed:
//   - src/models/llama.cpp, qwen2.cpp, qwen3.cpp, qwen3moe.cpp, openai-moe.cpp (gpt-oss), glm4.cpp,
//     gemma3.cpp, llama4.cpp, qwen35.cpp, qwen35moe.cpp, delta-net-base.cpp, granite-hybrid.cpp and
//     mamba-base.cpp, lfm2.cpp: the layers;
//   - src/llama-graph.cpp: build_inp_embd (the token and embedding inputs, both in the graph),
//     build_inp_pos, build_attn_inp_kv and build_attn_inp_kq_mask (the cache's row indices and
//     the mask, f16 with flash attention, one per stream), build_inp_out_ids, build_norm,
//     build_qkv, build_attn and build_attn_mha (flash attention, or K x Q, soft_max and V x KQ),
//     build_ffn and build_moe_ffn;
//   - src/llama-kv-cache.cpp: cpy_k, cpy_v (V transposed without flash attention), get_k, get_v;
//   - src/llama-graph.cpp, build_rs and build_rs_inp_impl, with src/llama-memory-recurrent.cpp: a
//     recurrent layer's states, read by row index (s_copy) from the full memory's rows.
// The oracle (tests/engines/oracle) compares it node by node with the graph libllama reserves for
// the same model and settings, and its size with the buffer libllama prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/llamacpp/ggml_alloc.h"
#include "load/records.h"

namespace kvcat {

struct LlamaGraphSetting {
    std::int64_t tokens = 512;              ///< the micro-batch: min(n_ctx, n_ubatch)
    std::int64_t seqs = 1;                  ///< n_seq_max: -np
    bool unified = false;                   ///< --kv-unified: one stream for every sequence
    std::int64_t cells_per_stream = 0;      ///< the cache's cells in one stream (n_kv in the reserve)
    std::int64_t swa_cells_per_stream = 0;  ///< the sliding or chunked layers' cache's (gpt-oss, Gemma 3, Llama 4)
    std::int64_t outputs = 0;               ///< the outputs the reserve gives; 0 = every token
    bool flash_attn = true;
    std::string cache_k = "f16";
    std::string cache_v = "f16";
    /// The graph a GPU that runs every layer allocates: the scheduler leaves the token lookup
    /// (token_embd is in host memory) and the inputs on the CPU and copies what the GPU's nodes
    /// read to the card at the start of its split, where each copy is freed after its last reader
    /// like any tensor (ggml/src/ggml-backend.cpp, ggml_backend_sched_split_graph: with one copy
    /// the copies carry no input or output flag). The GPU's buffer type aligns to 128 bytes
    /// (ggml-cuda.cu, ggml_backend_cuda_buffer_type_get_alignment).
    bool device = false;
    /// The output arrangement of older builds of gpt-oss and Qwen 3.5: the output rows taken inside
    /// the last layer, as the other architectures take them, and no hidden state kept as an output.
    /// The pinned release keeps the last hidden state (gpt-oss) or the normed one (Qwen 3.5) as
    /// t_h_nextn and takes the rows after it. Older: src/models/openai-moe-iswa.cpp at a8fbcaa8
    /// (reproduces the b7772 starts) and src/models/qwen35.cpp at 1af4a799 (with the fused Gated
    /// DeltaNet of later builds, reproduces a Qwen3.6-27B start on CUDA).
    bool rows_in_layer = false;
};

/// The llama.cpp commit whose graphs are built here.
inline constexpr const char* kLlamaGraphCommit = "80fb11ac73e66d89eae2c6a91d8a77428fa733ed";

/// CUDA's buffer alignment.
inline constexpr std::int64_t kGgmlCudaAlignment = 128;

/// The widths and switches a graph is built from (the page's planner builds the same graph from
/// them, src/output/report_graph.js).
struct LlamaGraphDims {
    std::string arch;
    std::int64_t n_embd = 0, n_vocab = 0, n_layer = 0, n_head = 0, n_head_kv = 0, hd_k = 0, hd_v = 0;
    std::int64_t n_ff = 0, n_expert = 0, n_expert_used = 0, n_ff_exp = 0;
    bool qk_norm = false;     ///< qwen3, qwen3moe: an RMS norm on Q and K before RoPE
    bool qkv_bias = false;    ///< qwen2: biases on Q, K and V
    bool rope_freqs = false;  ///< llama: the rope_freqs factors as RoPE's third source
    /// gpt-oss (src/models/openai-moe.cpp): every other layer, the first among them, attends
    /// over a sliding-window cache of its own (llama_kv_cache_iswa); biases on the attention's
    /// projections, the router and the experts; attention sinks; softmax over the chosen experts'
    /// logits only; SwiGLU-OAI; the final hidden state kept as an output (t_h_nextn).
    bool gpt_oss = false;
    /// glm4 (src/models/glm4.cpp): RMS norms after the attention and after the feed-forward, whose
    /// gate and up are halves of one projection (SwiGLU of it, LLM_FFN_SWIGLU).
    bool glm4 = false;
    /// gemma3 (src/models/gemma3.cpp): the embeddings scaled, five sliding-window layers to each
    /// full one (a cache of their own, as gpt-oss's), Q and K norms, Q scaled, norms after the
    /// attention and the feed-forward, GeGLU.
    bool gemma3 = false;
    /// llama4 (src/models/llama4.cpp): three chunked layers with RoPE (and, for Scout, Q and K
    /// norms without weights) to each full one without RoPE, whose Q is scaled by an input; every
    /// layer's experts chosen on the router's logits and weighted by their sigmoids before the
    /// experts run, beside a shared expert.
    bool llama4 = false;
    /// qwen35, qwen35moe (src/models/qwen35.cpp, qwen35moe.cpp, delta-net-base.cpp): Gated DeltaNet
    /// layers between gated attention ones, whose Q projection also makes a sigmoid gate for the
    /// output; norms on Q and K, multi-section RoPE (four positions a token); a norm after the
    /// attention and none before the feed-forward; qwen35moe's experts beside a shared expert
    /// gated by its own sigmoid.
    bool deltanet = false;
    /// qwen3next (src/models/qwen3next.cpp): the same layers as Qwen3.5's mixture of experts, built
    /// its own way: the Q and gate projection reshaped whole before its two views; RoPE over one
    /// position a token; beta and alpha from one projection (ssm_ba), viewed per key head; Q and K
    /// of the Gated DeltaNet repeated to the value heads before the fused op. With deltanet.
    bool qwen3next = false;
    /// granitehybrid (src/models/granite-hybrid.cpp, mamba-base.cpp): Mamba-2 layers between
    /// attention ones without RoPE (Granite 4.0-H's converter writes rope.scaling.finetuned false
    /// for a hybrid, conversion/granite.py); Granite's embedding, residual and logit scales (its
    /// configs' multipliers, which the converter writes); biases on the convolution.
    bool granite = false;
    /// lfm2 (src/models/lfm2.cpp): gated short convolutions between attention layers whose Q and K
    /// are normed before RoPE; the final norm named token_embd_norm.
    bool lfm2 = false;
    std::vector<bool> attends;  ///< the hybrid's layers with attention (the others recurrent)
    /// The recurrent layers' widths: the short convolution's kernel, the key heads (ssm_n_group) of
    /// ssm_d_state, the value heads (ssm_dt_rank; Mamba-2's heads) and their width.
    std::int64_t ssm_conv = 0, ssm_groups = 0, ssm_state = 0, ssm_heads = 0, ssm_head_v = 0;
    std::int64_t n_ff_shexp = 0;  ///< qwen35moe's shared expert
    /// The period of the sliding-window layers (set_swa_pattern): 0 for none, 2 for gpt-oss, 6 for
    /// gemma3; layer il slides when il % period < period - 1.
    std::int64_t swa_period = 0;
};

/// The positions a token takes among the graph's inputs (build_inp_pos): four for Qwen 3.5's
/// multi-section RoPE (n_pos_per_embd), none for Granite 4.0-H, which has no RoPE
/// (granite-hybrid.cpp builds no inp_pos), one otherwise (Qwen3-Next's RoPE is plain).
std::int64_t llamacpp_positions_per_token(std::string_view arch);

/// Whether the architecture is a hybrid whose graph reads its recurrent rows' indices as an input
/// (build_inp_mem_hybrid): Qwen 3.5 and 3.6, Qwen3-Next, Granite 4.0-H and LFM2.
bool llamacpp_reads_recurrent_rows(std::string_view arch);

/// The model's widths where its graph is built (for a cache type llamacpp_graph_unsupported
/// takes), nullopt otherwise.
std::optional<LlamaGraphDims> llamacpp_graph_dims(const Model& model);

/// Why a model's graph is not built, or empty when it is.
std::string llamacpp_graph_unsupported(const Model& model, const LlamaGraphSetting& s);

/// The graph, or nullopt where llamacpp_graph_unsupported says why.
std::optional<GgmlGraph> llamacpp_graph(const Model& model, const LlamaGraphSetting& s);

/// Whether llama.cpp takes a cache of this type, each of which is built (f32, f16, bf16 and the
/// quantized types; fp32 and fp16 as the catalog names f32 and f16).
bool llamacpp_graph_takes_cache(const std::string& type);

/// The alignment of the buffer the graph is placed in: CUDA's on a device, the CPU's otherwise.
std::int64_t llamacpp_graph_alignment(const LlamaGraphSetting& s);

/// The buffer ggml-alloc reserves for that graph, with llamacpp_graph_alignment.
std::optional<std::int64_t> llamacpp_graph_buffer(const Model& model, const LlamaGraphSetting& s);

}  // namespace kvcat
