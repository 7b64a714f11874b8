#include "engines/llamacpp/llamacpp_graph.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engines/llamacpp/ggml_graph_builder.h"
#include "model/kv_math.h"
#include "support/rational.h"

namespace kvcat {

namespace {

/// The architectures whose layers are built here (src/models/<arch>.cpp at the pinned commit).
const std::vector<std::string> kArchitectures = {"llama",         "qwen2",  "qwen3",    "qwen3moe", "gpt-oss",
                                                 "glm4",          "gemma3", "llama4",   "qwen35",   "qwen35moe",
                                                 "granitehybrid", "lfm2",   "qwen3next"};

using Dims = LlamaGraphDims;

/// The cache types llama.cpp takes (common/arg.cpp, kv_cache_types), each built here; fp32 and fp16
/// are the catalog's names of f32 and f16.
std::optional<GgmlType> cache_type(const std::string& name) {
    static const std::vector<std::pair<std::string, GgmlType>> kTypes = {
        {"f32", GgmlType::f32},   {"fp32", GgmlType::f32},  {"f16", GgmlType::f16},      {"fp16", GgmlType::f16},
        {"bf16", GgmlType::bf16}, {"q8_0", GgmlType::q8_0}, {"q4_0", GgmlType::q4_0},    {"q4_1", GgmlType::q4_1},
        {"q5_0", GgmlType::q5_0}, {"q5_1", GgmlType::q5_1}, {"iq4_nl", GgmlType::iq4_nl}};
    for (const auto& [n, t] : kTypes) {
        if (n == name) return t;
    }
    return std::nullopt;
}

class LlamaGraph {
  public:
    LlamaGraph(const Dims& d, const LlamaGraphSetting& s) : d_(d) {
        streams_ = s.unified ? 1 : std::max<std::int64_t>(1, s.seqs);
        seqs_ = std::max<std::int64_t>(1, s.seqs);
        std::int64_t tokens = std::max<std::int64_t>(1, s.tokens);
        // graph_reserve: n_tokens rounded up to a multiple of n_seqs.
        tokens_ = (tokens + seqs_ - 1) / seqs_ * seqs_;
        outputs_ = s.outputs > 0 ? std::min(s.outputs, tokens) : tokens;
        cells_ = s.cells_per_stream;
        swa_cells_ = s.swa_cells_per_stream;
        rows_in_layer_ = s.rows_in_layer;
        flash_ = s.flash_attn;
        tk_ = *cache_type(s.cache_k);
        tv_ = *cache_type(s.cache_v);
        // src/llama-kv-cache.cpp: a quantized K or V is rotated by a Hadamard matrix (attn_rot_k,
        // attn_rot_v) when its head width is a multiple of 64; K's is the largest power of two
        // from 64 dividing the width, V's is 64 (build_input_k_rot, build_input_v_rot).
        if (ggml_type_quantized(tk_) && d.hd_k % 64 == 0) {
            rot_k_ = 64;
            while (d.hd_k % (rot_k_ * 2) == 0) rot_k_ *= 2;
        }
        if (ggml_type_quantized(tv_) && d.hd_v % 64 == 0) rot_v_ = 64;
    }

    GgmlGraph build() {
        int inp = embeddings();
        if (d_.granite) {
            // build_inp_embd: Granite's embedding scale, materialized at once
            inp = b_.scale(inp);
            b_.expand(inp);
        }
        if (llamacpp_reads_recurrent_rows(d_.arch)) recurrent_inputs();
        if (const std::int64_t positions = llamacpp_positions_per_token(d_.arch); positions > 0) {
            pos_ = b_.input("inp_pos", GgmlType::i32, {checked_mul(tokens_, positions), 1, 1, 1});
        }
        // build_inp_attn_scale: the full layers' query temperature, one a token
        if (d_.llama4) attn_scale_ = b_.input("attn_scale", GgmlType::f32, {1, 1, tokens_, 1});
        // build_attn_inp_kv (build_attn_inp_kv_iswa: the full cache's, then the window's)
        for (int c = 0; c < caches(); ++c) {
            k_idxs_[c] = b_.input("k_idxs", GgmlType::i64, {tokens_, 1, 1, 1});
            v_idxs_[c] = b_.input("v_idxs", GgmlType::i64, {flash_ ? tokens_ : checked_mul(tokens_, gqa_v()), 1, 1, 1});
            mask_[c] = b_.input("attn_inp_kq_mask", flash_ ? GgmlType::f16 : GgmlType::f32,
                                {c == 0 ? cells_ : swa_cells_, tokens_ / streams_, 1, streams_});
        }
        for (int c = 0; c < caches(); ++c) {
            if (rot_k_ > 0) k_rot_[c] = b_.input("attn_inp_k_rot", GgmlType::f32, {rot_k_, rot_k_, 1, 1});
            if (rot_v_ > 0) v_rot_[c] = b_.input("attn_inp_v_rot", GgmlType::f32, {rot_v_, rot_v_, 1, 1});
        }
        out_ids_ = b_.input("inp_out_ids", GgmlType::i32, {outputs_, 1, 1, 1});
        if (d_.rope_freqs) rope_freqs_ = weight("rope_freqs.weight", {d_.hd_k / 2});
        if (d_.gemma3) inp = b_.scale(inp);  // by sqrt(n_embd)
        for (std::int64_t il = 0; il < d_.n_layer; ++il) {
            inp = d_.gpt_oss    ? gpt_oss_layer(il, inp)
                  : d_.gemma3   ? gemma3_layer(il, inp)
                  : d_.llama4   ? llama4_layer(il, inp)
                  : d_.deltanet ? qwen35_layer(il, inp)
                  : d_.granite  ? granite_layer(il, inp)
                  : d_.lfm2     ? lfm2_layer(il, inp)
                                : layer(il, inp);
        }
        if (d_.gpt_oss && !rows_in_layer_) {
            // t_h_nextn: the last hidden state is an output; the rows kept are taken after it.
            b_.set_output(inp);
            inp = b_.get_rows(inp, out_ids_);
        }
        int cur = norm(inp, weight(d_.lfm2 ? "token_embd_norm.weight" : "output_norm.weight", {d_.n_embd}));
        if (d_.deltanet && !rows_in_layer_) {
            // Qwen 3.5's t_h_nextn is the normed state, an output; the rows are taken after it
            // (cparams.embeddings_nextn_masked is false).
            b_.set_output(cur);
            cur = b_.get_rows(cur, out_ids_);
        }
        b_.name(cur, "result_norm");
        int logits = b_.mul_mat(weight("output.weight", {d_.n_embd, d_.n_vocab}), cur);
        if (d_.granite) logits = b_.scale(logits);  // by 1 / f_logit_scale
        b_.name(logits, "result_output");
        b_.expand(logits);
        b_.set_output(logits);
        b_.set_output(cur);
        return b_.take();
    }

