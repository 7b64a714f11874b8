#include "engines/oracle/oracle_models.h"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "engines/oracle/oracle_load.h"
#include "engines/oracle/shape_gguf.h"

namespace kvcat::oracle {

namespace {

// Which llama.cpp architecture each model record loads as (the "general.architecture" its
// GGUF files carry). Records not named here are listed as unchecked, with the reason below.
const std::map<std::string, std::string, std::less<>> kArchitectures = {
    {"models/llama-2-7b", "llama"},
    {"models/llama-3.1-8b", "llama"},
    {"models/llama-3.1-70b", "llama"},
    {"models/llama-3.3-70b", "llama"},
    {"models/mistral-7b-instruct-v0.2", "llama"},
    {"models/mixtral-8x7b", "llama"},
    {"models/mixtral-8x22b", "llama"},
    {"models/qwen2-7b-instruct", "qwen2"},
    {"models/qwq-32b", "qwen2"},
    {"models/qwen3-0.6b", "qwen3"},
    {"models/qwen3-1.7b", "qwen3"},
    {"models/qwen3-8b", "qwen3"},
    {"models/qwen3-32b", "qwen3"},
    {"models/qwen3-30b-a3b", "qwen3moe"},
    {"models/qwen3-30b-a3b-instruct-2507", "qwen3moe"},
    {"models/qwen3-coder-30b-a3b", "qwen3moe"},
    {"models/qwen3-235b-a22b", "qwen3moe"},
    {"models/qwen3-coder-480b-a35b", "qwen3moe"},
    {"models/gemma-3-27b", "gemma3"},
    {"models/deepseek-v3", "deepseek2"},
    {"models/deepseek-r1", "deepseek2"},
    {"models/deepseek-v2-lite", "deepseek2"},
    {"models/kimi-k2-instruct", "deepseek2"},
    {"models/kimi-k2.6", "deepseek2"},
    {"models/deepseek-v3.2", "deepseek32"},
    {"models/gpt-oss-20b", "gpt-oss"},
    {"models/gpt-oss-120b", "gpt-oss"},
    {"models/llama-4-scout-17b-16e-instruct", "llama4"},
    {"models/glm-z1-32b-0414", "glm4"},
    {"models/qwen3.5-9b", "qwen35"},
    {"models/qwen3.5-27b", "qwen35"},
    {"models/qwen3.6-27b", "qwen35"},
    {"models/qwen3.5-35b-a3b", "qwen35moe"},
    {"models/qwen3.5-122b-a10b", "qwen35moe"},
    {"models/qwen3.5-397b-a17b", "qwen35moe"},
    {"models/qwen3.6-35b-a3b", "qwen35moe"},
    {"models/qwen3-next-80b-a3b", "qwen3next"},
    {"models/jamba-v0.1", "jamba"},
    {"models/nemotron-h-56b-base-8k", "nemotron_h"},
    {"models/minimax-m1", "minimax-01"},
    {"models/lfm2-700m", "lfm2"},
    {"models/granite-4.0-h-350m", "granitehybrid"},
};

// The feed-forward and vocabulary are kept tiny: llama.cpp's cache does not read them.
constexpr std::uint64_t kFeedForward = 32;
constexpr std::uint64_t kVocab = 8;
constexpr std::uint32_t kExperts = 4;

std::string layer(int i, const std::string& what) {
    return fmt::format("blk.{}.{}", i, what);
}

bool is_moe(const std::string& id) {
    if (id.find("gpt-oss") != std::string::npos || id.find("llama-4") != std::string::npos) return true;
    return id.find("mixtral") != std::string::npos || id.find("-a3b") != std::string::npos ||
           id.find("-a22b") != std::string::npos || id.find("-a35b") != std::string::npos;
}

std::string unchecked_reason(const Model& m) {
    if (m.mla) return "MLA (DeepSeek, Kimi): its GGUF writer is not written yet";
    if (m.linear) return "a hybrid with fixed-state layers: its GGUF writer is not written yet";
    if (m.sliding) return "sliding layers of an architecture the oracle does not write yet";
    return "an architecture the oracle does not write yet";
}

}  // namespace

std::vector<OracleModel> oracle_models(const std::vector<Record>& models, std::vector<Unchecked>& skipped) {
    std::vector<OracleModel> out;
    for (const auto& r : models) {
        if (!r.model) continue;
        auto arch = kArchitectures.find(r.id);
        if (arch == kArchitectures.end()) {
            skipped.push_back({r.id, unchecked_reason(*r.model)});
            continue;
        }
        out.push_back({r.id, arch->second, r.model->sliding.has_value(), r.model->linear.has_value()});
    }
    return out;
}

namespace {

void write_attention_gguf(const OracleModel& which, const Model& m, const std::filesystem::path& path) {
    if (!m.num_layers || !m.attention_heads || !m.kv_heads || !m.head_dim) {
        throw std::runtime_error(which.id + ": the record lacks layers, heads or head_dim");
    }
    const auto layers = static_cast<int>(*m.num_layers);
    const auto heads = static_cast<std::uint64_t>(*m.attention_heads);
    const auto kv_heads = static_cast<std::uint64_t>(*m.kv_heads);
    const auto head_k = static_cast<std::uint64_t>(*m.head_dim);
    const auto head_v = static_cast<std::uint64_t>(m.v_head_dim.value_or(*m.head_dim));
    // The embedding width is heads x head_dim, as llama.cpp assumes for an architecture that
    // reads no key_length (qwen2); the cache does not depend on it.
    const std::uint64_t embd = heads * head_k;
    const std::string& a = which.arch;
    const bool moe = is_moe(which.id);

    ShapeGguf g;
    g.str("general.architecture", a)
        .str("general.name", which.id)
        .u32(a + ".context_length", static_cast<std::uint32_t>(m.native_context.value_or(4096)))
        .u32(a + ".embedding_length", static_cast<std::uint32_t>(embd))
        .u32(a + ".block_count", static_cast<std::uint32_t>(layers))
        .u32(a + ".feed_forward_length", static_cast<std::uint32_t>(kFeedForward))
        .u32(a + ".attention.head_count", static_cast<std::uint32_t>(heads))
        .u32(a + ".attention.head_count_kv", static_cast<std::uint32_t>(kv_heads))
        .u32(a + ".attention.key_length", static_cast<std::uint32_t>(head_k))
        .u32(a + ".attention.value_length", static_cast<std::uint32_t>(head_v))
        .f32(a + ".attention.layer_norm_rms_epsilon", 1e-6f)
        .u32(a + ".rope.dimension_count", static_cast<std::uint32_t>(head_k))
        .u32(a + ".vocab_size", static_cast<std::uint32_t>(kVocab))
        .str("tokenizer.ggml.model", "none");
    if (moe) {
        g.u32(a + ".expert_count", kExperts).u32(a + ".expert_used_count", 2);
        if (a != "llama") g.u32(a + ".expert_feed_forward_length", static_cast<std::uint32_t>(kFeedForward));
    }
    if (a == "llama4") g.u32(a + ".interleave_moe_layer_step", 1);  // Scout: every layer MoE
    // llama4 has no window key: its chunk of 8192 is fixed in src/models/llama4.cpp (the record's
    // window is 8192); gemma3 and gpt-oss read theirs.
    if (m.sliding && a != "llama4") {
        g.u32(a + ".attention.sliding_window", static_cast<std::uint32_t>(m.sliding->window));
    }

    g.tensor("token_embd.weight", {embd, kVocab})
        .tensor("output_norm.weight", {embd})
        .tensor("output.weight", {embd, kVocab});
    const bool qk_norm = a == "qwen3" || a == "qwen3moe" || a == "gemma3";
    for (int i = 0; i < layers; ++i) {
        g.tensor(layer(i, "attn_norm.weight"), {embd})
            .tensor(layer(i, "attn_q.weight"), {embd, heads * head_k})
            .tensor(layer(i, "attn_k.weight"), {embd, kv_heads * head_k})
            .tensor(layer(i, "attn_v.weight"), {embd, kv_heads * head_v})
            .tensor(layer(i, "attn_output.weight"), {heads * head_v, embd});
        if (a != "gpt-oss") g.tensor(layer(i, "ffn_norm.weight"), {embd});
        if (a == "gpt-oss") {
            g.tensor(layer(i, "post_attention_norm.weight"), {embd})
                .tensor(layer(i, "attn_sinks.weight"), {heads})
                .tensor(layer(i, "attn_output.bias"), {embd})
                .tensor(layer(i, "ffn_gate_inp.bias"), {kExperts})
                .tensor(layer(i, "ffn_gate_exps.bias"), {kFeedForward, kExperts})
                .tensor(layer(i, "ffn_down_exps.bias"), {embd, kExperts})
                .tensor(layer(i, "ffn_up_exps.bias"), {kFeedForward, kExperts});
        }
        if (a == "llama4") {
            g.tensor(layer(i, "ffn_gate_shexp.weight"), {embd, kFeedForward})
                .tensor(layer(i, "ffn_down_shexp.weight"), {kFeedForward, embd})
                .tensor(layer(i, "ffn_up_shexp.weight"), {embd, kFeedForward});
        }
        if (a == "glm4") {
            // One fused gate and up projection (src/models/glm4.cpp), and norms after each block.
            g.tensor(layer(i, "post_attention_norm.weight"), {embd})
                .tensor(layer(i, "post_ffw_norm.weight"), {embd})
                .tensor(layer(i, "ffn_down.weight"), {kFeedForward, embd})
                .tensor(layer(i, "ffn_up.weight"), {embd, 2 * kFeedForward});
            continue;
        }
        if (a == "qwen2") {
            g.tensor(layer(i, "attn_q.bias"), {heads * head_k})
                .tensor(layer(i, "attn_k.bias"), {kv_heads * head_k})
                .tensor(layer(i, "attn_v.bias"), {kv_heads * head_v});
        }
        if (qk_norm)
            g.tensor(layer(i, "attn_k_norm.weight"), {head_k}).tensor(layer(i, "attn_q_norm.weight"), {head_k});
        if (a == "gemma3") {
            g.tensor(layer(i, "post_attention_norm.weight"), {embd}).tensor(layer(i, "post_ffw_norm.weight"), {embd});
        }
        if (moe) {
            g.tensor(layer(i, "ffn_gate_inp.weight"), {embd, kExperts})
                .tensor(layer(i, "ffn_gate_exps.weight"), {embd, kFeedForward, kExperts})
                .tensor(layer(i, "ffn_down_exps.weight"), {kFeedForward, embd, kExperts})
                .tensor(layer(i, "ffn_up_exps.weight"), {embd, kFeedForward, kExperts});
        } else {
            g.tensor(layer(i, "ffn_gate.weight"), {embd, kFeedForward})
                .tensor(layer(i, "ffn_down.weight"), {kFeedForward, embd})
                .tensor(layer(i, "ffn_up.weight"), {embd, kFeedForward});
        }
    }
    g.write(path);
}

/// DeepSeek-V3, R1, Kimi-K2 (deepseek2) and V3.2 (deepseek32, with the indexer's cache):
/// src/models/deepseek2.cpp and deepseek32.cpp at the pin. The cache reads the latent
/// (kv_lora_rank + rope) and, for V3.2, the indexer's key width; every layer is written dense
/// (leading_dense_block_count = block_count), so no expert tensor is needed. The per-head
/// widths (key_length_mla, value_length_mla) only shape weights: a record without them gets
/// the smallest the loader takes (rope + 1 and 1).
void write_mla_gguf(const OracleModel& which, const Model& m, const std::filesystem::path& path) {
    if (!m.num_layers || !m.attention_heads || !m.mla) throw std::runtime_error(which.id + ": no MLA shape");
    const auto layers = static_cast<int>(*m.num_layers);
    const auto heads = static_cast<std::uint64_t>(*m.attention_heads);
    const auto rank = static_cast<std::uint64_t>(m.mla->kv_lora_rank);
    const auto rope = static_cast<std::uint64_t>(m.mla->qk_rope_head_dim);
    const auto k_mla = static_cast<std::uint64_t>(m.head_dim.value_or(static_cast<std::int64_t>(rope) + 1));
    const auto v_mla = static_cast<std::uint64_t>(m.v_head_dim.value_or(1));
    const bool dsa = which.arch == "deepseek32";
    if (dsa && !m.indexer) throw std::runtime_error(which.id + ": deepseek32 without an indexer");
    const std::uint64_t embd = 64, q_rank = dsa ? 16 : 0;
    const std::uint64_t index_dim = dsa ? static_cast<std::uint64_t>(m.indexer->head_dim) : 0;
    const std::string& a = which.arch;
    auto u = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };

