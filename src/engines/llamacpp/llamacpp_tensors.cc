#include "engines/llamacpp/llamacpp_tensors.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

#include "vocab/gguf_arch.h"

namespace kvcat {

namespace {

class Inventory {
  public:
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
        std::sort(tensors_.begin(), tensors_.end(), [](const GgufTensorShape& a, const GgufTensorShape& b) {
            int la = gguf_block_of(a.name), lb = gguf_block_of(b.name);
            return la != lb ? la < lb : a.name < b.name;
        });
        return std::move(tensors_);
    }

  private:
    std::vector<GgufTensorShape> tensors_;
};

std::string blk(std::int64_t i, const char* name) {
    return fmt::format("blk.{}.{}", i, name);
}

}  // namespace

int gguf_block_of(const std::string& name) {
    int layer = -1;
    if (std::sscanf(name.c_str(), "blk.%d.", &layer) != 1) return -1;
    return layer;
}

bool has_tensor_inventory(const Model& model) {
    return model.tensors && model.num_layers && model.attention_heads && model.kv_heads && model.head_dim;
}

std::vector<GgufTensorShape> llamacpp_tensors(const Model& model) {
    if (!model.tensors) {
        throw std::invalid_argument(
            "the model record has no tensors mapping (llama_arch, hidden_size, ffn_size, vocab_size, "
            "tied_embeddings)");
    }
    if (!has_tensor_inventory(model)) {
        throw std::invalid_argument("the model record lacks num_layers, attention_heads, kv_heads or head_dim");
    }
    const TensorWidths& w = *model.tensors;
    const std::string& arch = w.llama_arch;
    if (std::find(kGgufArchNames.begin(), kGgufArchNames.end(), arch) == kGgufArchNames.end()) {
        throw std::invalid_argument(fmt::format("kvcat lists no tensors for the llama.cpp architecture '{}'", arch));
    }
    const bool moe = w.experts > 0;
    if (arch == "qwen3moe" && !moe) throw std::invalid_argument("a qwen3moe model needs experts and expert_ffn_size");
    if (!moe && w.ffn_size <= 0) throw std::invalid_argument("a dense model needs ffn_size");
    const std::int64_t e = w.hidden_size, heads = *model.attention_heads, kv = *model.kv_heads;
    const std::int64_t hk = *model.head_dim, hv = model.v_head_dim.value_or(hk);

    Inventory inv;
    inv.matrix("token_embd.weight", e, w.vocab_size);
    inv.vector("output_norm.weight", e);
    if (!w.tied_embeddings) inv.matrix("output.weight", e, w.vocab_size);
    if (w.rope_freqs) inv.vector("rope_freqs.weight", hk / 2);
    for (std::int64_t i = 0; i < *model.num_layers; ++i) {
        inv.vector(blk(i, "attn_norm.weight"), e);
        inv.matrix(blk(i, "attn_q.weight"), e, heads * hk);
        inv.matrix(blk(i, "attn_k.weight"), e, kv * hk);
        inv.matrix(blk(i, "attn_v.weight"), e, kv * hv);
        inv.matrix(blk(i, "attn_output.weight"), heads * hv, e);
        if (arch == "qwen2") {
            // Qwen2's q, k and v projections carry biases; conversion keeps them in f32.
            inv.vector(blk(i, "attn_q.bias"), heads * hk);
            inv.vector(blk(i, "attn_k.bias"), kv * hk);
            inv.vector(blk(i, "attn_v.bias"), kv * hv);
        }
        if (arch == "qwen3" || arch == "qwen3moe") {
            inv.vector(blk(i, "attn_q_norm.weight"), hk);
            inv.vector(blk(i, "attn_k_norm.weight"), hk);
        }
        inv.vector(blk(i, "ffn_norm.weight"), e);
        if (moe) {
            // The router stays f32 (a 2-D tensor the converter and llama-quantize both leave).
            inv.add(blk(i, "ffn_gate_inp.weight"), {e, w.experts, 1}, 2, true);
            inv.experts(blk(i, "ffn_gate_exps.weight"), e, w.expert_ffn_size, w.experts);
            inv.experts(blk(i, "ffn_down_exps.weight"), w.expert_ffn_size, e, w.experts);
            inv.experts(blk(i, "ffn_up_exps.weight"), e, w.expert_ffn_size, w.experts);
        } else {
            inv.matrix(blk(i, "ffn_gate.weight"), e, w.ffn_size);
            inv.matrix(blk(i, "ffn_down.weight"), w.ffn_size, e);
            inv.matrix(blk(i, "ffn_up.weight"), e, w.ffn_size);
        }
    }
    return std::move(inv).sorted();
}

}  // namespace kvcat