  private:
    std::int64_t gqa_k() const { return d_.hd_k * d_.n_head_kv; }
    /// One cache, or a full one and a sliding window's (llama_kv_cache_iswa).
    int caches() const { return d_.swa_period > 0 ? 2 : 1; }
    bool slides(std::int64_t il) const { return d_.swa_period > 0 && il % d_.swa_period < d_.swa_period - 1; }
    std::int64_t gqa_v() const { return d_.hd_v * d_.n_head_kv; }
    int weight(const std::string& name, GgmlBuilder::Ne ne) {
        for (auto& n : ne) n = n == 0 ? 1 : n;
        return b_.external(name, GgmlType::f32, ne);
    }
    int view2d(int a, std::int64_t ne0, std::int64_t ne1, std::int64_t nb1, std::int64_t offset) {
        return b_.view(a, {ne0, ne1, 1, 1}, {nb1, checked_mul(nb1, ne1), checked_mul(nb1, ne1)}, offset);
    }
    int view4d(int a, GgmlBuilder::Ne ne, std::array<std::int64_t, 3> nb, std::int64_t offset = 0) {
        return b_.view(a, ne, nb, offset);
    }
    /// ggml_view_3d: the fourth stride follows from the third.
    int view3d(int a, GgmlBuilder::Ne ne, std::int64_t nb1, std::int64_t nb2, std::int64_t offset) {
        return b_.view(a, ne, {nb1, nb2, checked_mul(nb2, ne[2])}, offset);
    }
    int norm(int x, int w) { return b_.mul(b_.rms_norm(x), w); }
    int layer_weight(std::int64_t il, const std::string& name, GgmlBuilder::Ne ne) {
        return weight(fmt::format("blk.{}.{}", il, name), ne);
    }

    struct Qkv {
        int q, k, v;
    };
    /// build_qkv's separate path: Q, K and V projected (with biases where the model has them) and
    /// shaped into heads.
    Qkv qkv(std::int64_t il, int cur, bool bias) {
        auto project = [&](const char* name, std::int64_t width) {
            int x = b_.mul_mat(layer_weight(il, fmt::format("attn_{}.weight", name), {d_.n_embd, width}), cur);
            return bias ? b_.add(x, layer_weight(il, fmt::format("attn_{}.bias", name), {width})) : x;
        };
        int q = project("q", d_.n_head * d_.hd_k);
        int k = project("k", gqa_k());
        int v = project("v", gqa_v());
        return {b_.reshape(q, {d_.hd_k, d_.n_head, tokens_, 1}), b_.reshape(k, {d_.hd_k, d_.n_head_kv, tokens_, 1}),
                b_.reshape(v, {d_.hd_v, d_.n_head_kv, tokens_, 1})};
    }

    /// In the last layer (when `take`), only the output rows of the layer's result and of its
    /// residual go on (the `inp_out_ids` get_rows every model file makes there).
    std::pair<int, int> last_rows(std::int64_t il, int cur, int res, bool take = true) {
        if (take && il == d_.n_layer - 1) return {b_.get_rows(cur, out_ids_), b_.get_rows(res, out_ids_)};
        return {cur, res};
    }

    /// The attention's output projection (with its bias where the model has one), and in the last
    /// layer only the output rows of it and of the residual.
    std::pair<int, int> projected(std::int64_t il, int cur, int res, bool bias = false, bool rows = true) {
        cur = b_.mul_mat(layer_weight(il, "attn_output.weight", {d_.n_head * d_.hd_v, d_.n_embd}), cur);
        if (bias) cur = b_.add(cur, layer_weight(il, "attn_output.bias", {d_.n_embd}));
        return last_rows(il, cur, res, rows);
    }

    /// build_ffn with a parallel gate: down(act(gate(x)) x up(x)), SwiGLU or GeGLU alike for the
    /// allocator; `suffix` names a shared expert's ("_shexp").
    int gated_ffn(std::int64_t il, int cur, std::int64_t width, const char* suffix = "") {
        int up = b_.mul_mat(layer_weight(il, fmt::format("ffn_up{}.weight", suffix), {d_.n_embd, width}), cur);
        int gate = b_.mul_mat(layer_weight(il, fmt::format("ffn_gate{}.weight", suffix), {d_.n_embd, width}), cur);
        return b_.mul_mat(layer_weight(il, fmt::format("ffn_down{}.weight", suffix), {width, d_.n_embd}),
                          b_.glu(gate, up));
    }

    /// build_inp_embd: the token path and the embeddings path are both in the graph (the
    /// second through ggml_build_forward_select), so both inputs are leafs.
    int embeddings() {
        int tok_embd = weight("token_embd.weight", {d_.n_embd, d_.n_vocab});
        int tokens = b_.input("inp_tokens", GgmlType::i32, {tokens_, 1, 1, 1});
        int embd = b_.input("inp_embd", GgmlType::f32, {d_.n_embd, tokens_, 1, 1});
        int rows = b_.get_rows(tok_embd, tokens);
        b_.expand(rows);
        b_.expand(embd);
        return rows;
    }

    int layer(std::int64_t il, int inp) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        int cur = norm(inp, w("attn_norm.weight", {d_.n_embd}));
        auto [q, k, v] = qkv(il, cur, d_.qkv_bias);
        if (d_.qk_norm) q = norm(q, w("attn_q_norm.weight", {d_.hd_k}));
        q = b_.rope(q, pos_, rope_freqs_);
        if (d_.qk_norm) k = norm(k, w("attn_k_norm.weight", {d_.hd_k}));
        k = b_.rope(k, pos_, rope_freqs_);
        int inp_sa;
        std::tie(cur, inp_sa) = projected(il, attention(il, q, k, v), inp);
        if (d_.glm4) cur = norm(cur, w("post_attention_norm.weight", {d_.n_embd}));
        int ffn_inp = b_.add(cur, inp_sa);
        cur = norm(ffn_inp, w("ffn_norm.weight", {d_.n_embd}));
        if (d_.glm4) {
            int up = b_.mul_mat(w("ffn_up.weight", {d_.n_embd, 2 * d_.n_ff}), cur);
            cur = b_.mul_mat(w("ffn_down.weight", {d_.n_ff, d_.n_embd}), b_.glu_halves(up));
            cur = norm(cur, w("post_ffw_norm.weight", {d_.n_embd}));
        } else if (d_.n_expert > 0) {
            cur = moe(il, cur);
        } else {
            cur = gated_ffn(il, cur, d_.n_ff);
        }
        return b_.add(cur, ffn_inp);
    }

    /// llama_mul_mat_hadamard (src/llama-impl.h).
    int hadamard(int cur, int rot) {
        const std::int64_t n = b_.ne(rot)[0];
        auto ne = b_.ne(cur);
        std::int64_t elements = checked_mul(checked_mul(ne[0], ne[1]), checked_mul(ne[2], ne[3]));
        int flat =
            b_.is_contiguous(cur) ? b_.reshape(cur, {n, elements / n, 1, 1}) : b_.cont(cur, {n, elements / n, 1, 1});
        return b_.reshape(b_.mul_mat(rot, flat), ne);
    }

