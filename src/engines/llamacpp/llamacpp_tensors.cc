#include "engines/llamacpp/llamacpp_tensors.h"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/kv_math.h"
#include "support/rational.h"
#include "vocab/design.h"
#include "vocab/gguf_arch.h"

namespace kvcat {

namespace {

class Inventory {
  public:
    /// `expected`: about how many tensors the model has, so the list is allocated once rather
    /// than doubled a dozen times (a lint builds one inventory for each llama.cpp record checked).
    explicit Inventory(std::size_t expected) { tensors_.reserve(expected); }

    void add(std::string name, std::array<std::int64_t, 3> ne, int dims, bool f32) {
        tensors_.push_back(GgufTensorShape{std::move(name), ne, dims, f32});
    }
    void vector(std::string name, std::int64_t width) { add(std::move(name), {width, 1, 1}, 1, true); }
    void matrix(std::string name, std::int64_t cols, std::int64_t rows) {
        add(std::move(name), {cols, rows, 1}, 2, false);
    }
    void experts(std::string name, std::int64_t cols, std::int64_t rows, std::int64_t n) {
        add(std::move(name), {cols, rows, n}, 3, false);
    }
    std::vector<GgufTensorShape> sorted() && {
        // By block, then name: each tensor's block read once, not at every comparison (the sort
        // of a model's inventory showed in every lint that checks a llama.cpp start).
        std::vector<std::pair<int, std::size_t>> keys;
        keys.reserve(tensors_.size());
        for (std::size_t i = 0; i < tensors_.size(); ++i) keys.emplace_back(gguf_block_of(tensors_[i].name), i);
        std::sort(keys.begin(), keys.end(), [this](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : tensors_[a.second].name < tensors_[b.second].name;
        });
        std::vector<GgufTensorShape> out;
        out.reserve(tensors_.size());
        for (const auto& key : keys) out.push_back(std::move(tensors_[key.second]));
        return out;
    }

  private:
    std::vector<GgufTensorShape> tensors_;
};

std::string blk(std::int64_t i, const char* name) {
    return fmt::format("blk.{}.{}", i, name);
}

}  // namespace

int gguf_block_of(const std::string& name) {
    // "blk.N." read by hand: the inventory's sort calls this for every comparison, where
    // sscanf's cost showed in every lint.
    constexpr std::string_view prefix = "blk.";
    if (name.compare(0, prefix.size(), prefix) != 0) return -1;
    std::size_t at = prefix.size();
    int layer = 0;
    bool digits = false;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9') {
        if (layer > 100000000) return -1;
        layer = layer * 10 + (name[at] - '0');
        ++at;
        digits = true;
    }
    return digits && at < name.size() && name[at] == '.' ? layer : -1;
}

bool gguf_kv_heads_per_layer(std::string_view arch) {
    return arch == "granitehybrid" || arch == "lfm2";
}

namespace {

/// deepseek2: multi-head latent attention, whose GGUF has one KV head (the latent), whatever
/// heads the record gives.
bool latent_attention(const Model& model) {
    return model.tensors && model.tensors->llama_arch == "deepseek2";
}

}  // namespace

std::int64_t gguf_head_count_kv(const Model& model) {
    return latent_attention(model) ? 1 : *model.kv_heads;
}

bool has_tensor_inventory(const Model& model) {
    return model.tensors && model.num_layers && model.attention_heads && (model.kv_heads || latent_attention(model)) &&
           model.head_dim;
}

