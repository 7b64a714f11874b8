#include "engines/oracle/oracle_models.h"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

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
};

// The feed-forward and vocabulary are kept tiny: llama.cpp's cache does not read them.
constexpr std::uint64_t kFeedForward = 32;
constexpr std::uint64_t kVocab = 8;
constexpr std::uint32_t kExperts = 4;

std::string layer(int i, const std::string& what) {
    return fmt::format("blk.{}.{}", i, what);
}

bool is_moe(const std::string& id) {
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
        out.push_back({r.id, arch->second, r.model->sliding.has_value()});
    }
    return out;
}

void write_model_gguf(const OracleModel& which, const Model& m, const std::filesystem::path& path) {
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
        if (a == "qwen3moe") g.u32(a + ".expert_feed_forward_length", static_cast<std::uint32_t>(kFeedForward));
    }
    if (m.sliding) {
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
            .tensor(layer(i, "attn_output.weight"), {heads * head_v, embd})
            .tensor(layer(i, "ffn_norm.weight"), {embd});
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

}  // namespace kvcat::oracle