    /// build_attn with a cache: store K and V in it (cpy_k, cpy_v), then attend over its views; a
    /// sliding layer over the sliding window's cache, inputs and mask.
    int attention(std::int64_t il, int q, int k, int v, bool swa = false) {
        const int c = swa ? 1 : 0;
        if (k_rot_[c] >= 0) {
            q = hadamard(q, k_rot_[c]);
            k = hadamard(k, k_rot_[c]);
        }
        if (v_rot_[c] >= 0) v = hadamard(v, v_rot_[c]);
        b_.expand(q);
        if (caches() == 2) {
            // build_attn over llm_graph_input_attn_kv_iswa expands K before V.
            b_.expand(k);
            b_.expand(v);
        } else {
            b_.expand(v);
            b_.expand(k);
        }
        const std::int64_t cells = swa ? swa_cells_ : cells_;
        const int k_idxs = k_idxs_[c], v_idxs = v_idxs_[c];
        mask_now_ = mask_[c];
        int kc = b_.external(fmt::format("cache_k_l{}", il), tk_, {gqa_k(), cells, streams_, 1});
        int vc = b_.external(fmt::format("cache_v_l{}", il), tv_, {gqa_v(), cells, streams_, 1});
        auto rk = [&](std::int64_t n) { return ggml_row_bytes(tk_, n); };
        auto rv = [&](std::int64_t n) { return ggml_row_bytes(tv_, n); };
        {
            int src = view2d(k, gqa_k(), tokens_, b_.nb(k)[2], 0);
            int dst = streams_ > 1 ? b_.reshape(kc, {gqa_k(), checked_mul(cells, streams_), 1, 1}) : kc;
            b_.expand(b_.set_rows(dst, src, k_idxs));
        }
        if (flash_) {
            int src = view2d(v, gqa_v(), tokens_, b_.nb(v)[2], 0);
            int dst = streams_ > 1 ? b_.reshape(vc, {gqa_v(), checked_mul(cells, streams_), 1, 1}) : vc;
            b_.expand(b_.set_rows(dst, src, v_idxs));
        } else {
            // V is kept transposed: each element is a row of its own.
            int src = b_.reshape(v, {gqa_v(), tokens_, 1, 1});
            std::int64_t elements = checked_mul(checked_mul(gqa_v(), cells), streams_);
            int dst = b_.reshape(vc, {1, elements, 1, 1});
            src = b_.reshape(src, {1, checked_mul(gqa_v(), tokens_), 1, 1});
            b_.expand(b_.set_rows(dst, src, v_idxs));
        }
        int kv = view4d(kc, {d_.hd_k, d_.n_head_kv, cells, streams_},
                        {rk(d_.hd_k), rk(gqa_k()), rk(checked_mul(gqa_k(), cells))});
        int vv = flash_ ? view4d(vc, {d_.hd_v, d_.n_head_kv, cells, streams_},
                                 {rv(d_.hd_v), rv(gqa_v()), rv(checked_mul(gqa_v(), cells))})
                        : view4d(vc, {cells, d_.n_head_kv, d_.hd_v, streams_},
                                 {rv(checked_mul(cells, d_.hd_v)), rv(cells), rv(checked_mul(cells, gqa_v()))});
        int out = mha(q, kv, vv, il);
        return v_rot_[c] >= 0 ? hadamard(out, v_rot_[c]) : out;
    }

    /// build_attn_mha.
    int mha(int q, int k, int v, std::int64_t il) {
        const std::int64_t ns = b_.ne(k)[3];
        auto qne = b_.ne(q);
        auto qnb = b_.nb(q);
        q = view4d(q, {qne[0], qne[1], qne[2] / ns, ns}, {qnb[1], qnb[2], qnb[3] / ns});
        q = b_.permute(q, 0, 2, 1, 3);
        k = b_.permute(k, 0, 2, 1, 3);
        v = b_.permute(v, 0, 2, 1, 3);
        int cur;
        if (flash_) {
            // flash attention takes an f32 K or V as an f16 copy
            if (tk_ == GgmlType::f32) k = b_.cast(k, GgmlType::f16);
            if (tv_ == GgmlType::f32) v = b_.cast(v, GgmlType::f16);
            cur = b_.flash_attn_ext(q, k, v, mask_now_, sinks(il));
            auto n = b_.ne(cur);
            cur = b_.reshape(cur, {n[0] * n[1], n[2] * n[3], 1, 1});
        } else {
            int kq = b_.soft_max(b_.mul_mat(k, q), mask_now_, sinks(il));
            int kqv = b_.mul_mat(v, kq);
            cur = b_.permute(kqv, 0, 2, 1, 3);
            auto n = b_.ne(cur);
            cur = b_.cont(cur, {n[0] * n[1], n[2] * n[3], 1, 1});
        }
        b_.expand(cur);
        return cur;
    }

    /// gpt-oss's attention sinks (ggml_flash_attn_ext_add_sinks, ggml_soft_max_add_sinks).
    int sinks(std::int64_t il) {
        return d_.gpt_oss ? weight(fmt::format("blk.{}.attn_sinks.weight", il), {d_.n_head}) : -1;
    }

    /// src/models/openai-moe.cpp: a layer of gpt-oss.
    int gpt_oss_layer(std::int64_t il, int inp) {
        int cur = norm(inp, layer_weight(il, "attn_norm.weight", {d_.n_embd}));
        auto [q, k, v] = qkv(il, cur, true);
        q = b_.rope(q, pos_, -1);
        k = b_.rope(k, pos_, -1);
        // set_swa_pattern(2): every other layer slides, the first among them
        std::tie(cur, inp) = projected(il, attention(il, q, k, v, slides(il)), inp, true, rows_in_layer_);
        int ffn_inp = b_.add(cur, inp);
        cur = moe(il, norm(ffn_inp, layer_weight(il, "post_attention_norm.weight", {d_.n_embd})));
        return b_.add(cur, ffn_inp);
    }

    /// src/models/gemma3.cpp: a layer of Gemma 3.
    int gemma3_layer(std::int64_t il, int inp) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        int cur = norm(inp, w("attn_norm.weight", {d_.n_embd}));
        auto [q, k, v] = qkv(il, cur, false);
        q = b_.rope(norm(q, w("attn_q_norm.weight", {d_.hd_k})), pos_, -1);
        k = b_.rope(norm(k, w("attn_k_norm.weight", {d_.hd_k})), pos_, -1);
        q = b_.scale(q);  // by f_attention_scale
        std::tie(cur, inp) = projected(il, attention(il, q, k, v, slides(il)), inp);
        cur = norm(cur, w("post_attention_norm.weight", {d_.n_embd}));
        int sa_out = b_.add(cur, inp);
        cur = gated_ffn(il, norm(sa_out, w("ffn_norm.weight", {d_.n_embd})), d_.n_ff);
        cur = norm(cur, w("post_ffw_norm.weight", {d_.n_embd}));
        return b_.add(cur, sa_out);
    }