namespace {

/// What one architecture's blocks hold beyond the plain llama layer (src/models/<arch>.cpp).
struct Layout {
    bool qkv_bias = false;       ///< qwen2, gpt-oss: biases on q, k and v (f32 in the file)
    bool qk_norm = false;        ///< qwen3, qwen3moe, gemma3, qwen35: a norm of each head's q and k
    bool post_norms = false;     ///< gemma3, glm4: norms after the attention and the feed-forward
    bool ffn_norm = true;        ///< gpt-oss has its post-attention norm in its place
    bool fused_gate_up = false;  ///< glm4: gate and up as one tensor of twice the width
    bool shared_expert = false;  ///< llama4: one shared expert as wide as a routed one
    /// qwen35moe: one shared expert of its own width (shared_expert_ffn_size) and its own gate
    bool gated_shared_expert = false;
    bool biased_moe = false;  ///< gpt-oss: the attention output, router and experts carry biases; sinks
    bool moe = false;         ///< experts in every layer
    bool dense = false;       ///< never experts
    bool output_required = false;
    bool deltanet = false;  ///< qwen35, qwen35moe, qwen3next: Gated DeltaNet layers between gated attention ones
    /// qwen3next: beta and alpha from one projection (ssm_ba), where Qwen3.5 has one each
    bool fused_beta_alpha = false;
    bool mamba2 = false;     ///< granitehybrid: Mamba-2 layers between attention ones
    bool shortconv = false;  ///< lfm2: gated short convolutions between attention ones
    /// deepseek2: multi-head latent attention, dense feed-forwards in the leading layers and
    /// experts with ungated shared ones after them
    bool mla = false;
};

Layout layout_of(const std::string& arch) {
    Layout l;
    l.qkv_bias = arch == "qwen2" || arch == "gpt-oss";
    const bool qwen35 = arch == "qwen35" || arch == "qwen35moe" || arch == "qwen3next";
    l.qk_norm = arch == "qwen3" || arch == "qwen3moe" || arch == "gemma3" || qwen35 || arch == "lfm2";
    l.post_norms = arch == "gemma3" || arch == "glm4";
    l.ffn_norm = arch != "gpt-oss" && !qwen35;
    l.fused_gate_up = arch == "glm4";
    l.shared_expert = arch == "llama4";
    l.gated_shared_expert = arch == "qwen35moe" || arch == "qwen3next";
    l.biased_moe = arch == "gpt-oss";
    l.moe = arch == "qwen3moe" || arch == "llama4" || arch == "gpt-oss" || arch == "qwen35moe" || arch == "qwen3next";
    l.dense = arch == "gemma3" || arch == "glm4" || arch == "qwen35" || arch == "granitehybrid" || arch == "lfm2";
    l.output_required = arch == "gpt-oss";
    l.deltanet = qwen35;
    l.fused_beta_alpha = arch == "qwen3next";
    l.mamba2 = arch == "granitehybrid";
    l.shortconv = arch == "lfm2";
    l.mla = arch == "deepseek2";
    return l;
}

void check_widths(const TensorWidths& w, const Layout& l) {
    const bool moe = w.experts > 0;
    if (l.dense && moe)
        throw std::invalid_argument(fmt::format("a {} model has no experts in llama.cpp", w.llama_arch));
    // Llama 4 Scout has experts in every layer (interleave_moe_layer_step 1); a model that
    // alternates dense and MoE layers (Maverick) is not listed.
    if (l.moe && (!moe || w.expert_ffn_size <= 0)) {
        throw std::invalid_argument(
            fmt::format("a {} model needs experts and expert_ffn_size in every layer", w.llama_arch));
    }
    if (l.gated_shared_expert && w.shared_expert_ffn_size <= 0) {
        throw std::invalid_argument(fmt::format("a {} model needs shared_expert_ffn_size", w.llama_arch));
    }
    if (!l.gated_shared_expert && w.shared_expert_ffn_size > 0) {
        throw std::invalid_argument(fmt::format(
            "shared_expert_ffn_size is a qwen35moe and qwen3next width; a {} model has no such tensor", w.llama_arch));
    }
    if (l.output_required && w.tied_embeddings) {
        throw std::invalid_argument(fmt::format("a {} model has an output matrix of its own", w.llama_arch));
    }
    if (!moe && w.ffn_size <= 0) throw std::invalid_argument("a dense model needs ffn_size");
    const bool deepseek_fields = w.dense_layers > 0 || w.shared_experts > 0 || w.q_lora_rank > 0 || w.expert_score_bias;
    if (!l.mla && deepseek_fields) {
        throw std::invalid_argument(fmt::format(
            "dense_layers, shared_experts, q_lora_rank and expert_score_bias are deepseek2 widths; a {} model has none",
            w.llama_arch));
    }
}

void add_dense_ffn(Inventory& inv, std::int64_t i, const TensorWidths& w, const Layout& l);

/// The MLA widths of a deepseek2 record: the latent, the decoupled RoPE key, and each head's
/// query-key and value widths once the latent is expanded (head_dim and v_head_dim).
struct MlaWidths {
    std::int64_t rank = 0, rope = 0, nope = 0, value = 0;
};

MlaWidths mla_widths(const Model& m) {
    const TensorWidths& w = *m.tensors;
    if (!m.mla || !m.v_head_dim) {
        throw std::invalid_argument(
            "a deepseek2 model needs its mla shape (kv_lora_rank, qk_rope_head_dim) and v_head_dim");
    }
    if (w.experts <= 0 || w.expert_ffn_size <= 0 || w.shared_experts <= 0) {
        throw std::invalid_argument("a deepseek2 model needs experts, expert_ffn_size and shared_experts");
    }
    if (w.dense_layers > 0 && w.ffn_size <= 0) {
        throw std::invalid_argument("a deepseek2 model with dense_layers needs their ffn_size");
    }
    if (w.dense_layers > *m.num_layers) throw std::invalid_argument("dense_layers is more than num_layers");
    MlaWidths r{m.mla->kv_lora_rank, m.mla->qk_rope_head_dim, *m.head_dim - m.mla->qk_rope_head_dim, *m.v_head_dim};
    if (r.nope < 1) throw std::invalid_argument("a deepseek2 model's head_dim must be wider than qk_rope_head_dim");
    return r;
}

/// One layer of a deepseek2 model (src/models/deepseek2.cpp, load_arch_tensors): the queries,
/// compressed or not; the latent and the decoupled key from one projection; the latent's
/// expansion to each head's key and value as two 3-D tensors (conversion/deepseek.py splits
/// kv_b_proj so); then a dense feed-forward or the routed and shared experts.
void add_mla_layer(Inventory& inv, std::int64_t i, const Model& m, const MlaWidths& mla) {
    const TensorWidths& w = *m.tensors;
    const std::int64_t e = w.hidden_size, heads = *m.attention_heads;
    const std::int64_t q_width = checked_mul(heads, checked_add(mla.nope, mla.rope));
    if (w.q_lora_rank > 0) {
        inv.vector(blk(i, "attn_q_a_norm.weight"), w.q_lora_rank);
        inv.matrix(blk(i, "attn_q_a.weight"), e, w.q_lora_rank);
        inv.matrix(blk(i, "attn_q_b.weight"), w.q_lora_rank, q_width);
    } else {
        inv.matrix(blk(i, "attn_q.weight"), e, q_width);
    }
    inv.vector(blk(i, "attn_kv_a_norm.weight"), mla.rank);
    inv.matrix(blk(i, "attn_kv_a_mqa.weight"), e, checked_add(mla.rank, mla.rope));
    inv.experts(blk(i, "attn_k_b.weight"), mla.nope, mla.rank, heads);
    inv.experts(blk(i, "attn_v_b.weight"), mla.rank, mla.value, heads);
    inv.matrix(blk(i, "attn_output.weight"), checked_mul(heads, mla.value), e);
    inv.vector(blk(i, "ffn_norm.weight"), e);
    if (i < w.dense_layers) {
        add_dense_ffn(inv, i, w, Layout{});
        return;
    }
    const std::int64_t ff = w.expert_ffn_size, n = w.experts, shared = checked_mul(ff, w.shared_experts);
    inv.add(blk(i, "ffn_gate_inp.weight"), {e, n, 1}, 2, true);
    if (w.expert_score_bias) inv.vector(blk(i, "exp_probs_b.bias"), n);
    inv.experts(blk(i, "ffn_gate_exps.weight"), e, ff, n);
    inv.experts(blk(i, "ffn_down_exps.weight"), ff, e, n);
    inv.experts(blk(i, "ffn_up_exps.weight"), e, ff, n);
    inv.matrix(blk(i, "ffn_gate_shexp.weight"), e, shared);
    inv.matrix(blk(i, "ffn_down_shexp.weight"), shared, e);
    inv.matrix(blk(i, "ffn_up_shexp.weight"), e, shared);
}

/// Which layers are attention layers in a hybrid, from the record's kv_layers (indices, or an
/// interval and the first index); every layer for a model that is not a hybrid.
std::vector<bool> attention_layers(const Model& m, const Layout& l) {
    const auto n = static_cast<std::size_t>(*m.num_layers);
    if (!l.deltanet && !l.mamba2 && !l.shortconv) return std::vector<bool>(n, true);
    const StateKind want = l.deltanet ? StateKind::gated_deltanet
                           : l.mamba2 ? StateKind::mamba2
                                      : StateKind::short_conv;
    if (!m.linear || m.linear->kind != want || m.linear->beside_attention) {
        throw std::invalid_argument(fmt::format("a {} model needs its {} layers (linear_attention)",
                                                m.tensors->llama_arch,
                                                l.deltanet ? "Gated DeltaNet"
                                                : l.mamba2 ? "Mamba-2"
                                                           : "short convolution"));
    }
    auto places = kv_layer_places(m);
    if (!places) {
        throw std::invalid_argument(
            "a hybrid's record must place its attention layers (kv_layers indices or interval) within its layers");
    }
    return *places;
}

/// A Gated DeltaNet layer of Qwen3.5 (src/models/qwen35.cpp) or Qwen3-Next (qwen3next.cpp, whose
/// converter splits in_proj_qkvz into the same two): the fused q, k and v of the linear attention,
/// its output gate, the short convolution (never quantised), the decay and the update.
void add_deltanet(Inventory& inv, std::int64_t i, std::int64_t e, const LinearShape& lin, const Layout& l) {
    const std::int64_t key = checked_mul(lin.key_head_dim, lin.key_heads);
    const std::int64_t value = checked_mul(lin.value_head_dim, lin.value_heads);
    const std::int64_t conv = checked_add(checked_mul(2, key), value);
    inv.matrix(blk(i, "attn_qkv.weight"), e, conv);
    inv.matrix(blk(i, "attn_gate.weight"), e, value);
    inv.add(blk(i, "ssm_conv1d.weight"), {lin.conv_kernel, conv, 1}, 2, true);
    inv.vector(blk(i, "ssm_dt.bias"), lin.value_heads);
    inv.vector(blk(i, "ssm_a"), lin.value_heads);
    if (l.fused_beta_alpha) {
        // src/models/qwen3next.cpp: ba_dim = n_v_heads * 2.
        inv.matrix(blk(i, "ssm_ba.weight"), e, checked_mul(2, lin.value_heads));
    } else {
        inv.matrix(blk(i, "ssm_beta.weight"), e, lin.value_heads);
        inv.matrix(blk(i, "ssm_alpha.weight"), e, lin.value_heads);
    }
    inv.vector(blk(i, "ssm_norm.weight"), lin.value_head_dim);
    inv.matrix(blk(i, "ssm_out.weight"), value, e);
}

/// A Mamba-2 layer of Granite-4.0-H (src/models/granite-hybrid.cpp): key heads are the groups of
/// d_state, value heads the SSM heads of d_head; in_proj makes x, z, B, C and dt.
void add_mamba2(Inventory& inv, std::int64_t i, std::int64_t e, const LinearShape& lin) {
    const std::int64_t inner = checked_mul(lin.value_heads, lin.value_head_dim);
    const std::int64_t groups = lin.key_heads, d_state = lin.key_head_dim, heads = lin.value_heads;
    const std::int64_t conv = checked_add(inner, checked_mul(2, checked_mul(groups, d_state)));
    inv.matrix(blk(i, "ssm_in.weight"), e, checked_add(checked_add(inner, conv), heads));
    inv.add(blk(i, "ssm_conv1d.weight"), {lin.conv_kernel, conv, 1}, 2, true);
    inv.vector(blk(i, "ssm_conv1d.bias"), conv);
    inv.vector(blk(i, "ssm_dt.bias"), heads);
    inv.add(blk(i, "ssm_a"), {1, heads, 1}, 2, true);
    inv.add(blk(i, "ssm_d"), {1, heads, 1}, 2, true);
    inv.add(blk(i, "ssm_norm.weight"), {inner / groups, groups, 1}, 2, true);
    inv.matrix(blk(i, "ssm_out.weight"), inner, e);
}

/// A gated short convolution of LFM2 (src/models/lfm2.cpp): in_proj makes B, C and x over the
/// embedding's width, the convolution's kernel (f32, which the converter and llama-quantize both
/// leave) runs over the last conv_L_cache inputs, and out_proj returns to the embedding.
void add_shortconv(Inventory& inv, std::int64_t i, std::int64_t e, const LinearShape& lin) {
    if (lin.inner_dim != e) {
        throw std::invalid_argument(fmt::format(
            "an lfm2 model's short convolution runs over the embedding's {} channels, not {}", e, lin.inner_dim));
    }
    inv.add(blk(i, "shortconv.conv.weight"), {lin.conv_kernel, e, 1}, 2, true);
    inv.matrix(blk(i, "shortconv.in_proj.weight"), e, checked_mul(3, e));
    inv.matrix(blk(i, "shortconv.out_proj.weight"), e, e);
}

/// The experts of one layer: router, routed experts, and what the architecture adds.
void add_experts(Inventory& inv, std::int64_t i, const TensorWidths& w, const Layout& l) {
    const std::int64_t e = w.hidden_size, ff = w.expert_ffn_size, n = w.experts;
    // The router stays f32 (a 2-D tensor the converter and llama-quantize both leave).
    inv.add(blk(i, "ffn_gate_inp.weight"), {e, n, 1}, 2, true);
    inv.experts(blk(i, "ffn_gate_exps.weight"), e, ff, n);
    inv.experts(blk(i, "ffn_down_exps.weight"), ff, e, n);
    inv.experts(blk(i, "ffn_up_exps.weight"), e, ff, n);
    if (l.biased_moe) {
        inv.vector(blk(i, "ffn_gate_inp.bias"), n);
        inv.add(blk(i, "ffn_gate_exps.bias"), {ff, n, 1}, 2, true);
        inv.add(blk(i, "ffn_down_exps.bias"), {e, n, 1}, 2, true);
        inv.add(blk(i, "ffn_up_exps.bias"), {ff, n, 1}, 2, true);
    }
    if (l.shared_expert) {
        inv.matrix(blk(i, "ffn_gate_shexp.weight"), e, ff);
        inv.matrix(blk(i, "ffn_down_shexp.weight"), ff, e);
        inv.matrix(blk(i, "ffn_up_shexp.weight"), e, ff);
    }
    if (l.gated_shared_expert) {
        // src/models/qwen35moe.cpp: the shared expert's gate is one f32 vector of the width.
        const std::int64_t shared = w.shared_expert_ffn_size;
        inv.vector(blk(i, "ffn_gate_inp_shexp.weight"), e);
        inv.matrix(blk(i, "ffn_gate_shexp.weight"), e, shared);
        inv.matrix(blk(i, "ffn_down_shexp.weight"), shared, e);
        inv.matrix(blk(i, "ffn_up_shexp.weight"), e, shared);
    }
}

void add_dense_ffn(Inventory& inv, std::int64_t i, const TensorWidths& w, const Layout& l) {
    const std::int64_t e = w.hidden_size, ff = w.ffn_size;
    if (l.fused_gate_up) {
        inv.matrix(blk(i, "ffn_up.weight"), e, checked_mul(2, ff));
    } else {
        inv.matrix(blk(i, "ffn_gate.weight"), e, ff);
        inv.matrix(blk(i, "ffn_up.weight"), e, ff);
    }
    inv.matrix(blk(i, "ffn_down.weight"), ff, e);
}

}  // namespace

