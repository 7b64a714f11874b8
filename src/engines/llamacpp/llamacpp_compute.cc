#include "engines/llamacpp/llamacpp_compute.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "engines/llamacpp/ggml_alloc.h"
#include "engines/llamacpp/llamacpp_graph.h"
#include "support/rational.h"

namespace kvcat {

std::optional<LlamaComputeCoefficients> llamacpp_compute_coefficients(const Model& model) {
    if (!model.tensors || !model.attention_heads || !model.head_dim) return std::nullopt;
    const TensorWidths& w = *model.tensors;
    LlamaComputeCoefficients c;
    c.output_per_output = checked_mul(checked_add(w.vocab_size, w.hidden_size), 4);
    std::int64_t ff = w.experts > 0 ? checked_mul(w.experts_used, w.expert_ffn_size) : w.ffn_size;
    if (ff > 0) c.ff_per_token = checked_mul(checked_add(checked_mul(3, ff), checked_mul(3, w.hidden_size)), 4);
    return c;
}

namespace {

/// The pinned release's graph through ggml-alloc, where it is built; nullopt elsewhere.
std::optional<LlamaComputeBuffer> graph_buffer(const Model& model, const LlamaComputeSetting& s) {
    if (!s.graph || s.mask_cast) return std::nullopt;
    LlamaGraphSetting g;
    std::int64_t streams = s.cells_per_stream > 0 ? std::max<std::int64_t>(1, s.context / s.cells_per_stream) : 1;
    g.seqs = s.seqs > 0 ? s.seqs : streams;
    g.unified = streams == 1;
    g.tokens = std::max<std::int64_t>(1, std::min(s.ubatch, s.context));
    g.cells_per_stream = s.cells_per_stream;
    g.swa_cells_per_stream = s.swa_cells_per_stream;
    g.outputs = s.outputs;
    g.flash_attn = s.flash_attn;
    g.cache_k = s.cache_k;
    g.cache_v = s.cache_v;
    g.device = s.device;
    auto graph = llamacpp_graph(model, g);
    if (!graph) return std::nullopt;
    GgmlAllocResult r = ggml_alloc_graph_size(*graph, llamacpp_graph_alignment(g));
    if (!r.error.empty()) return std::nullopt;
    std::int64_t outputs = s.outputs > 0 ? std::min(s.outputs, g.tokens) : g.tokens;
    // "an f16 K", "a q8_0 K": the article as the type's name is read aloud
    auto with_article = [](const std::string& type) {
        return (!type.empty() && (type[0] == 'f' || type[0] == 'i') ? "an " : "a ") + type;
    };
    return LlamaComputeBuffer{
        r.bytes, "graph",
        fmt::format("llama.cpp's own graph at {} ({} nodes: {} tokens, {} cells a stream{}, {} output{}, {} K "
                    "and {} V, flash attention {}), placed tensor by tensor as ggml-alloc places it{}",
                    std::string(kLlamaGraphCommit).substr(0, 8),
                    group_thousands(static_cast<std::int64_t>(graph->nodes.size())), group_thousands(g.tokens),
                    group_thousands(s.cells_per_stream),
                    s.swa_cells_per_stream > 0
                        ? fmt::format(" and {} in the sliding window's", group_thousands(s.swa_cells_per_stream))
                        : "",
                    group_thousands(outputs), outputs == 1 ? "" : "s", with_article(s.cache_k), s.cache_v,
                    s.flash_attn ? "on" : "off",
                    g.device ? " on a GPU that runs every layer (the inputs copied from the host, CUDA's 128-byte "
                               "alignment)"
                             : " on the CPU"),
        true};
}

}  // namespace

std::optional<LlamaComputeBuffer> llamacpp_compute_buffer(const Model& model, const LlamaComputeSetting& s) {
    if (!model.tensors || !model.attention_heads || !model.head_dim) return std::nullopt;
    if (auto exact = graph_buffer(model, s)) return exact;
    const TensorWidths& w = *model.tensors;
    // sched_reserve: n_tokens = min(n_ctx, n_ubatch), and n_ubatch is at most n_batch (2048 by
    // default, itself at most n_ctx).
    const std::int64_t tokens = std::max<std::int64_t>(1, std::min(s.ubatch, s.context));
    const std::int64_t kv = std::max<std::int64_t>(s.cells_per_stream, 0);
    const std::int64_t heads = *model.attention_heads;
    const std::int64_t q = checked_mul(heads, *model.head_dim);
    auto f32 = [&](std::int64_t per_token) { return checked_mul(checked_mul(per_token, tokens), 4); };
    // Each attention cache has its mask, and every mask is an input, alive through the graph.
    const std::int64_t swa = std::max<std::int64_t>(s.swa_cells_per_stream, 0);
    const std::int64_t mask = checked_mul(checked_mul(checked_add(kv, swa), tokens), s.flash_attn ? 2 : 4);
    const std::string cells =
        swa > 0 ? fmt::format("{} + {} (the SWA layers') cells", group_thousands(kv), group_thousands(swa))
                : fmt::format("{} cells", group_thousands(kv));

    std::vector<LlamaComputeBuffer> stages;
    const std::int64_t outputs = s.outputs > 0 ? std::min(s.outputs, tokens) : tokens;
    stages.push_back({checked_mul(checked_mul(checked_add(w.vocab_size, w.hidden_size), outputs), 4), "output",
                      fmt::format("the output: {} {} x (the vocabulary's {} logits + {} hidden) x 4 bytes", outputs,
                                  outputs == tokens ? "tokens" : "outputs (one a slot)", group_thousands(w.vocab_size),
                                  group_thousands(w.hidden_size))});
    std::int64_t ff = w.experts > 0 ? checked_mul(w.experts_used, w.expert_ffn_size) : w.ffn_size;
    if (ff > 0) {
        std::string width = w.experts > 0
                                ? fmt::format("{} experts x {}", w.experts_used, group_thousands(w.expert_ffn_size))
                                : group_thousands(w.ffn_size);
        stages.push_back(
            {checked_add(f32(checked_add(checked_mul(3, ff), checked_mul(3, w.hidden_size))), mask), "feed-forward",
             fmt::format("a layer's feed-forward: {} tokens x (3 x {} + 3 x {}) x 4 bytes, and the "
                         "{} mask of {} x {} tokens",
                         tokens, width, group_thousands(w.hidden_size), s.flash_attn ? "f16" : "f32", cells, tokens)});
    }
    if (s.flash_attn && s.mask_cast) {
        std::int64_t masks = checked_mul(checked_add(kv, swa), tokens);
        stages.push_back({checked_add(checked_mul(masks, 4 + 2), f32(w.hidden_size)), "mask cast",
                          fmt::format("the mask's cast to f16: {} x {} tokens in f32 and in f16, beside the {} "
                                      "tokens' embeddings x {} x 4 bytes",
                                      cells, tokens, tokens, group_thousands(w.hidden_size))});
    }
    if (!s.flash_attn) {
        std::int64_t scores = checked_mul(checked_mul(checked_mul(kv, tokens), heads), 4);
        stages.push_back({checked_add(checked_add(scores, mask), f32(checked_add(checked_mul(3, q), w.hidden_size))),
                          "attention scores",
                          fmt::format("a layer's attention scores without flash attention: {} cells x {} tokens x {} "
                                      "heads x 4 bytes, the f32 mask of {}, and 3 x {} + {} projections a token",
                                      group_thousands(kv), tokens, heads, cells, group_thousands(q),
                                      group_thousands(w.hidden_size))});
    }
    LlamaComputeBuffer peak =
        *std::max_element(stages.begin(), stages.end(),
                          [](const LlamaComputeBuffer& a, const LlamaComputeBuffer& b) { return a.bytes < b.bytes; });
    // The token positions (an i32 input, alive through the whole graph) come on top of any stage.
    peak.bytes = checked_add(peak.bytes, checked_mul(4, tokens));
    peak.how += fmt::format(", and the {} tokens' positions, 4 bytes each", tokens);
    return peak;
}

bool llamacpp_compute_is_exact(std::string_view device, const LlamaComputeBuffer& bound, bool settings_known) {
    bool cuda = device.starts_with("CUDA") && device != "CUDA_Host";
    return cuda && settings_known && (bound.stage == "output" || bound.stage == "attention scores");
}

}  // namespace kvcat