    /// src/models/llama4.cpp: a layer of Llama 4, experts in every layer.
    int llama4_layer(std::int64_t il, int inp) {
        const bool rope = (il + 1) % 4 != 0;  // n_no_rope_layer_step 4
        int cur = norm(inp, layer_weight(il, "attn_norm.weight", {d_.n_embd}));
        auto [q, k, v] = qkv(il, cur, false);
        if (rope) {
            q = b_.rope(q, pos_, rope_freqs_);
            k = b_.rope(k, pos_, rope_freqs_);
            if (d_.qk_norm) {
                q = b_.rms_norm(q);
                k = b_.rms_norm(k);
            }
        } else {
            q = b_.mul(q, attn_scale_);
        }
        int inp_sa;
        std::tie(cur, inp_sa) = projected(il, attention(il, q, k, v, slides(il)), inp);
        int ffn_inp = b_.add(cur, inp_sa);
        int normed = norm(ffn_inp, layer_weight(il, "ffn_norm.weight", {d_.n_embd}));
        cur = b_.add(moe(il, normed), gated_ffn(il, normed, d_.n_ff_exp, "_shexp"));
        return b_.add(cur, ffn_inp);
    }

    /// build_rs_inp_impl: one row index a row of the recurrent memory, which the reserve sees full
    /// (llama_memory_recurrent_context with is_full: n_rs is the memory's size, max(1, n_seq_max)).
    void recurrent_inputs() {
        int s_copy = b_.input("inp_s_copy", GgmlType::i32, {seqs_, 1, 1, 1});
        s_copy_main_ = view4d(s_copy, {seqs_, 1, 1, 1}, {4 * seqs_, 4 * seqs_, 4 * seqs_});
        s_copy_extra_ = view4d(s_copy, {0, 1, 1, 1}, {0, 0, 0}, 4 * seqs_);
    }

    /// src/models/qwen35.cpp and qwen35moe.cpp: a layer of Qwen 3.5, gated attention or Gated DeltaNet.
    int qwen35_layer(std::int64_t il, int inp) {
        int cur = norm(inp, layer_weight(il, "attn_norm.weight", {d_.n_embd}));
        b_.expand(cur);
        if (!d_.attends[static_cast<std::size_t>(il)]) {
            cur = deltanet(il, cur);
        } else {
            cur = d_.qwen3next ? next_attention(il, cur) : gated_attention(il, cur);
        }
        std::tie(cur, inp) = last_rows(il, cur, inp, rows_in_layer_);
        int ffn_residual = b_.add(cur, inp);
        cur = norm(ffn_residual, layer_weight(il, "post_attention_norm.weight", {d_.n_embd}));
        if (d_.n_expert > 0) {
            int shared = gated_ffn(il, cur, d_.n_ff_shexp, "_shexp");
            int gate = b_.sigmoid(b_.mul_mat(layer_weight(il, "ffn_gate_inp_shexp.weight", {d_.n_embd}), cur));
            cur = b_.add(moe(il, cur), b_.mul(shared, gate));
        } else {
            cur = gated_ffn(il, cur, d_.n_ff);
        }
        return b_.add(cur, ffn_residual);
    }

