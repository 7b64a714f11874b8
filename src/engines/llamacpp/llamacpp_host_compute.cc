#include "engines/llamacpp/llamacpp_host_compute.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

#include "engines/llamacpp/llamacpp_graph.h"
#include "support/rational.h"

namespace kvcat {

namespace {

// The builds are the logs in records/allocations that print their build and a host compute buffer
// (b2679: ollama-0.1.32-llama-2-7b-q4_0-f16-2048-m3-max, whose runner prints it; b5398:
// llamacpp-b5398-vulkan-qwen3-0.6b-...; b7342 and b7772: llamacpp-b7342-qwen3-coder-..., the three
// llamacpp-b7772-gpt-oss-20b-... records; b8185 and b8198: the two llamacpp-b81xx-gpt-oss-20b-...
// records on an M5). Pull 14285 was opened on 2025-06-19 behind LLAMA_SET_ROWS, which pull 15505
// (2025-08-22) removed; 18898 was opened on 2026-01-17 and 23764 reviewed on 2026-05-28. Builds
// before the pinned release padded the mask's rows to GGML_KQ_MASK_PAD; every log here has -ub 512,
// a multiple of it, and kvcat does not pad.
constexpr std::array<LlamaInputsEra, 6> kEras = {{
    {LlamaInputs::own_buffer, "before pull 6017: the inputs in a buffer of their own", 0, 0},
    {LlamaInputs::mask, "pull 6017: the token ids, positions and f32 mask in the compute buffer", 0, 0},
    {LlamaInputs::output_ids, "pull 6122: the ids of the tokens that output", 2679, 5398},
    {LlamaInputs::row_indices, "pull 14285 (ggml_set_rows): each cache's K and V row indices", 7342, 7772},
    {LlamaInputs::embedding_input, "pull 18898: the embeddings input beside the lookup", 8185, 8198},
    {LlamaInputs::half_mask,
     "pull 23764: an f16 mask under flash attention (and pull 21038: a quantized cache's rotations)", 0, 0},
}};

bool at_least(LlamaInputs era, LlamaInputs since) {
    return static_cast<int>(era) >= static_cast<int>(since);
}

/// The architectures whose graph inputs are read for this rule (src/models/llama.cpp, qwen2.cpp,
/// qwen3.cpp, qwen3moe.cpp, glm4.cpp, openai-moe.cpp, qwen35.cpp, qwen35moe.cpp, qwen3next.cpp,
/// granite-hybrid.cpp, lfm2.cpp at 80fb11ac): embeddings, positions, one attention input (two for
/// gpt-oss's sliding window), the output ids and, for the hybrids, the recurrent rows.
bool inputs_read(std::string_view arch) {
    for (std::string_view a : {"llama", "qwen2", "qwen3", "qwen3moe", "glm4", "gpt-oss", "qwen35", "qwen35moe",
                               "qwen3next", "granitehybrid", "lfm2"}) {
        if (arch == a) return true;
    }
    return false;
}

/// The widest V a layer caches (n_embd_v_gqa_max): a transposed V's indices are one a column.
std::int64_t widest_v(const Model& m) {
    std::int64_t widest = 0;
    for (const auto& g : m.kv_groups) {
        widest = std::max(widest, checked_mul(g.kv_heads, g.v_head_dim.value_or(g.head_dim)));
    }
    if (widest == 0 && m.kv_heads && m.head_dim) widest = checked_mul(*m.kv_heads, m.v_head_dim.value_or(*m.head_dim));
    return widest;
}

/// build_input_k_rot's nrot: the largest power of two from 64 that divides the head, 0 for none.
std::int64_t k_rotation(std::int64_t head) {
    if (head <= 0 || head % 64 != 0) return 0;
    std::int64_t n = 64;
    while (head % (n * 2) == 0) n *= 2;
    return n;
}

}  // namespace

std::span<const LlamaInputsEra> llamacpp_inputs_eras() {
    return kEras;
}

bool llamacpp_inputs_era_holds(LlamaInputs era, std::int64_t build) {
    for (const auto& e : kEras) {
        if (e.first_seen == 0) continue;
        if (static_cast<int>(e.inputs) > static_cast<int>(era) && e.first_seen <= build) return false;
        if (static_cast<int>(e.inputs) < static_cast<int>(era) && e.last_seen >= build) return false;
    }
    return true;
}

LlamaInputs llamacpp_inputs_era_of(std::optional<std::int64_t> build) {
    if (!build) return kPinnedInputs;
    LlamaInputs newest = kEras.front().inputs;
    for (const auto& e : kEras) {
        if (llamacpp_inputs_era_holds(e.inputs, *build)) newest = e.inputs;
    }
    return newest;
}

std::optional<LlamaHostCompute> llamacpp_host_compute(const Model& model, const LlamaHostSetting& s, LlamaInputs era) {
    if (!model.tensors || !inputs_read(model.tensors->llama_arch) || s.cache_cells.empty()) return std::nullopt;
    const std::int64_t hidden = model.tensors->hidden_size;
    const std::int64_t tokens = std::max<std::int64_t>(1, std::min(s.ubatch, s.context));
    std::vector<std::string> parts;
    std::int64_t bytes = 0;
    auto add = [&](std::int64_t b, std::string what) {
        bytes = checked_add(bytes, b);
        parts.push_back(fmt::format("{} ({})", what, group_thousands(b)));
    };
    const std::int64_t lookup = checked_mul(checked_mul(hidden, tokens), 4);
    add(lookup, fmt::format("the token embeddings looked up, {} x {} f32", group_thousands(hidden), tokens));
    if (at_least(era, LlamaInputs::embedding_input)) {
        add(lookup, fmt::format("the embeddings input, {} x {} f32", group_thousands(hidden), tokens));
    }
    const bool recurrent = llamacpp_reads_recurrent_rows(model.tensors->llama_arch);
    const std::int64_t positions = llamacpp_positions_per_token(model.tensors->llama_arch);
    if (at_least(era, LlamaInputs::mask)) {
        add(checked_mul(tokens, 4), fmt::format("the token ids, {} i32", tokens));
        if (positions > 0) {
            add(checked_mul(tokens, 4 * positions), positions == 1
                                                        ? fmt::format("the positions, {} i32", tokens)
                                                        : fmt::format("the positions, {} x {} i32", tokens, positions));
        }
    }
    if (recurrent && at_least(era, LlamaInputs::mask)) {
        const std::int64_t rows = std::max<std::int64_t>(1, s.sequences);
        add(checked_mul(rows, 4), fmt::format("the recurrent rows' indices, {} i32", rows));
    }
    if (at_least(era, LlamaInputs::output_ids)) {
        const std::int64_t outputs = s.outputs > 0 ? std::min(s.outputs, tokens) : tokens;
        add(checked_mul(outputs, 4), fmt::format("the output ids, {} i32", outputs));
    }
    const std::int64_t mask_bytes = at_least(era, LlamaInputs::half_mask) && s.flash_attn ? 2 : 4;
    const std::int64_t v_columns = s.flash_attn ? 1 : widest_v(model);
    const std::int64_t head_k = model.head_dim.value_or(0);
    const std::int64_t head_v = model.v_head_dim.value_or(head_k);
    for (std::size_t i = 0; i < s.cache_cells.size(); ++i) {
        if (!at_least(era, LlamaInputs::mask)) break;
        std::string cache = s.cache_cells.size() > 1 ? (i == 0 ? "the base cache's " : "the SWA cache's ") : "the ";
        std::int64_t cells = s.cache_cells[i];
        add(checked_mul(checked_mul(cells, tokens), mask_bytes),
            fmt::format("{}mask, {} cells x {} tokens {}", cache, group_thousands(cells), tokens,
                        mask_bytes == 2 ? "f16" : "f32"));
        if (!at_least(era, LlamaInputs::row_indices)) continue;
        add(checked_mul(tokens, 8), fmt::format("{}K row indices, {} i64", cache, tokens));
        add(checked_mul(checked_mul(tokens, v_columns), 8),
            v_columns == 1 ? fmt::format("{}V row indices, {} i64", cache, tokens)
                           : fmt::format("{}V indices of a transposed V, {} tokens x {} columns i64", cache, tokens,
                                         group_thousands(v_columns)));
        if (!at_least(era, LlamaInputs::half_mask)) continue;
        if (std::int64_t n = k_rotation(head_k); s.k_quantized && n > 0) {
            add(checked_mul(checked_mul(n, n), 4), fmt::format("{}K rotation, {} x {} f32", cache, n, n));
        }
        if (s.v_quantized && head_v > 0 && head_v % 64 == 0) {
            add(64 * 64 * 4, fmt::format("{}V rotation, 64 x 64 f32", cache));
        }
    }
    std::string how;
    for (const auto& p : parts) how += (how.empty() ? "" : " + ") + p;
    return LlamaHostCompute{bytes, how};
}

}  // namespace kvcat