std::vector<GgufTensorShape> llamacpp_tensors(const Model& model) {
    if (!model.tensors) {
        throw std::invalid_argument(
            "the model record has no tensors mapping (llama_arch, hidden_size, ffn_size, vocab_size, "
            "tied_embeddings)");
    }
    if (!has_tensor_inventory(model)) {
        throw std::invalid_argument("the model record lacks num_layers, attention_heads, kv_heads or head_dim");
    }
    if (*model.num_layers > kLlamaMaxLayers) {
        throw std::invalid_argument(
            fmt::format("num_layers is {}, but llama.cpp holds at most {} (LLAMA_MAX_LAYERS, "
                        "src/llama-hparams.h): no GGUF of this record can be loaded",
                        *model.num_layers, kLlamaMaxLayers));
    }
    const TensorWidths& w = *model.tensors;
    const std::string& arch = w.llama_arch;
    if (std::find(kGgufArchNames.begin(), kGgufArchNames.end(), arch) == kGgufArchNames.end()) {
        throw std::invalid_argument(fmt::format("kvcat lists no tensors for the llama.cpp architecture '{}'", arch));
    }
    const Layout l = layout_of(arch);
    check_widths(w, l);
    const std::int64_t e = w.hidden_size, heads = *model.attention_heads, kv = model.kv_heads.value_or(0);
    const std::int64_t hk = *model.head_dim, hv = model.v_head_dim.value_or(hk);

    // At most twenty tensors a layer (a Gated DeltaNet layer with routed and shared experts).
    Inventory inv(8 + static_cast<std::size_t>(*model.num_layers) * 20);
    inv.matrix("token_embd.weight", e, w.vocab_size);
    // LFM2's final norm keeps the name its converter first gave it (LLM_TENSOR_OUTPUT_NORM_LFM2).
    inv.vector(l.shortconv ? "token_embd_norm.weight" : "output_norm.weight", e);
    if (!w.tied_embeddings) inv.matrix("output.weight", e, w.vocab_size);
    if (w.rope_freqs) inv.vector("rope_freqs.weight", hk / 2);
    if (l.mla) {
        const MlaWidths mla = mla_widths(model);
        for (std::int64_t i = 0; i < *model.num_layers; ++i) {
            inv.vector(blk(i, "attn_norm.weight"), e);
            add_mla_layer(inv, i, model, mla);
        }
        return std::move(inv).sorted();
    }
    const std::vector<bool> attention = attention_layers(model, l);
    for (std::int64_t i = 0; i < *model.num_layers; ++i) {
        inv.vector(blk(i, "attn_norm.weight"), e);
        if (!attention[static_cast<std::size_t>(i)]) {
            if (l.deltanet) {
                add_deltanet(inv, i, e, *model.linear, l);
                inv.vector(blk(i, "post_attention_norm.weight"), e);
            } else if (l.shortconv) {
                add_shortconv(inv, i, e, *model.linear);
                inv.vector(blk(i, "ffn_norm.weight"), e);
            } else {
                add_mamba2(inv, i, e, *model.linear);
                inv.vector(blk(i, "ffn_norm.weight"), e);
            }
            if (w.experts > 0) {
                add_experts(inv, i, w, l);
            } else {
                add_dense_ffn(inv, i, w, l);
            }
            continue;
        }
        // Qwen3.5's attention is gated: its q projection makes the queries and the gate.
        inv.matrix(blk(i, "attn_q.weight"), e, heads * hk * (l.deltanet ? 2 : 1));
        inv.matrix(blk(i, "attn_k.weight"), e, kv * hk);
        inv.matrix(blk(i, "attn_v.weight"), e, kv * hv);
        inv.matrix(blk(i, "attn_output.weight"), heads * hv, e);
        if (l.qkv_bias) {
            // The converter keeps biases in f32.
            inv.vector(blk(i, "attn_q.bias"), heads * hk);
            inv.vector(blk(i, "attn_k.bias"), kv * hk);
            inv.vector(blk(i, "attn_v.bias"), kv * hv);
        }
        if (l.biased_moe) {
            inv.vector(blk(i, "attn_output.bias"), e);
            inv.vector(blk(i, "attn_sinks.weight"), heads);
        }
        if (l.qk_norm) {
            inv.vector(blk(i, "attn_q_norm.weight"), hk);
            inv.vector(blk(i, "attn_k_norm.weight"), hk);
        }
        // gpt-oss's post-attention norm stands where the others have ffn_norm; gemma3 and glm4
        // have both, and one more after the feed-forward.
        if (l.post_norms || !l.ffn_norm || l.deltanet) inv.vector(blk(i, "post_attention_norm.weight"), e);
        if (l.post_norms) inv.vector(blk(i, "post_ffw_norm.weight"), e);
        if (l.ffn_norm) inv.vector(blk(i, "ffn_norm.weight"), e);
        if (w.experts > 0) {
            add_experts(inv, i, w, l);
        } else {
            add_dense_ffn(inv, i, w, l);
        }
    }
    return std::move(inv).sorted();
}

}  // namespace kvcat