    /// build_layer_attn: one projection makes Q and, interleaved by head, the output's gate.
    int gated_attention(std::int64_t il, int cur) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        const std::int64_t hd = d_.hd_k, row = 4 * 2 * hd;
        int full = b_.mul_mat(w("attn_q.weight", {d_.n_embd, 2 * hd * d_.n_head}), cur);
        int q = view3d(full, {hd, d_.n_head, tokens_, 1}, row, row * d_.n_head, 0);
        q = norm(q, w("attn_q_norm.weight", {hd}));
        int k = b_.mul_mat(w("attn_k.weight", {d_.n_embd, gqa_k()}), cur);
        int v = b_.mul_mat(w("attn_v.weight", {d_.n_embd, gqa_v()}), cur);
        k = norm(b_.reshape(k, {hd, d_.n_head_kv, tokens_, 1}), w("attn_k_norm.weight", {hd}));
        int gate = view3d(full, {hd, d_.n_head, tokens_, 1}, row, row * d_.n_head, 4 * hd);
        gate = b_.cont(gate, {hd * d_.n_head, tokens_, 1, 1});
        v = b_.reshape(v, {d_.hd_v, d_.n_head_kv, tokens_, 1});
        q = b_.rope(q, pos_, -1);
        k = b_.rope(k, pos_, -1);
        cur = b_.mul(attention(il, q, k, v), b_.sigmoid(gate));
        return b_.mul_mat(w("attn_output.weight", {d_.n_head * d_.hd_v, d_.n_embd}), cur);
    }

    /// src/models/qwen3next.cpp build_layer_attn: the Q and gate projection reshaped whole (two
    /// head widths a head) and viewed twice, K and V reshaped, Q and K normed, RoPE, the attention,
    /// and the output times the sigmoid of the gate made contiguous.
    int next_attention(std::int64_t il, int cur) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        const std::int64_t hd = d_.hd_k;
        int full = b_.mul_mat(w("attn_q.weight", {d_.n_embd, 2 * hd * d_.n_head}), cur);
        full = b_.reshape(full, {2 * hd, d_.n_head, tokens_, 1});
        auto nb = b_.nb(full);
        int q = view4d(full, {hd, d_.n_head, tokens_, 1}, {nb[1], nb[2], nb[3]});
        int gate = view4d(full, {hd, d_.n_head, tokens_, 1}, {nb[1], nb[2], nb[3]}, 4 * hd);
        int k = b_.mul_mat(w("attn_k.weight", {d_.n_embd, gqa_k()}), cur);
        int v = b_.mul_mat(w("attn_v.weight", {d_.n_embd, gqa_v()}), cur);
        k = b_.reshape(k, {hd, d_.n_head_kv, tokens_, 1});
        v = b_.reshape(v, {d_.hd_v, d_.n_head_kv, tokens_, 1});
        q = b_.rope(norm(q, w("attn_q_norm.weight", {hd})), pos_, -1);
        k = b_.rope(norm(k, w("attn_k_norm.weight", {hd})), pos_, -1);
        cur = attention(il, q, k, v);
        cur = b_.mul(cur, b_.sigmoid(b_.cont(gate, {hd * d_.n_head, tokens_, 1, 1})));
        return b_.mul_mat(w("attn_output.weight", {d_.n_head * d_.hd_v, d_.n_embd}), cur);
    }

    /// Qwen3-Next's beta and decay (build_layer_attn_linear): one projection, viewed per key head as
    /// beta's and alpha's columns; beta made contiguous for its sigmoid, alpha for the value heads.
    std::pair<int, int> next_beta_gate(std::int64_t il, int cur, std::int64_t nst, std::int64_t ns) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        const std::int64_t nv = d_.ssm_heads, nk = d_.ssm_groups, per = nv / nk;
        int ba = b_.reshape(b_.mul_mat(w("ssm_ba.weight", {d_.n_embd, 2 * nv}), cur), {2 * per, nk, nst, ns});
        auto nb = b_.nb(ba);
        int b = view4d(ba, {per, nk, nst, ns}, {nb[1], nb[2], nb[3]});
        int a = view4d(ba, {per, nk, nst, ns}, {nb[1], nb[2], nb[3]}, 4 * per);
        int beta = b_.sigmoid(b_.cont(b, {per, nk, nst, ns}));
        int alpha = b_.cont(a, {nv, nst, ns, 1});
        int gate = b_.mul(b_.softplus(b_.add(alpha, w("ssm_dt.bias", {nv}))), w("ssm_a", {nv}));
        return {b_.reshape(beta, {1, nv, nst, ns}), b_.reshape(gate, {1, nv, nst, ns})};
    }

    /// Qwen3-Next repeats each key head's Q or K to its value heads before the fused op (the
    /// repeat-interleave of build_layer_attn_linear).
    int repeat_to_value_heads(int x, std::int64_t nst, std::int64_t ns) {
        const std::int64_t hk = d_.ssm_state, nk = d_.ssm_groups, rf = d_.ssm_heads / d_.ssm_groups;
        int r = b_.repeat(b_.reshape(x, {hk, 1, nk, nst * ns}), {hk, rf, nk, nst * ns});
        return b_.reshape(r, {hk, nk * rf, nst, ns});
    }

    /// build_layer_attn_linear with the fused Gated DeltaNet (llama_context::resolve_fused_ops
    /// keeps it where the device runs GGML_OP_GATED_DELTA_NET; the CPU does).
    int deltanet(std::int64_t il, int cur) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        const std::int64_t hk = d_.ssm_state, nk = d_.ssm_groups, nv = d_.ssm_heads, hv = d_.ssm_head_v;
        const std::int64_t key = hk * nk, value = hv * nv, channels = 2 * key + value;
        const std::int64_t nst = tokens_ / seqs_, ns = seqs_;
        int mixed = b_.mul_mat(w("attn_qkv.weight", {d_.n_embd, channels}), cur);
        mixed = b_.reshape(mixed, {channels, nst, ns, 1});
        int z = b_.mul_mat(w("attn_gate.weight", {d_.n_embd, value}), cur);
        int beta = -1, gate = -1;
        if (d_.qwen3next) {
            std::tie(beta, gate) = next_beta_gate(il, cur, nst, ns);
        } else {
            beta = b_.mul_mat(w("ssm_beta.weight", {d_.n_embd, nv}), cur);
            beta = b_.sigmoid(b_.reshape(beta, {1, nv, nst, ns}));
            int alpha = b_.reshape(b_.mul_mat(w("ssm_alpha.weight", {d_.n_embd, nv}), cur), {nv, nst, ns, 1});
            gate = b_.mul(b_.softplus(b_.add(alpha, w("ssm_dt.bias", {nv}))), w("ssm_a", {nv}));
            gate = b_.reshape(gate, {1, nv, nst, ns});
        }
        // llama_memory_recurrent: each layer's conv and SSM states, one row a sequence
        const std::int64_t r = (d_.ssm_conv - 1) * channels, s = hk * value;
        int conv_all = b_.external(fmt::format("cache_r_l{}", il), GgmlType::f32, {r, ns, 1, 1});
        int ssm_all = b_.external(fmt::format("cache_s_l{}", il), GgmlType::f32, {s, ns, 1, 1});
        int conv_input = conv_state(conv_all, mixed, channels);
        int state = b_.reshape(states(ssm_all, s), {hv, hv, nv, ns});
        int conv = b_.silu(b_.ssm_conv(conv_input, w("ssm_conv1d.weight", {d_.ssm_conv, channels})));
        const std::int64_t nb1 = 4 * channels;
        int q = b_.l2_norm(view4d(conv, {hk, nk, nst, ns}, {4 * hk, nb1, nb1 * nst}));
        int k = b_.l2_norm(view4d(conv, {hk, nk, nst, ns}, {4 * hk, nb1, nb1 * nst}, 4 * key));
        if (d_.qwen3next && nk != nv) {
            q = repeat_to_value_heads(q, nst, ns);
            k = repeat_to_value_heads(k, nst, ns);
        }
        int v = view4d(conv, {hv, nv, nst, ns}, {4 * hv, nb1, nb1 * nst}, 4 * 2 * key);
        // build_recurrent_attn: the outputs, then the final state written back to its row
        int result = b_.gated_delta_net(q, k, v, gate, beta, state);
        int out = view4d(result, {hv, nv, nst, ns}, {4 * hv, 4 * hv * nv, 4 * hv * nv * nst});
        int last = view4d(result, {hv, hv, nv, ns}, {4 * hv, 4 * hv * hv, 4 * hv * hv * nv}, 4 * hv * nv * nst * ns);
        b_.expand(b_.cpy(last, view2d(ssm_all, s, ns, b_.nb(ssm_all)[1], 0)));
        // build_norm_gated: the norm times silu of the gate
        int gated = b_.mul(norm(out, w("ssm_norm.weight", {hv})), b_.silu(b_.reshape(z, {hv, nv, nst, ns})));
        cur = b_.mul_mat(w("ssm_out.weight", {value, d_.n_embd}), b_.reshape(gated, {value, nst, ns, 1}));
        return b_.reshape(cur, {d_.n_embd, nst * ns, 1, 1});
    }

    /// build_rs: one row zeroed in place, the sequences' rows gathered, the others copied (none).
    /// `reader` reads the sequences' rows from the states as llm_graph_get_rows_fn does: get_rows
    /// by default, Mamba-2's scan in build_mamba2_layer.
    int states(int all, std::int64_t size, const std::function<int(int)>& reader = nullptr) {
        const std::int64_t rows = b_.ne(all)[1];
        int st = b_.reshape(all, {size, rows, 1, 1});
        b_.expand(b_.scale_inplace(view4d(st, {size, 1, 1, 1}, {4 * size, 4 * size, 4 * size})));
        int out = reader ? reader(st) : b_.get_rows(st, s_copy_main_);
        b_.expand(out);
        int extra = b_.get_rows(st, s_copy_extra_);
        b_.expand(b_.cpy(extra, view2d(all, size, rows - seqs_, b_.nb(all)[1], b_.nb(all)[1] * seqs_)));
        return out;
    }

    /// build_conv_state: the kept columns before this micro-batch's, and the last ones kept.
    int conv_state(int all, int mixed, std::int64_t channels) {
        const std::int64_t kept = d_.ssm_conv - 1, ns = seqs_;
        int st = b_.reshape(states(all, kept * channels), {kept, channels, ns, 1});
        int input = b_.concat(st, b_.transpose(mixed), 0);
        auto nb = b_.nb(input);
        int last = view3d(input, {kept, channels, ns, 1}, nb[1], nb[2], 4 * (b_.ne(input)[0] - kept));
        b_.expand(b_.cpy(last, view2d(all, kept * channels, ns, b_.nb(all)[1], 0)));
        return input;
    }

    /// src/models/granite-hybrid.cpp: a layer of Granite 4.0-H, attention without RoPE or Mamba-2,
    /// the residual scaled before each add.
    int granite_layer(std::int64_t il, int inp) {
        int cur = norm(inp, layer_weight(il, "attn_norm.weight", {d_.n_embd}));
        if (d_.attends[static_cast<std::size_t>(il)]) {
            auto [q, k, v] = qkv(il, cur, false);
            std::tie(cur, inp) = projected(il, attention(il, q, k, v), inp);
        } else {
            std::tie(cur, inp) = last_rows(il, mamba2(il, cur), inp);
        }
        int ffn_inp = b_.add(b_.scale(cur), inp);  // f_residual_scale
        cur = gated_ffn(il, norm(ffn_inp, layer_weight(il, "ffn_norm.weight", {d_.n_embd})), d_.n_ff);
        return b_.add(b_.scale(cur), ffn_inp);
    }

    /// build_mamba2_layer (src/models/mamba-base.cpp) with one snapshot slot: in_proj split into z,
    /// xBC and dt; the short convolution over the kept columns; the scan, whose states are read by
    /// row index and written back; y plus D x x, gated by SwiGLU of z, a grouped norm, out_proj.
    int mamba2(std::int64_t il, int cur) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        const std::int64_t hd = d_.ssm_head_v, nh = d_.ssm_heads, ng = d_.ssm_groups, ds = d_.ssm_state;
        const std::int64_t inner = hd * nh, channels = inner + 2 * ng * ds, kept = d_.ssm_conv - 1;
        const std::int64_t nst = tokens_ / seqs_, ns = seqs_;
        const std::int64_t r = kept * channels, s = ds * inner;
        int conv_all = b_.external(fmt::format("cache_r_l{}", il), GgmlType::f32, {r, ns, 1, 1});
        int ssm_all = b_.external(fmt::format("cache_s_l{}", il), GgmlType::f32, {s, ns, 1, 1});
        int zx = b_.mul_mat(w("ssm_in.weight", {d_.n_embd, 2 * inner + 2 * ng * ds + nh}), cur);
        zx = b_.reshape(zx, {b_.ne(zx)[0], nst, ns, 1});
        auto nb = b_.nb(zx);
        int z = view4d(zx, {hd, nh, nst, ns}, {4 * hd, nb[1], nb[2]});
        int xbc = view3d(zx, {channels, nst, ns, 1}, nb[1], nb[2], 4 * inner);
        int dt = view3d(zx, {nh, nst, ns, 1}, nb[1], nb[2], 4 * (2 * inner + 2 * ng * ds));
        // The kept columns are read (build_rs) before in_proj runs: nothing above is in the graph
        // until the copy back expands it.
        int conv_x = conv_state(conv_all, xbc, channels);
        xbc = b_.ssm_conv(conv_x, w("ssm_conv1d.weight", {d_.ssm_conv, channels}));
        xbc = b_.silu(b_.add(xbc, w("ssm_conv1d.bias", {channels})));
        auto xnb = b_.nb(xbc);
        int x = view4d(xbc, {hd, nh, nst, ns}, {4 * hd, xnb[1], xnb[2]});
        int bm = view4d(xbc, {ds, ng, nst, ns}, {4 * ds, xnb[1], xnb[2]}, 4 * inner);
        int cm = view4d(xbc, {ds, ng, nst, ns}, {4 * ds, xnb[1], xnb[2]}, 4 * (inner + ng * ds));
        dt = b_.add(b_.cont(dt, b_.ne(dt)), w("ssm_dt.bias", {nh}));
        int a = w("ssm_a", {1, nh});
        // build_rs with the scan as its row reader
        const std::int64_t rows = b_.ne(ssm_all)[1];
        int y_ssm = states(ssm_all, s, [&](int st) {
            return b_.ssm_scan(b_.reshape(st, {ds, hd, nh, rows}), x, dt, a, bm, cm, s_copy_main_);
        });
        const std::int64_t x_bytes = 4 * hd * nh * nst * ns;
        b_.expand(b_.cpy(view3d(y_ssm, {s, ns, 1, 1}, 4 * s, 4 * s * ns, x_bytes),
                         view3d(ssm_all, {s, ns, 1, 1}, b_.nb(ssm_all)[1], b_.nb(ssm_all)[1] * rows, 0)));
        int y = view4d(y_ssm, {hd, nh, nst, ns}, {4 * hd, 4 * hd * nh, 4 * hd * nh * nst});
        y = b_.add(y, b_.mul(x, w("ssm_d", {1, nh})));
        y = b_.glu(b_.cont(z, b_.ne(z)), y);
        y = norm(b_.reshape(y, {inner / ng, ng, nst, ns}), w("ssm_norm.weight", {inner / ng, ng}));
        return b_.mul_mat(w("ssm_out.weight", {inner, d_.n_embd}), b_.reshape(y, {inner, nst * ns, 1, 1}));
    }

    /// src/models/lfm2.cpp: a layer of LFM2, attention with Q and K normed before RoPE or a gated
    /// short convolution, the output rows taken after either.
    int lfm2_layer(std::int64_t il, int inp) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        int cur = norm(inp, w("attn_norm.weight", {d_.n_embd}));
        if (d_.attends[static_cast<std::size_t>(il)]) {
            auto [q, k, v] = qkv(il, cur, false);
            q = norm(q, w("attn_q_norm.weight", {d_.hd_k}));
            k = norm(k, w("attn_k_norm.weight", {d_.hd_k}));
            q = b_.rope(q, pos_, -1);
            k = b_.rope(k, pos_, -1);
            std::tie(cur, inp) = projected(il, attention(il, q, k, v), inp, false, false);
        } else {
            cur = shortconv(il, cur);
        }
        std::tie(cur, inp) = last_rows(il, cur, inp);
        cur = b_.add(inp, cur);
        int ffn = gated_ffn(il, norm(cur, w("ffn_norm.weight", {d_.n_embd})), d_.n_ff);
        return b_.add(cur, ffn);
    }

    /// LFM2's gated short convolution with one snapshot slot: in_proj's B, C and x as views, B x x
    /// after the kept columns (build_rs reads them), the last columns written back, the
    /// convolution, C times it, out_proj.
    int shortconv(std::int64_t il, int cur) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        const std::int64_t e = d_.n_embd, nst = tokens_ / seqs_, ns = seqs_;
        cur = b_.reshape(cur, {e, nst, ns, 1});
        int bcx = b_.mul_mat(w("shortconv.in_proj.weight", {e, 3 * e}), cur);
        auto nb = b_.nb(bcx);
        int bm = view3d(bcx, {e, nst, ns, 1}, nb[1], nb[2], 0);
        int cm = view3d(bcx, {e, nst, ns, 1}, nb[1], nb[2], 4 * e);
        int x = view3d(bcx, {e, nst, ns, 1}, nb[1], nb[2], 4 * 2 * e);
        int all = b_.external(fmt::format("cache_r_l{}", il), GgmlType::f32, {(d_.ssm_conv - 1) * e, ns, 1, 1});
        int bx = conv_state(all, b_.mul(bm, x), e);
        int conv = b_.ssm_conv(bx, w("shortconv.conv.weight", {d_.ssm_conv, e}));
        int y = b_.mul_mat(w("shortconv.out_proj.weight", {e, e}), b_.mul(cm, conv));
        return b_.reshape(y, {e, nst * ns, 1, 1});
    }

    /// build_moe_ffn with softmax gating and normalized weights (llama's Mixtral, qwen3moe).
    int moe(std::int64_t il, int cur) {
        auto w = [&](const char* name, GgmlBuilder::Ne ne) { return layer_weight(il, name, ne); };
        const std::int64_t e = d_.n_expert, k = d_.n_expert_used;
        const std::int64_t rows = b_.ne(cur)[1];  // the last layer's are the outputs' only
        int logits = b_.mul_mat(w("ffn_gate_inp.weight", {d_.n_embd, e}), cur);
        if (d_.gpt_oss) logits = b_.add(logits, w("ffn_gate_inp.bias", {e}));
        // LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX_WEIGHT (gpt-oss) chooses on the logits themselves;
        // llama4 weighs by their sigmoids (GATING_FUNC_TYPE_SIGMOID) and also chooses on the logits.
        int probs = d_.gpt_oss ? logits : d_.llama4 ? b_.sigmoid(logits) : b_.soft_max(logits, -1);
        int sorted = b_.argsort(d_.llama4 ? logits : probs);
        auto snb = b_.nb(sorted);
        auto sne = b_.ne(sorted);
        int selected = view4d(sorted, {k, sne[1], sne[2], sne[3]}, {snb[1], snb[2], snb[3]});
        int weights = b_.get_rows(b_.reshape(probs, {1, e, rows, 1}), selected);
        if (d_.gpt_oss) {
            weights = b_.reshape(b_.soft_max(b_.reshape(weights, {k, rows, 1, 1}), -1), {1, k, rows, 1});
        } else if (d_.llama4) {
            // norm_w false: the sigmoids as they are
        } else {
            weights = b_.reshape(weights, {k, rows, 1, 1});
            int sum = b_.clamp(b_.sum_rows(weights));
            weights = b_.reshape(b_.div(weights, sum), {1, k, rows, 1});
        }
        b_.expand(weights);
        int x = b_.reshape(cur, {d_.n_embd, 1, rows, 1});
        if (d_.llama4) x = b_.mul(b_.repeat(x, {d_.n_embd, k, rows, 1}), weights);  // weight_before_ffn
        int up = b_.mul_mat_id(w("ffn_up_exps.weight", {d_.n_embd, d_.n_ff_exp, e}), x, selected);
        if (d_.gpt_oss) up = b_.add_id(up, w("ffn_up_exps.bias", {d_.n_ff_exp, e}), selected);
        int gate = b_.mul_mat_id(w("ffn_gate_exps.weight", {d_.n_embd, d_.n_ff_exp, e}), x, selected);
        if (d_.gpt_oss) gate = b_.add_id(gate, w("ffn_gate_exps.bias", {d_.n_ff_exp, e}), selected);
        int experts = b_.mul_mat_id(w("ffn_down_exps.weight", {d_.n_ff_exp, d_.n_embd, e}), b_.glu(gate, up), selected);
        if (d_.gpt_oss) experts = b_.add_id(experts, w("ffn_down_exps.bias", {d_.n_embd, e}), selected);
        if (!d_.llama4) experts = b_.mul(experts, weights);
        b_.expand(experts);
        std::vector<int> views;
        for (std::int64_t i = 0; i < k; ++i) {
            views.push_back(view2d(experts, d_.n_embd, rows, b_.nb(experts)[2], i * b_.nb(experts)[1]));
            b_.expand(views.back());
        }
        int out = views[0];
        for (std::size_t i = 1; i < views.size(); ++i) {
            out = b_.add(out, views[i]);
            b_.expand(out);
        }
        if (views.size() == 1) out = b_.cont(out, b_.ne(out));
        return out;
    }

    Dims d_;
    GgmlBuilder b_;
    std::int64_t tokens_ = 0, streams_ = 1, seqs_ = 1, outputs_ = 0, cells_ = 0, swa_cells_ = 0;
    /// build_rs_inp_impl: the states' row indices, the sequences' own and the rest (none here: the
    /// full memory has one row a sequence).
    int s_copy_main_ = -1, s_copy_extra_ = -1;
    bool flash_ = true;
    bool rows_in_layer_ = false;
    std::int64_t rot_k_ = 0, rot_v_ = 0;  ///< the Hadamard rotations' widths; 0 for none
    int k_rot_[2] = {-1, -1}, v_rot_[2] = {-1, -1};
    GgmlType tk_ = GgmlType::f16, tv_ = GgmlType::f16;
    int pos_ = -1, out_ids_ = -1, rope_freqs_ = -1, attn_scale_ = -1;
    /// The cache's inputs: [0] the full cache's, [1] the sliding window's (gpt-oss).
    int k_idxs_[2] = {-1, -1}, v_idxs_[2] = {-1, -1}, mask_[2] = {-1, -1};
    int mask_now_ = -1;  ///< the mask of the layer being built
};

