// The quantizer's oracle: kvcat's plan of llama-quantize's mixes (engines/llamacpp/llamacpp_quant, over
// the tensors engines/llamacpp/llamacpp_tensors lists) against the pinned libllama's own quantizer.
//
// For every model record with a tensors mapping it writes a GGUF with the model's real tensor
// names and shapes in f32 (the data is a hole: ftruncate, no disk) and llama.cpp's keys for its
// architecture. llama.cpp must load that GGUF (with no_alloc): its loader checks every tensor's
// name and shape against the architecture, so kvcat's tensor list is llama.cpp's. Then, for
// every mix kvcat answers, llama_model_quantize with dry_run (llama-quantize --dry-run) prints
// the type it gives each tensor; each must be kvcat's, and its total kvcat's bytes.
//
// The same loaded model (its real vocabulary and widths) gives llama.cpp's compute buffers: for a
// grid of settings a context is made and the "CPU compute buffer size" it prints is held to
// kvcat's (engines/llamacpp/llamacpp_compute.h), which must never be above it; the summary line says how
// many are equal to the printed 0.01 MiB and, by stage, how far below the rest are.
//
// usage: kvcat_llama_quant_oracle RECORDS_ROOT WORK_DIR LIB_DIR [--only MODEL_ID] [--plant]
//   --plant  changes kvcat's type of one tensor of every plan, puts its first compute buffer
//            1 MiB above llama.cpp's and makes one tensor of the first graph it reserves 1 MiB
//            larger, so all three comparisons must fail.
// KVCAT_ORACLE_ECHO=1 copies libllama's log to stderr (with GGML_SCHED_DEBUG=2, every node of
// every graph it reserves); KVCAT_ORACLE_EVERY_BUFFER=1 prints each setting's compute buffers.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engines/engine_memory.h"
#include "engines/engine_rules.h"
#include "engines/llamacpp/llamacpp_compute.h"
#include "engines/llamacpp/llamacpp_graph.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "engines/llamacpp/llamacpp_tensors.h"
#include "engines/oracle/graph_capture.h"
#include "engines/oracle/oracle_load.h"
#include "engines/oracle/shape_gguf.h"
#include "ggml-backend.h"
#include "llama.h"
#include "load/records.h"
#include "support/diagnostic.h"
#include "vocab/dtype.h"

namespace fs = std::filesystem;
using namespace kvcat;
using namespace kvcat::oracle;