    ShapeGguf g;
    g.str("general.architecture", a)
        .str("general.name", which.id)
        .u32(a + ".context_length", static_cast<std::uint32_t>(m.native_context.value_or(4096)))
        .u32(a + ".embedding_length", u(embd))
        .u32(a + ".block_count", static_cast<std::uint32_t>(layers))
        .u32(a + ".feed_forward_length", u(kFeedForward))
        .u32(a + ".expert_feed_forward_length", u(kFeedForward))
        .u32(a + ".expert_shared_count", 1)
        .u32(a + ".leading_dense_block_count", static_cast<std::uint32_t>(layers))
        .u32(a + ".attention.head_count", u(heads))
        .u32(a + ".attention.head_count_kv", 1)
        .f32(a + ".attention.layer_norm_rms_epsilon", 1e-6f)
        .u32(a + ".vocab_size", u(kVocab))
        .str("tokenizer.ggml.model", "none");
    write_mla_attention_keys(g, a, rank, rope, k_mla, v_mla);
    if (dsa) {
        g.u32(a + ".attention.q_lora_rank", u(q_rank))
            .u32(a + ".attention.indexer.head_count", 1)
            .u32(a + ".attention.indexer.key_length", u(index_dim))
            .u32(a + ".attention.indexer.top_k", 1)
            .u32(a + ".expert_gating_func", 2);
    } else {
        g.u32(a + ".attention.q_lora_rank", 0);
    }
    g.tensor("token_embd.weight", {embd, kVocab}).tensor("output_norm.weight", {embd});
    for (int i = 0; i < layers; ++i) {
        g.tensor(layer(i, "attn_norm.weight"), {embd}).tensor(layer(i, "attn_kv_a_norm.weight"), {rank});
        if (dsa) {
            g.tensor(layer(i, "attn_q_a_norm.weight"), {q_rank})
                .tensor(layer(i, "attn_q_a.weight"), {embd, q_rank})
                .tensor(layer(i, "attn_q_b.weight"), {q_rank, heads * k_mla});
        } else {
            g.tensor(layer(i, "attn_q.weight"), {embd, heads * k_mla});
        }
        g.tensor(layer(i, "attn_kv_a_mqa.weight"), {embd, rank + rope})
            .tensor(layer(i, "attn_k_b.weight"), {k_mla - rope, rank, heads})
            .tensor(layer(i, "attn_v_b.weight"), {rank, v_mla, heads})
            .tensor(layer(i, "attn_output.weight"), {heads * v_mla, embd})
            .tensor(layer(i, "ffn_norm.weight"), {embd})
            .tensor(layer(i, "ffn_gate.weight"), {embd, kFeedForward})
            .tensor(layer(i, "ffn_down.weight"), {kFeedForward, embd})
            .tensor(layer(i, "ffn_up.weight"), {embd, kFeedForward});
        if (dsa) {
            g.tensor(layer(i, "indexer.k_norm.weight"), {index_dim})
                .tensor(layer(i, "indexer.k_norm.bias"), {index_dim})
                .tensor(layer(i, "indexer.proj.weight"), {embd, 1})
                .tensor(layer(i, "indexer.attn_k.weight"), {embd, index_dim})
                .tensor(layer(i, "indexer.attn_q_b.weight"), {q_rank, index_dim});
        }
    }
    g.write(path);
}

/// The Gated DeltaNet hybrids: Qwen3.5 and 3.6 (qwen35, qwen35moe) and Qwen3-Next (qwen3next),
/// src/models/qwen35.cpp, qwen35moe.cpp and qwen3next.cpp at the pin. Every interval-th layer
/// is full attention (the record's kv_layers.interval, first index interval - 1); the rest keep
/// a conv state of (conv_kernel - 1) x (value width + 2 x key heads x key width) and a state of
/// key width x value width, with the value width key_head_dim x value_heads as the converter
/// writes it (ssm.inner_size).
void write_deltanet_gguf(const OracleModel& which, const Model& m, const std::filesystem::path& path) {
    if (!m.num_layers || !m.attention_heads || !m.kv_heads || !m.head_dim || !m.linear || !m.kv_layers.interval) {
        throw std::runtime_error(which.id + ": the record lacks the hybrid's shape");
    }
    const auto interval = *m.kv_layers.interval;
    if (m.kv_layers.first_index.value_or(interval - 1) != interval - 1) {
        throw std::runtime_error(which.id + ": full-attention layers llama.cpp cannot place by an interval");
    }
    const LinearShape& lin = *m.linear;
    if (lin.key_head_dim != lin.value_head_dim) {
        throw std::runtime_error(which.id + ": key and value widths differ, which these architectures do not keep");
    }
    auto u = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
    auto w = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    const int layers = static_cast<int>(*m.num_layers);
    const std::uint64_t heads = w(*m.attention_heads), kv_heads = w(*m.kv_heads), head = w(*m.head_dim);
    const std::uint64_t d_state = w(lin.key_head_dim), groups = w(lin.key_heads), v_heads = w(lin.value_heads);
    const std::uint64_t inner = d_state * v_heads, conv = 2 * d_state * groups + inner, embd = heads * head;
    const std::string& a = which.arch;
    const bool moe = a != "qwen35";

    ShapeGguf g;
    g.str("general.architecture", a)
        .str("general.name", which.id)
        .u32(a + ".context_length", u(m.native_context.value_or(4096)))
        .u32(a + ".embedding_length", static_cast<std::uint32_t>(embd))
        .u32(a + ".block_count", u(layers))
        .u32(a + ".feed_forward_length", static_cast<std::uint32_t>(kFeedForward))
        .u32(a + ".attention.head_count", static_cast<std::uint32_t>(heads))
        .u32(a + ".attention.head_count_kv", static_cast<std::uint32_t>(kv_heads))
        .u32(a + ".attention.key_length", static_cast<std::uint32_t>(head))
        .u32(a + ".attention.value_length", static_cast<std::uint32_t>(head))
        .f32(a + ".attention.layer_norm_rms_epsilon", 1e-6f)
        .u32(a + ".rope.dimension_count", static_cast<std::uint32_t>(head / 4))
        .u32(a + ".full_attention_interval", u(interval))
        .u32(a + ".ssm.conv_kernel", u(lin.conv_kernel))
        .u32(a + ".ssm.state_size", static_cast<std::uint32_t>(d_state))
        .u32(a + ".ssm.group_count", static_cast<std::uint32_t>(groups))
        .u32(a + ".ssm.time_step_rank", static_cast<std::uint32_t>(v_heads))
        .u32(a + ".ssm.inner_size", static_cast<std::uint32_t>(inner))
        .u32(a + ".vocab_size", static_cast<std::uint32_t>(kVocab))
        .str("tokenizer.ggml.model", "none");
    if (a != "qwen3next") g.i32s(a + ".rope.dimension_sections", {11, 11, 10, 0});
    if (moe) {
        g.u32(a + ".expert_count", kExperts)
            .u32(a + ".expert_used_count", 2)
            .u32(a + ".expert_feed_forward_length", static_cast<std::uint32_t>(kFeedForward))
            .u32(a + ".expert_shared_feed_forward_length", static_cast<std::uint32_t>(kFeedForward));
    }
    g.tensor("token_embd.weight", {embd, kVocab}).tensor("output_norm.weight", {embd});
    for (int i = 0; i < layers; ++i) {
        g.tensor(layer(i, "attn_norm.weight"), {embd}).tensor(layer(i, "post_attention_norm.weight"), {embd});
        if ((i + 1) % interval == 0) {
            g.tensor(layer(i, "attn_q.weight"), {embd, head * heads * 2})
                .tensor(layer(i, "attn_k.weight"), {embd, head * kv_heads})
                .tensor(layer(i, "attn_v.weight"), {embd, head * kv_heads})
                .tensor(layer(i, "attn_output.weight"), {head * heads, embd})
                .tensor(layer(i, "attn_q_norm.weight"), {head})
                .tensor(layer(i, "attn_k_norm.weight"), {head});
        } else {
            g.tensor(layer(i, "ssm_conv1d.weight"), {w(lin.conv_kernel), conv})
                .tensor(layer(i, "ssm_dt.bias"), {v_heads})
                .tensor(layer(i, "ssm_a"), {v_heads})
                .tensor(layer(i, "ssm_norm.weight"), {d_state})
                .tensor(layer(i, "ssm_out.weight"), {inner, embd})
                .tensor(layer(i, "attn_qkv.weight"), {embd, conv})
                .tensor(layer(i, "attn_gate.weight"), {embd, inner});
            if (a == "qwen3next") {
                g.tensor(layer(i, "ssm_ba.weight"), {embd, 2 * v_heads});
            } else {
                g.tensor(layer(i, "ssm_beta.weight"), {embd, v_heads})
                    .tensor(layer(i, "ssm_alpha.weight"), {embd, v_heads});
            }
        }
        if (moe) {
            g.tensor(layer(i, "ffn_gate_inp.weight"), {embd, kExperts})
                .tensor(layer(i, "ffn_gate_exps.weight"), {embd, kFeedForward, kExperts})
                .tensor(layer(i, "ffn_down_exps.weight"), {kFeedForward, embd, kExperts})
                .tensor(layer(i, "ffn_up_exps.weight"), {embd, kFeedForward, kExperts})
                .tensor(layer(i, "ffn_gate_inp_shexp.weight"), {embd})
                .tensor(layer(i, "ffn_gate_shexp.weight"), {embd, kFeedForward})
                .tensor(layer(i, "ffn_up_shexp.weight"), {embd, kFeedForward})
                .tensor(layer(i, "ffn_down_shexp.weight"), {kFeedForward, embd});
        } else {
            g.tensor(layer(i, "ffn_gate.weight"), {embd, kFeedForward})
                .tensor(layer(i, "ffn_up.weight"), {embd, kFeedForward})
                .tensor(layer(i, "ffn_down.weight"), {kFeedForward, embd});
        }
    }
    g.write(path);
}

/// Jamba (Mamba-1), Nemotron-H (Mamba-2, with MLP-only layers), Granite-4.0-H (Mamba-2, with
/// a feed-forward in every layer) and MiniMax-M1 (lightning attention, llama.cpp's minimax-01):
/// src/models/jamba.cpp, nemotron-h.cpp, granite-hybrid.cpp and minimax-01.cpp at the pin. A layer's kind is written as
/// llama.cpp reads it: a head_count_kv of 0 marks a state layer (and for Nemotron-H a feed_forward_length above 0 an
/// MLP-only one; which of the record's stateless layers sit where changes no figure, so they come after the state
/// layers' places in order); MiniMax takes attention.recurrent_layers.
void write_ssm_gguf(const OracleModel& which, const Model& m, const std::filesystem::path& path) {
    if (!m.num_layers || !m.attention_heads || !m.kv_heads || !m.head_dim || !m.linear) {
        throw std::runtime_error(which.id + ": the record lacks the hybrid's shape");
    }
    auto w = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    auto u = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
    const LinearShape& lin = *m.linear;
    const std::string& a = which.arch;
    const int layers = static_cast<int>(*m.num_layers);
    const std::uint64_t heads = w(*m.attention_heads), kv_heads = w(*m.kv_heads), head = w(*m.head_dim);
    const std::vector<bool> attention = attention_layers(m);
    // Nemotron-H: the stateless (MLP-only) layers take the last non-attention places.
    std::vector<bool> mlp(attention.size(), false);
    for (auto left = m.kv_layers.stateless.value_or(0), i = static_cast<std::int64_t>(attention.size()) - 1;
         left > 0 && i >= 0; --i) {
        if (!attention[static_cast<std::size_t>(i)]) {
            mlp[static_cast<std::size_t>(i)] = true;
            --left;
        }
    }
    const bool jamba = a == "jamba", minimax = a == "minimax-01", lfm2 = a == "lfm2";
    const bool granite = a == "granitehybrid";
    // Granite-4.0-H's Mamba-2 layers are Nemotron-H's (src/models/granite-hybrid.cpp asserts
    // d_inner = 2 x n_embd, which heads x head width gives for it).
    const bool nemotron = a == "nemotron_h" || granite;
    // Mamba-1: d_inner; Mamba-2: heads x head width with groups of d_state; lightning: heads x width.
    const std::uint64_t inner = jamba || lfm2 ? w(lin.inner_dim) : w(lin.value_heads) * w(lin.value_head_dim);
    const std::uint64_t d_state = jamba ? w(lin.state_dim) : w(lin.key_head_dim);
    const std::uint64_t groups = nemotron ? w(lin.key_heads) : 0, ssm_heads = nemotron ? w(lin.value_heads) : 1;
    const std::uint64_t d_conv = w(lin.conv_kernel);
    // Jamba asserts d_inner = 2 x n_embd (src/models/jamba.cpp); LFM2's convolution runs over
    // n_embd channels (src/models/lfm2.cpp); the others take heads x head.
    const std::uint64_t embd = jamba ? inner / 2 : lfm2 ? inner : heads * head;

    std::vector<std::int32_t> kv_arr, ff_arr;
    std::vector<bool> recurrent;
    for (std::size_t i = 0; i < attention.size(); ++i) {
        kv_arr.push_back(attention[i] ? static_cast<std::int32_t>(kv_heads) : 0);
        ff_arr.push_back(mlp[i] ? static_cast<std::int32_t>(kFeedForward) : 0);
        recurrent.push_back(!attention[i] && !mlp[i]);
    }
    ShapeGguf g;
    g.str("general.architecture", a)
        .str("general.name", which.id)
        .u32(a + ".context_length",
             static_cast<std::uint32_t>(std::min<std::int64_t>(m.native_context.value_or(4096), 1 << 30)))
        .u32(a + ".embedding_length", u(embd))
        .u32(a + ".block_count", static_cast<std::uint32_t>(layers))
        .u32(a + ".attention.head_count", u(heads))
        .u32(a + ".attention.key_length", u(head))
        .u32(a + ".attention.value_length", u(head))
        .f32(a + ".attention.layer_norm_rms_epsilon", 1e-6f)
        .u32(a + ".vocab_size", u(kVocab))
        .str("tokenizer.ggml.model", "none");
    if (lfm2) {
        g.i32s(a + ".attention.head_count_kv", kv_arr)
            .u32(a + ".shortconv.l_cache", u(d_conv))
            .u32(a + ".feed_forward_length", u(kFeedForward));
    } else if (minimax) {
        g.u32(a + ".attention.head_count_kv", u(kv_heads))
            .bools(a + ".attention.recurrent_layers", recurrent)
            .u32(a + ".feed_forward_length", u(kFeedForward))
            .f32(a + ".residual_scale", 1.0f)
            .u32(a + ".expert_count", 2)
            .u32(a + ".expert_used_count", 1);
    } else {
        g.i32s(a + ".attention.head_count_kv", kv_arr)
            .u32(a + ".ssm.conv_kernel", u(d_conv))
            .u32(a + ".ssm.inner_size", u(inner))
            .u32(a + ".ssm.state_size", u(d_state))
            .u32(a + ".ssm.time_step_rank", u(nemotron ? ssm_heads : 1));
        if (jamba) g.u32(a + ".feed_forward_length", u(kFeedForward));
        if (granite) g.u32(a + ".feed_forward_length", u(kFeedForward)).u32(a + ".ssm.group_count", u(groups));
        if (nemotron && !granite) {
            g.i32s(a + ".feed_forward_length", ff_arr)
                .u32(a + ".ssm.group_count", u(groups))
                .f32(a + ".attention.layer_norm_epsilon", 1e-5f);
        }
    }
    // LFM2's final norm is stored as token_embd_norm (src/llama-arch.cpp: "fix for wrong tensor name").
    g.tensor("token_embd.weight", {embd, kVocab})
        .tensor(lfm2 ? "token_embd_norm.weight" : "output_norm.weight", {embd});
    const std::uint64_t q = heads * head, kv = kv_heads * head;
    for (int i = 0; i < layers; ++i) {
        const auto at = static_cast<std::size_t>(i);
        g.tensor(layer(i, "attn_norm.weight"), {embd});
        if (jamba || lfm2) g.tensor(layer(i, "ffn_norm.weight"), {embd});
        if (lfm2 && attention[at]) {
            g.tensor(layer(i, "attn_q_norm.weight"), {head}).tensor(layer(i, "attn_k_norm.weight"), {head});
        }
        if (lfm2 && !attention[at]) {
            g.tensor(layer(i, "shortconv.conv.weight"), {d_conv, embd})
                .tensor(layer(i, "shortconv.in_proj.weight"), {embd, 3 * embd})
                .tensor(layer(i, "shortconv.out_proj.weight"), {embd, embd});
        } else if (attention[at]) {
            g.tensor(layer(i, "attn_q.weight"), {embd, q})
                .tensor(layer(i, "attn_k.weight"), {embd, kv})
                .tensor(layer(i, "attn_v.weight"), {embd, kv});
            if (!minimax) g.tensor(layer(i, "attn_output.weight"), {q, embd});
        } else if (mlp[at]) {
            g.tensor(layer(i, "ffn_down.weight"), {kFeedForward, embd})
                .tensor(layer(i, "ffn_up.weight"), {embd, kFeedForward});
        } else if (jamba) {
            g.tensor(layer(i, "ssm_in.weight"), {embd, 2 * inner})
                .tensor(layer(i, "ssm_conv1d.weight"), {d_conv, inner})
                .tensor(layer(i, "ssm_conv1d.bias"), {inner})
                .tensor(layer(i, "ssm_x.weight"), {inner, 1 + 2 * d_state})
                .tensor(layer(i, "ssm_dt_norm.weight"), {1})
                .tensor(layer(i, "ssm_dt.weight"), {1, inner})
                .tensor(layer(i, "ssm_dt.bias"), {inner})
                .tensor(layer(i, "ssm_b_norm.weight"), {d_state})
                .tensor(layer(i, "ssm_c_norm.weight"), {d_state})
                .tensor(layer(i, "ssm_a"), {d_state, inner})
                .tensor(layer(i, "ssm_d"), {inner})
                .tensor(layer(i, "ssm_out.weight"), {inner, embd});
        } else if (nemotron) {
            const std::uint64_t conv = inner + 2 * groups * d_state;
            g.tensor(layer(i, "ssm_in.weight"), {embd, 2 * inner + 2 * groups * d_state + ssm_heads})
                .tensor(layer(i, "ssm_conv1d.weight"), {d_conv, conv})
                .tensor(layer(i, "ssm_conv1d.bias"), {conv})  // optional to the loader, added by the graph
                .tensor(layer(i, "ssm_dt.bias"), {ssm_heads})
                .tensor(layer(i, "ssm_a"), {1, ssm_heads})
                .tensor(layer(i, "ssm_d"), {1, ssm_heads})
                .tensor(layer(i, "ssm_norm.weight"), {inner / groups, groups})
                .tensor(layer(i, "ssm_out.weight"), {inner, embd});
        } else {
            g.tensor(layer(i, "attn_norm_2.weight"), {q})
                .tensor(layer(i, "attn_qkv.weight"), {embd, 3 * q})
                .tensor(layer(i, "attn_gate.weight"), {embd, q});
        }
        if (minimax) {
            g.tensor(layer(i, "attn_output.weight"), {q, embd})
                .tensor(layer(i, "ffn_norm.weight"), {embd})
                .tensor(layer(i, "ffn_gate_inp.weight"), {embd, 2})
                .tensor(layer(i, "ffn_gate_exps.weight"), {embd, kFeedForward, 2})
                .tensor(layer(i, "ffn_down_exps.weight"), {kFeedForward, embd, 2})
                .tensor(layer(i, "ffn_up_exps.weight"), {embd, kFeedForward, 2});
        }
        if (granite) g.tensor(layer(i, "ffn_norm.weight"), {embd});
        if (jamba || lfm2 || granite) {
            g.tensor(layer(i, "ffn_gate.weight"), {embd, kFeedForward})
                .tensor(layer(i, "ffn_down.weight"), {kFeedForward, embd})
                .tensor(layer(i, "ffn_up.weight"), {embd, kFeedForward});
        }
    }
    g.write(path);
}

}  // namespace

void write_model_gguf(const OracleModel& which, const Model& m, const std::filesystem::path& path) {
    if (which.arch == "deepseek2" || which.arch == "deepseek32") return write_mla_gguf(which, m, path);
    if (which.arch == "jamba" || which.arch == "nemotron_h" || which.arch == "minimax-01" || which.arch == "lfm2" ||
        which.arch == "granitehybrid") {
        return write_ssm_gguf(which, m, path);
    }
    if (which.arch == "qwen35" || which.arch == "qwen35moe" || which.arch == "qwen3next") {
        return write_deltanet_gguf(which, m, path);
    }
    write_attention_gguf(which, m, path);
}

}  // namespace kvcat::oracle