std::optional<Dims> read_dims(const Model& m) {
    if (!m.tensors || !m.num_layers || !m.attention_heads || !m.kv_heads || !m.head_dim) return std::nullopt;
    const TensorWidths& w = *m.tensors;
    Dims d;
    d.arch = w.llama_arch;
    d.n_embd = w.hidden_size;
    d.n_vocab = w.vocab_size;
    d.n_layer = *m.num_layers;
    d.n_head = *m.attention_heads;
    d.n_head_kv = *m.kv_heads;
    d.hd_k = *m.head_dim;
    d.hd_v = m.v_head_dim.value_or(*m.head_dim);
    d.n_ff = w.ffn_size;
    d.n_expert = w.experts;
    d.n_expert_used = w.experts_used;
    d.n_ff_exp = w.expert_ffn_size;
    d.qkv_bias = d.arch == "qwen2";
    d.gpt_oss = d.arch == "gpt-oss";
    d.glm4 = d.arch == "glm4";
    d.gemma3 = d.arch == "gemma3";
    d.llama4 = d.arch == "llama4";
    d.rope_freqs = (d.arch == "llama" || d.llama4) && w.rope_freqs;
    // qwen3's Q and K norms; llama4's hparams.use_kq_norm (all but Maverick, 128 experts)
    d.qk_norm = d.arch == "qwen3" || d.arch == "qwen3moe" || (d.llama4 && w.experts != 128);
    d.swa_period = d.gpt_oss ? 2 : d.gemma3 && m.sliding ? 6 : d.llama4 ? 4 : 0;
    d.qwen3next = d.arch == "qwen3next";
    d.deltanet = d.arch == "qwen35" || d.arch == "qwen35moe" || d.qwen3next;
    d.granite = d.arch == "granitehybrid";
    d.lfm2 = d.arch == "lfm2";
    if (d.deltanet || d.granite || d.lfm2) {
        auto places = kv_layer_places(m);
        if (!places || !m.linear) return std::nullopt;
        d.attends = *places;
        d.qk_norm = d.deltanet || d.lfm2;
        d.ssm_conv = m.linear->conv_kernel;
        d.ssm_groups = m.linear->key_heads;
        d.ssm_state = m.linear->key_head_dim;
        d.ssm_heads = m.linear->value_heads;
        d.ssm_head_v = m.linear->value_head_dim;
        d.n_ff_shexp = w.shared_expert_ffn_size;
    }
    return d;
}

}  // namespace