namespace {

/// What libllama printed during one call: the quantizer's per-tensor lines, its total, errors.
struct Printed {
    std::map<std::string, std::string> types;  ///< tensor name -> the type it gets
    std::optional<std::string> quant_size;     ///< "18633.80" from "quant size  =  18633.80 MiB"
    std::optional<std::string> compute_mib;    ///< "312.75" from "CPU compute buffer size =   312.75 MiB"
    std::vector<std::string> errors;
    std::string pending;
};
Printed* g_printed = nullptr;

/// "[  12/ 707]  blk.0.attn_v.weight  - [ 5120,  1024,     1,     1], type =    f32, size = ... -> ... (q6_K)"
/// or, for a tensor kept as it is, "... type =    f32, size =    0.004 MiB".
void take_line(const std::string& line, ggml_log_level level) {
    if (level == GGML_LOG_LEVEL_ERROR) g_printed->errors.push_back(line);
    if (line.rfind("[", 0) == 0 && line.find("], type = ") != std::string::npos) {
        auto close = line.find(']');
        auto dash = line.find(" - [", close);
        if (dash == std::string::npos) return;
        std::string name = line.substr(close + 1, dash - close - 1);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        std::string type;
        if (auto open = line.rfind('('); open != std::string::npos && line.find("->") != std::string::npos) {
            type = line.substr(open + 1, line.rfind(')') - open - 1);
        } else {
            auto at = line.find("type = ") + 7;
            auto comma = line.find(',', at);
            type = line.substr(at, comma - at);
            type.erase(0, type.find_first_not_of(' '));
        }
        g_printed->types[name] = type;
    }
    if (auto at = line.find("compute buffer size = "); at != std::string::npos) {
        std::string rest = line.substr(at + 22);
        rest.erase(0, rest.find_first_not_of(' '));
        g_printed->compute_mib = rest.substr(0, rest.find(' '));
    }
    if (auto at = line.find("quant size  = "); at != std::string::npos) {
        std::string rest = line.substr(at + 14);
        rest.erase(0, rest.find_first_not_of(' '));
        g_printed->quant_size = rest.substr(0, rest.find(' '));
    }
}

void on_log(ggml_log_level level, const char* text, void*) {
    if (std::getenv("KVCAT_ORACLE_ECHO")) std::fputs(text, stderr);
    if (!g_printed) return;
    g_printed->pending += text;
    std::string::size_type nl;
    while ((nl = g_printed->pending.find('\n')) != std::string::npos) {
        std::string line = g_printed->pending.substr(0, nl);
        g_printed->pending.erase(0, nl + 1);
        take_line(line, level);
    }
}

std::optional<llama_ftype> ftype_of(std::string_view mix) {
    static const std::map<std::string_view, llama_ftype> kFtypes = {
        {"Q4_0", LLAMA_FTYPE_MOSTLY_Q4_0},
        {"Q4_1", LLAMA_FTYPE_MOSTLY_Q4_1},
        {"Q5_0", LLAMA_FTYPE_MOSTLY_Q5_0},
        {"Q5_1", LLAMA_FTYPE_MOSTLY_Q5_1},
        {"IQ4_NL", LLAMA_FTYPE_MOSTLY_IQ4_NL},
        {"IQ4_XS", LLAMA_FTYPE_MOSTLY_IQ4_XS},
        {"Q2_K", LLAMA_FTYPE_MOSTLY_Q2_K},
        {"Q3_K_S", LLAMA_FTYPE_MOSTLY_Q3_K_S},
        {"Q3_K_M", LLAMA_FTYPE_MOSTLY_Q3_K_M},
        {"Q3_K_L", LLAMA_FTYPE_MOSTLY_Q3_K_L},
        {"Q4_K_S", LLAMA_FTYPE_MOSTLY_Q4_K_S},
        {"Q4_K_M", LLAMA_FTYPE_MOSTLY_Q4_K_M},
        {"Q5_K_S", LLAMA_FTYPE_MOSTLY_Q5_K_S},
        {"Q5_K_M", LLAMA_FTYPE_MOSTLY_Q5_K_M},
        {"Q6_K", LLAMA_FTYPE_MOSTLY_Q6_K},
        {"Q8_0", LLAMA_FTYPE_MOSTLY_Q8_0},
        {"F16", LLAMA_FTYPE_MOSTLY_F16},
        {"BF16", LLAMA_FTYPE_MOSTLY_BF16},
        {"MXFP4_MOE", LLAMA_FTYPE_MOSTLY_MXFP4_MOE},
    };
    auto it = kFtypes.find(mix);
    if (it == kFtypes.end()) return std::nullopt;
    return it->second;
}

/// The keys of a hybrid's state layers: Qwen3.5's Gated DeltaNet (src/models/qwen35.cpp and
/// qwen35moe.cpp) and Granite-4.0-H's Mamba-2 (src/models/granite-hybrid.cpp, which marks a state
/// layer by a head_count_kv of 0 in a per-layer array), its attention layers placed as kvcat
/// places them.
void write_hybrid_keys(const Model& m, ShapeGguf& g) {
    const std::string& a = m.tensors->llama_arch;
    const LinearShape& lin = *m.linear;
    auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
    // A state layer is one of no KV heads, as llama.cpp reads the per-layer count, where the
    // converter writes it so (Granite-4.0-H's, LFM2's).
    if (gguf_kv_heads_per_layer(a)) {
        std::vector<std::int32_t> kv;
        for (bool attention : attention_layers(m)) kv.push_back(attention ? static_cast<std::int32_t>(*m.kv_heads) : 0);
        g.i32s(a + ".attention.head_count_kv", kv);
    }
    if (a == "lfm2") {
        // conversion/lfm2.py: the short convolution's conv_L_cache.
        g.u32(a + ".shortconv.l_cache", u32(lin.conv_kernel));
        return;
    }
    const std::int64_t inner = lin.value_heads * lin.value_head_dim;
    g.u32(a + ".ssm.conv_kernel", u32(lin.conv_kernel))
        .u32(a + ".ssm.state_size", u32(lin.key_head_dim))
        .u32(a + ".ssm.group_count", u32(lin.key_heads))
        .u32(a + ".ssm.time_step_rank", u32(lin.value_heads))
        .u32(a + ".ssm.inner_size", u32(inner));
    if (a == "qwen35" || a == "qwen35moe") {
        g.u32(a + ".full_attention_interval", u32(*m.kv_layers.interval))
            .i32s(a + ".rope.dimension_sections", {11, 11, 10, 0});
        return;
    }
    if (a == "qwen3next") {
        // conversion/qwen.py writes the interval; its RoPE over a quarter of each head changes no
        // shape, and the general keys give rope.dimension_count already.
        g.u32(a + ".full_attention_interval", u32(*m.kv_layers.interval));
        return;
    }
    // Granite's converter (conversion/granite.py) writes the config's multipliers as scales, and
    // for a hybrid rope.scaling.finetuned false: no RoPE. Granite-4.0-H-350M's config gives
    // embedding 12, residual 0.246, logits 3 and attention 0.015625; no value changes a shape, but
    // each scale is an operation of the graph.
    g.f32(a + ".embedding_scale", 12.0f)
        .f32(a + ".residual_scale", 0.246f)
        .f32(a + ".logit_scale", 3.0f)
        .f32(a + ".attention.scale", 0.015625f)
        .boolean(a + ".rope.scaling.finetuned", false);
}

/// deepseek2's keys as conversion/deepseek.py writes them: the latent attention's
/// (write_mla_attention_keys), the leading dense layers, the shared experts and the router's
/// sigmoid gating (expert_gating_func 2) where the router has a score bias (V3, R1, Kimi K2), the
/// softmax default otherwise. A model of 27 layers loads as V2-Lite, whose loader reads no
/// q_lora_rank (src/models/deepseek2.cpp).
void write_mla_keys(const Model& m, ShapeGguf& g) {
    const TensorWidths& w = *m.tensors;
    const std::string& a = w.llama_arch;
    auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
    auto u64 = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    write_mla_attention_keys(g, a, u64(m.mla->kv_lora_rank), u64(m.mla->qk_rope_head_dim), u64(*m.head_dim),
                             u64(*m.v_head_dim));
    g.u32(a + ".leading_dense_block_count", u32(w.dense_layers)).u32(a + ".expert_shared_count", u32(w.shared_experts));
    if (w.q_lora_rank > 0) g.u32(a + ".attention.q_lora_rank", u32(w.q_lora_rank));
    if (w.expert_score_bias) g.u32(a + ".expert_gating_func", 2);
}

/// The GGUF of the model's tensors, in f32, with its architecture's keys as convert_hf_to_gguf
/// writes them (only those llama.cpp reads for the hyperparameters and the tensor shapes).
void write_weights_gguf(const std::string& id, const Model& m, const std::vector<GgufTensorShape>& tensors,
                        const fs::path& path) {
    const TensorWidths& w = *m.tensors;
    const std::string& a = w.llama_arch;
    auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
    ShapeGguf g;
    g.str("general.architecture", a)
        .str("general.name", id)
        .u32(a + ".context_length", u32(m.native_context.value_or(4096)))
        .u32(a + ".embedding_length", u32(w.hidden_size))
        .u32(a + ".block_count", u32(*m.num_layers))
        .u32(a + ".feed_forward_length", u32(w.experts > 0 && a == "llama" ? w.expert_ffn_size : w.ffn_size))
        .u32(a + ".attention.head_count", u32(*m.attention_heads))
        .f32(a + ".attention.layer_norm_rms_epsilon", 1e-6f)
        .u32(a + ".vocab_size", u32(w.vocab_size))
        .str("tokenizer.ggml.model", "none");
    if (a == "deepseek2") {
        write_mla_keys(m, g);
    } else {
        g.u32(a + ".attention.key_length", u32(*m.head_dim))
            .u32(a + ".attention.value_length", u32(m.v_head_dim.value_or(*m.head_dim)))
            .u32(a + ".rope.dimension_count", u32(*m.head_dim));
    }
    // The sliding window of Gemma 3 and gpt-oss (their patterns, five-to-one and one-to-one, are
    // the loader's defaults); the compute buffers then have the sliding layers' mask beside the
    // full one.
    if (!gguf_kv_heads_per_layer(a)) g.u32(a + ".attention.head_count_kv", u32(gguf_head_count_kv(m)));
    if (a == "llama4") g.u32(a + ".interleave_moe_layer_step", 1);  // Scout: experts in every layer
    if (a == "qwen35" || a == "qwen35moe" || a == "qwen3next" || a == "granitehybrid" || a == "lfm2") {
        write_hybrid_keys(m, g);
    }
    if ((a == "gemma3" || a == "gpt-oss") && m.sliding) g.u32(a + ".attention.sliding_window", u32(m.sliding->window));
    if (w.experts > 0) {
        g.u32(a + ".expert_count", u32(w.experts))
            .u32(a + ".expert_used_count", u32(w.experts_used > 0 ? w.experts_used : 2));
        if (a != "llama") g.u32(a + ".expert_feed_forward_length", u32(w.expert_ffn_size));
        if (w.shared_expert_ffn_size > 0) {
            g.u32(a + ".expert_shared_feed_forward_length", u32(w.shared_expert_ffn_size));
        }
    }
    for (const auto& t : tensors) {
        std::vector<std::uint64_t> dims;
        for (int d = 0; d < t.dims; ++d) dims.push_back(static_cast<std::uint64_t>(t.ne[static_cast<std::size_t>(d)]));
        g.tensor(t.name, dims);
    }
    g.write(path);
}

/// The compute buffers: how many settings, how many kvcat gives to the printed 0.01 MiB, and by
/// stage the most it falls short of llama.cpp's figure (a share of that figure).
struct ComputeTally {
    int settings = 0, exact = 0, above = 0;
    int server = 0;                    ///< of the settings, those with llama-server's outputs (one a slot)
    int graphs = 0, graphs_equal = 0;  ///< kvcat's allocator over libllama's own graph
    int graphs_not_reserved = 0;       ///< libllama gave no graph the second time
    int built = 0, built_equal = 0;    ///< kvcat's own graph of the model: node for node, and its buffer
    std::set<std::string> built_architectures;
    std::map<std::string, double> most_under;
    std::map<std::string, int> by_stage;
    std::map<std::string, int> exact_by_stage;
};

/// kvcat's model of ggml-alloc (engines/llamacpp/ggml_alloc.h) over the graph libllama reserves
/// first (sched_reserve: the prompt's, n_outputs = min(n_tokens, n_outputs_max)) must give the
/// buffer it printed, to the byte's printed 0.01 MiB. Where kvcat builds the model's graph itself
/// (engines/llamacpp/llamacpp_graph.h), it must be libllama's node for node, and its buffer the
/// printed one. With plant, the first graph's largest tensor is made 1 MiB larger, so that
/// comparison must fail.
void check_allocator(const std::string& id, const Model& m, const std::string& setting, llama_context* ctx,
                     const LlamaGraphSetting& gs, bool plant, const Printed& printed, ComputeTally& t) {
    if (!printed.compute_mib) return;
    auto outputs = static_cast<std::uint32_t>(gs.outputs > 0 ? std::min(gs.tokens, gs.outputs) : gs.tokens);
    Printed ignored;
    g_printed = &ignored;
    GgmlGraph g =
        reserve_graph(ctx, static_cast<std::uint32_t>(gs.tokens), static_cast<std::uint32_t>(gs.seqs), outputs);
    g_printed = nullptr;
    if (g.nodes.empty()) {
        // libllama allocates the buffer again to reserve a graph; one larger than this machine
        // can give (25 GiB) fails there, and that setting is left uncompared.
        ++t.graphs_not_reserved;
        return;
    }
    ++t.graphs;
    if (plant && t.graphs == 1) {
        auto largest = std::max_element(g.tensors.begin(), g.tensors.end(), [](const auto& a, const auto& b) {
            return (a.external ? 0 : a.bytes) < (b.external ? 0 : b.bytes);
        });
        largest->bytes += 1 << 20;
    }
    auto mib = [](std::int64_t bytes) { return fmt::format("{:.2f}", static_cast<double>(bytes) / 1024.0 / 1024.0); };
    GgmlAllocResult r = ggml_alloc_graph_size(g);
    if (r.error.empty() && mib(r.bytes) == *printed.compute_mib) {
        ++t.graphs_equal;
    } else {
        std::cout << fmt::format(
            "DISAGREE {} allocator {}: llama.cpp {} MiB, kvcat's ggml-alloc over its {} nodes {} MiB{}\n", id, setting,
            *printed.compute_mib, g.nodes.size(), mib(r.bytes), r.error.empty() ? "" : " (" + r.error + ")");
    }
    auto ours = llamacpp_graph(m, gs);
    if (!ours) {
        if (std::getenv("KVCAT_ORACLE_EVERY_BUFFER")) {
            std::cout << fmt::format("graph {} {}: not built: {}\n", id, setting, llamacpp_graph_unsupported(m, gs));
        }
        return;
    }
    ++t.built;
    t.built_architectures.insert(m.tensors->llama_arch);
    std::string difference = graph_difference(*ours, g);
    std::int64_t bytes = ggml_alloc_graph_size(*ours).bytes;
    if (std::getenv("KVCAT_ORACLE_EVERY_BUFFER")) {
        std::cout << fmt::format("graph {} {}: llama.cpp {} MiB, kvcat's graph {} MiB\n", id, setting,
                                 *printed.compute_mib, mib(bytes));
    }
    if (difference.empty() && mib(bytes) == *printed.compute_mib) {
        ++t.built_equal;
        return;
    }
    std::cout << fmt::format("DISAGREE {} graph {}: llama.cpp {} MiB, kvcat's graph {} MiB{}\n", id, setting,
                             *printed.compute_mib, mib(bytes), difference.empty() ? "" : "; " + difference);
}

/// llama.cpp's CPU compute buffer for a grid of settings (flash attention on and off, two contexts,
/// -ub 512 and 2048, one and four sequences, unified or not), held to kvcat's
/// (engines/llamacpp/llamacpp_compute.h): never above it, and how far below.
void check_compute(const std::string& id, const Model& m, llama_model* loaded, bool plant, ComputeTally& t) {
    // Flash attention on and off with an f16 cache, on with a quantized K and V (q8_0 and q4_0:
    // their Hadamard rotations; a quantized V needs flash attention), and on and off with an f32
    // cache at the smaller context (flash attention takes f16 copies of it). The stages are
    // tallied over the f16 settings; the graphs over all.
    for (int mode = 0; mode < 5; ++mode) {
        const bool fa = mode != 1 && mode != 4;
        const bool quantized = mode == 2;
        const bool f32 = mode >= 3;
        for (std::int64_t ctx : {4096, 32768}) {
            if (f32 && ctx != 4096) continue;
            for (std::int64_t ub : {512, 2048}) {
                for (std::int64_t np : {1, 4}) {
                    for (int variant = 0; variant < 4; ++variant) {
                        // unified or not, and the library's outputs (every token) or llama-server's
                        // (one a slot: its n_outputs_max, tools/server/server-context.cpp)
                        const bool unified = variant % 2 == 1;
                        const bool server = variant >= 2;
                        if (unified && np == 1) continue;
                        llama_context_params p = llama_context_default_params();
                        p.n_outputs_max = server ? static_cast<std::uint32_t>(np) : 0;
                        // llama-server keeps a sliding window's cache at its window (common.h:
                        // swa_full false); the library's default is a full-size one.
                        p.swa_full = !server;
                        p.n_ctx = static_cast<std::uint32_t>(ctx);
                        p.n_ubatch = static_cast<std::uint32_t>(ub);
                        p.n_batch = 2048;
                        p.n_seq_max = static_cast<std::uint32_t>(np);
                        p.kv_unified = unified;
                        p.flash_attn_type = fa ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
                        p.type_k = f32 ? GGML_TYPE_F32 : quantized ? GGML_TYPE_Q8_0 : GGML_TYPE_F16;
                        p.type_v = f32 ? GGML_TYPE_F32 : quantized ? GGML_TYPE_Q4_0 : GGML_TYPE_F16;
                        p.n_threads = 1;
                        p.n_threads_batch = 1;
                        p.no_perf = true;
                        Printed printed;
                        g_printed = &printed;
                        llama_context* ctx_made = llama_init_from_model(loaded, p);
                        g_printed = nullptr;
                        std::string setting = fmt::format("-c {} -ub {} -np {}{} -fa {}{}{}", ctx, ub, np,
                                                          unified ? " -kvu" : "", fa ? "on" : "off",
                                                          f32         ? " -ctk f32 -ctv f32"
                                                          : quantized ? " -ctk q8_0 -ctv q4_0"
                                                                      : "",
                                                          server ? " (llama-server's outputs)" : "");
                        EngineSettings e;
                        e.context = ctx;
                        e.parallel = np;
                        e.kv_unified = unified;
                        e.ubatch = ub;
                        e.flash_attn = fa;
                        e.swa_full = p.swa_full;  // the library's default: a full-size SWA cache
                        EngineAnswer a = engine_allocation(m, *find_cache_dtype("f16"), Engine::llamacpp, e);
                        std::int64_t streams = unified ? 1 : np;
                        std::int64_t swa = 0;
                        for (const auto& part : a.parts) {
                            if (part.kind == EnginePartKind::swa_cache) swa = part.cells;
                        }
                        if (ctx_made) {
                            LlamaGraphSetting gs;
                            gs.tokens = std::min(ctx, ub);
                            gs.seqs = np;
                            gs.unified = unified;
                            gs.cells_per_stream = a.tokens.value_or(ctx) / streams;
                            gs.swa_cells_per_stream = swa;
                            gs.outputs = server ? np : 0;
                            gs.flash_attn = fa;
                            gs.cache_k = f32 ? "f32" : quantized ? "q8_0" : "f16";
                            gs.cache_v = f32 ? "f32" : quantized ? "q4_0" : "f16";
                            check_allocator(id, m, setting, ctx_made, gs, plant, printed, t);
                            llama_free(ctx_made);
                        }
                        if (quantized || f32) continue;
                        ++t.settings;
                        if (server) ++t.server;
                        LlamaComputeSetting cs{ub, a.tokens.value_or(ctx), a.tokens.value_or(ctx) / streams,
                                               fa, server ? np : 0,        swa};
                        auto ours = llamacpp_compute_buffer(m, cs);
                        if (!printed.compute_mib || !ours) {
                            ++t.above;
                            std::cout << fmt::format("DISAGREE {} compute {}: llama.cpp {}, kvcat {}\n", id, setting,
                                                     printed.compute_mib.value_or("(no line)"),
                                                     ours ? "a figure" : "none");
                            continue;
                        }
                        double engine = std::stod(*printed.compute_mib);
                        double kvcat = static_cast<double>(ours->bytes) / 1024.0 / 1024.0;
                        if (plant && t.settings == 1) kvcat = engine + 1.0;  // one figure above the engine's
                        ++t.by_stage[ours->stage];
                        if (fmt::format("{:.2f}", kvcat) == *printed.compute_mib) {
                            ++t.exact;
                            ++t.exact_by_stage[ours->stage];
                        }
                        if (kvcat > engine + 0.005) {
                            ++t.above;
                            std::cout << fmt::format(
                                "DISAGREE {} compute {}: llama.cpp {} MiB, kvcat {:.2f} MiB ({})\n", id, setting,
                                *printed.compute_mib, kvcat, ours->stage);
                        }
                        double under = (engine - kvcat) / engine;
                        auto& most = t.most_under[ours->stage];
                        most = std::max(most, under);
                        if (std::getenv("KVCAT_ORACLE_EVERY_BUFFER")) {
                            std::cout << fmt::format(
                                "compute {} {}: llama.cpp {} MiB, kvcat {:.2f} MiB ({}, {:.1f}% under)\n", id, setting,
                                *printed.compute_mib, kvcat, ours->stage, 100.0 * under);
                        }
                    }
                }
            }
        }
    }
}

struct Tally {
    long tensors = 0, agree = 0;
    int plans = 0, plans_agree = 0, models = 0;
    std::set<std::string> architectures;
    ComputeTally compute;
};

/// One model: llama.cpp loads its tensors, then every mix's dry run against kvcat's plan.
void check_model(const Record& r, const fs::path& work, bool plant, Tally& t) {
    const Model& m = *r.model;
    std::vector<GgufTensorShape> tensors = llamacpp_tensors(m);
    fs::path gguf = work / (r.id.substr(r.id.find('/') + 1) + ".gguf");
    write_weights_gguf(r.id, m, tensors, gguf);
    ++t.models;
    t.architectures.insert(m.tensors->llama_arch);

    llama_model_params mp = shapes_only_params();
    Printed load;
    g_printed = &load;
    llama_model* loaded = llama_model_load_from_file(gguf.c_str(), mp);
    g_printed = nullptr;
    if (!loaded) {
        std::cout << fmt::format("DISAGREE {}: llama.cpp does not load kvcat's {} tensors:{}\n", r.id, tensors.size(),
                                 joined(load.errors));
        ++t.plans;
        fs::remove(gguf);
        return;
    }
    check_compute(r.id, m, loaded, plant, t.compute);
    llama_model_free(loaded);

    // Every mix without an importance matrix, and those an importance matrix changes with one
    // (an empty one: the dry run reads no data, only whether there is a matrix).
    std::vector<std::pair<LlamaMix, bool>> runs;
    for (const LlamaMix& mix : llama_mixes()) runs.emplace_back(mix, false);
    for (const char* name : {"Q4_0", "Q5_0", "IQ4_NL", "IQ4_XS"}) runs.emplace_back(*find_llama_mix(name), true);
    for (const auto& [mix, imatrix] : runs) {
        QuantPlan plan = llamacpp_quant_plan(m, mix, imatrix);
        if (plant) plan.types[plan.types.size() / 2].type = *find_weight_quant("Q8_0");
        llama_model_quantize_params qp = llama_model_quantize_default_params();
        qp.ftype = *ftype_of(mix.name);
        qp.nthread = 1;
        qp.dry_run = true;
        const llama_model_imatrix_data no_entries[] = {{nullptr, nullptr, 0}};
        if (imatrix) qp.imatrix = no_entries;
        Printed printed;
        g_printed = &printed;
        std::uint32_t status = llama_model_quantize(gguf.c_str(), (work / "unused.gguf").c_str(), &qp);
        g_printed = nullptr;
        ++t.plans;
        std::vector<std::string> differ;
        for (const QuantTensor& q : plan.types) {
            ++t.tensors;
            auto it = printed.types.find(q.tensor->name);
            std::string engine = it == printed.types.end() ? "(not printed)" : it->second;
            if (engine == ggml_type_name(q.type)) {
                ++t.agree;
            } else if (differ.size() < 5) {
                differ.push_back(
                    fmt::format("{}: llama.cpp {}, kvcat {}", q.tensor->name, engine, ggml_type_name(q.type)));
            }
        }
        std::string ours = fmt::format("{:.2f}", static_cast<double>(plan.bytes) / 1024.0 / 1024.0);
        if (status != 0) differ.push_back("llama_model_quantize failed:" + joined(printed.errors));
        if (printed.types.size() != plan.types.size()) {
            differ.push_back(
                fmt::format("llama.cpp printed {} tensors, kvcat planned {}", printed.types.size(), plan.types.size()));
        }
        if (printed.quant_size != ours) {
            differ.push_back(
                fmt::format("quant size: llama.cpp {} MiB, kvcat {} MiB", printed.quant_size.value_or("?"), ours));
        }
        if (differ.empty()) {
            ++t.plans_agree;
        } else {
            std::cout << fmt::format("DISAGREE {} {}{}:{}\n", r.id, mix.name, imatrix ? " --imatrix" : "",
                                     joined(differ));
        }
    }
    std::cout << fmt::format("{} ({}, {} tensors): {} plans checked\n", r.id, m.tensors->llama_arch, tensors.size(),
                             runs.size());
    fs::remove(gguf);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: kvcat_llama_quant_oracle RECORDS_ROOT WORK_DIR LIB_DIR [--only MODEL_ID] [--plant]\n";
        return 2;
    }
    const fs::path records = argv[1];
    const fs::path work = argv[2];
    const std::string lib_dir = argv[3];
    std::optional<std::string> only;
    bool plant = false;
    for (int i = 4; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--only" && i + 1 < argc) {
            only = argv[++i];
        } else if (arg == "--plant") {
            plant = true;
        } else {
            std::cerr << "kvcat_llama_quant_oracle: unknown option " << arg << "\n";
            return 2;
        }
    }
    fs::create_directories(work);
    std::vector<Record> models = load_model_records(records);

    llama_log_set(on_log, nullptr);
    ggml_backend_load_all_from_path(lib_dir.c_str());
    llama_backend_init();
    Tally t;
    std::vector<std::string> without;
    for (const auto& r : models) {
        if (only && r.id != *only) continue;
        if (!r.model || !has_tensor_inventory(*r.model)) {
            without.push_back(r.id);
            continue;
        }
        try {
            check_model(r, work, plant, t);
        } catch (const std::exception& e) {
            std::cout << fmt::format("DISAGREE {}: {}\n", r.id, e.what());
            ++t.plans;
        }
    }
    std::cout << fmt::format("without a tensors mapping, not checked: {}\n", without.size());
    std::string stages;
    for (const auto& [stage, n] : t.compute.by_stage) {
        stages += fmt::format("; {} at the {} stage ({} equal, at most {:.1f}% under)", n, stage,
                              t.compute.exact_by_stage[stage], 100.0 * t.compute.most_under[stage]);
    }
    std::cout << fmt::format(
        "{} compute buffers ({} with llama-server's outputs): kvcat above llama.cpp's in {}, equal to the printed "
        "0.01 MiB in {}{}\n",
        t.compute.settings, t.compute.server, t.compute.above, t.compute.exact, stages);
    std::cout << fmt::format(
        "kvcat's ggml-alloc over libllama's own graphs: {} of {} buffers equal to the printed 0.01 MiB ({} not "
        "reserved a second time: libllama could not allocate them again)\n",
        t.compute.graphs_equal, t.compute.graphs, t.compute.graphs_not_reserved);
    std::string built;
    for (const auto& a : t.compute.built_architectures) built += fmt::format("{}{}", built.empty() ? "" : ", ", a);
    std::cout << fmt::format(
        "kvcat's own graphs ({}): {} of {} equal to libllama's node for node, with its buffer to the printed 0.01 "
        "MiB\n",
        built, t.compute.built_equal, t.compute.built);
    std::cout << fmt::format(
        "{} of {} tensor types agree, {} of {} plans agree ({} model records in {} architectures x {} mixes, 4 of "
        "them also with an importance matrix; llama.cpp {})\n",
        t.agree, t.tensors, t.plans_agree, t.plans, t.models, t.architectures.size(), llama_mixes().size(),
        KVCAT_LLAMA_RELEASE);
    std::string mixes;
    for (const LlamaMix& mix : llama_mixes()) mixes += fmt::format("{}{}", mixes.empty() ? "" : " ", mix.name);
    std::string arches;
    for (const auto& a : t.architectures) arches += fmt::format("{}{}", arches.empty() ? "" : " ", a);
    std::cout << fmt::format("mixes: {}\narchitectures: {}\n", mixes, arches);
    llama_backend_free();
    bool allocator = t.compute.graphs_equal == t.compute.graphs && t.compute.built_equal == t.compute.built;
    return t.plans_agree == t.plans && t.plans > 0 && t.compute.above == 0 && allocator ? 0 : 1;
}