std::int64_t llamacpp_positions_per_token(std::string_view arch) {
    if (arch == "qwen35" || arch == "qwen35moe") return 4;
    return arch == "granitehybrid" ? 0 : 1;
}

bool llamacpp_reads_recurrent_rows(std::string_view arch) {
    return arch == "qwen35" || arch == "qwen35moe" || arch == "qwen3next" || arch == "granitehybrid" || arch == "lfm2";
}

std::string llamacpp_graph_unsupported(const Model& m, const LlamaGraphSetting& s) {
    if (!m.tensors) return "the model record has no tensors mapping";
    if (std::find(kArchitectures.begin(), kArchitectures.end(), m.tensors->llama_arch) == kArchitectures.end()) {
        return fmt::format("llama.cpp's {} graph is not built here", m.tensors->llama_arch);
    }
    if (!read_dims(m)) return "the model record lacks its layers, heads or head width";
    const std::string& arch = m.tensors->llama_arch;
    bool pairs = m.sliding && !m.sliding->kv_heads && !m.sliding->head_dim && !m.sliding->v_head_dim &&
                 (((arch == "gpt-oss" || arch == "gemma3") && m.sliding->kind == WindowKind::sliding) ||
                  (arch == "llama4" && m.sliding->kind == WindowKind::chunked));
    const bool deltanet = (arch == "qwen35" || arch == "qwen35moe" || arch == "qwen3next") && m.linear &&
                          m.linear->kind == StateKind::gated_deltanet && !m.linear->beside_attention;
    const bool mamba2 = arch == "granitehybrid" && m.linear && m.linear->kind == StateKind::mamba2 &&
                        !m.linear->beside_attention && m.tensors->experts == 0;
    const bool shortconv = arch == "lfm2" && m.linear && m.linear->kind == StateKind::short_conv &&
                           !m.linear->beside_attention && m.tensors->experts == 0 &&
                           m.linear->inner_dim == m.tensors->hidden_size;
    if ((m.sliding && !pairs) || (m.linear && !deltanet && !mamba2 && !shortconv) || m.mla || !m.kv_groups.empty()) {
        return "its attention is not one full cache (nor gpt-oss's or Gemma 3's full and sliding layers, nor Qwen "
               "3.5's attention and Gated DeltaNet layers, nor Granite 4.0-H's attention and Mamba-2 layers, nor "
               "LFM2's attention and short convolutions)";
    }
    if (shortconv && m.linear->conv_kernel < 2) return "LFM2's short convolution keeps at least one column";
    if (deltanet && (m.linear->key_head_dim != m.linear->value_head_dim || m.linear->key_heads <= 0 ||
                     m.linear->value_heads % m.linear->key_heads != 0 || m.linear->conv_kernel < 1)) {
        return "the Gated DeltaNet's key and value heads must be as wide, and the value heads a multiple of the key "
               "heads (ggml_gated_delta_net)";
    }
    if (mamba2 && (m.linear->key_heads <= 0 || m.linear->conv_kernel < 1 ||
                   (m.linear->value_heads * m.linear->value_head_dim) % m.linear->key_heads != 0)) {
        return "Mamba-2's inner width must divide into its groups (build_mamba2_layer)";
    }
    if (pairs && s.swa_cells_per_stream <= 0) return "no cells for the sliding window's cache";
    if (m.tensors->experts > 0 && m.tensors->experts_used <= 0)
        return "the record does not say how many experts a token uses";
    if (!llamacpp_graph_takes_cache(s.cache_k) || !llamacpp_graph_takes_cache(s.cache_v)) {
        return "llama.cpp takes no cache of that type (-ctk and -ctv: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, "
               "q5_1)";
    }
    if (s.cells_per_stream <= 0 || s.tokens <= 0) return "no cells or no tokens";
    return "";
}

/// The GPU's part of a start with every layer on it: the host's inputs and the token lookup leave
/// the graph, and the tensors the GPU's nodes read from them become copies at the head of its
/// nodes, in the order the scheduler meets them.
GgmlGraph on_device(GgmlGraph g) {
    auto& t = g.tensors;
    std::vector<int> host;  // the host's tensors the device reads: its inputs and the token lookup
    int lookup = g.nodes.empty() ? -1 : g.nodes.front();  // get_rows of token_embd, the first node
    auto on_host = [&](int i) { return i >= 0 && (i == lookup || t[static_cast<std::size_t>(i)].input); };
    std::vector<int> nodes;
    for (int n : g.nodes) {
        if (n == lookup) continue;
        for (int s : t[static_cast<std::size_t>(n)].src) {
            if (on_host(s) && std::find(host.begin(), host.end(), s) == host.end()) {
                host.push_back(s);
            }
        }
        nodes.push_back(n);
    }
    for (int h : host) {
        GgmlTensor& copy = t[static_cast<std::size_t>(h)];
        copy.input = false;
        copy.op = "NONE";
        copy.op_none = true;
        copy.can_inplace = false;
        copy.src.fill(-1);
    }
    g.leafs.clear();  // the host's inputs the device does not read, and the weights: none allocated here
    g.nodes = host;
    g.nodes.insert(g.nodes.end(), nodes.begin(), nodes.end());
    return g;
}

std::optional<GgmlGraph> llamacpp_graph(const Model& m, const LlamaGraphSetting& s) {
    if (!llamacpp_graph_unsupported(m, s).empty()) return std::nullopt;
    GgmlGraph g = LlamaGraph(*read_dims(m), s).build();
    return s.device ? on_device(std::move(g)) : g;
}

std::optional<LlamaGraphDims> llamacpp_graph_dims(const Model& m) {
    LlamaGraphSetting s;
    s.cells_per_stream = 256;
    s.swa_cells_per_stream = 256;
    if (!llamacpp_graph_unsupported(m, s).empty()) return std::nullopt;
    return read_dims(m);
}

bool llamacpp_graph_takes_cache(const std::string& type) {
    return cache_type(type).has_value();
}

std::int64_t llamacpp_graph_alignment(const LlamaGraphSetting& s) {
    return s.device ? kGgmlCudaAlignment : kGgmlCpuAlignment;
}

std::optional<std::int64_t> llamacpp_graph_buffer(const Model& m, const LlamaGraphSetting& s) {
    auto g = llamacpp_graph(m, s);
    if (!g) return std::nullopt;
    GgmlAllocResult r = ggml_alloc_graph_size(*g, llamacpp_graph_alignment(s));
    if (!r.error.empty()) return std::nullopt;
    return r.bytes;
}

}  // namespace kvcat
