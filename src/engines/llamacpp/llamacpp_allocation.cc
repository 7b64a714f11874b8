#include "engines/llamacpp/llamacpp_allocation.h"

#include <algorithm>

#include <fmt/format.h>

#include "engines/llamacpp/llamacpp_fit.h"
#include "model/curve.h"
#include "model/kv_math.h"
#include "support/bisect.h"

namespace kvcat {

namespace {

constexpr std::int64_t kCellPad = kLlamaCellPad;

bool in_scope(LayerSet::Role role, LlamaCacheScope scope) {
    using Role = LayerSet::Role;
    switch (scope) {
        case LlamaCacheScope::base:
            return role == Role::full || role == Role::mla;
        case LlamaCacheScope::swa:
            return role == Role::sliding || role == Role::chunked;
        case LlamaCacheScope::all:
            return role != Role::state;
    }
    return false;
}

std::string bytes_words(const Rational& r) {
    return r.is_integer() ? group_thousands(r.num()) : r.to_display();
}

}  // namespace

LlamaCacheBytes llamacpp_cache_bytes(const Model& model, LlamaCacheScope scope, const CacheDtype& k,
                                     const CacheDtype& v, std::int64_t cells, std::int64_t streams, bool mla_v_cache) {
    LlamaCacheBytes out;
    Rational slots = Rational(cells) * Rational(streams);
    for (const auto& set : engine_layers(model)) {
        if (!in_scope(set.role, scope)) continue;
        Rational k_width, v_width;
        if (set.role == LayerSet::Role::mla) {
            // One head of the latent as K; V is the latent's first kv_lora_rank values, kept
            // apart only by builds before the V-less cache.
            k_width = Rational(set.head_dim);
            v_width = mla_v_cache && model.mla ? Rational(model.mla->kv_lora_rank) : Rational(0);
        } else {
            k_width = Rational(set.kv_heads) * Rational(set.head_dim);
            v_width = k_width;
        }
        out.layers = checked_add(out.layers, set.layers);
        out.k += Rational(set.layers) * k_width * k.bytes_per_element() * slots;
        out.v += Rational(set.layers) * v_width * v.bytes_per_element() * slots;
    }
    return out;
}

LlamaStateBytes llamacpp_state_bytes(const Model& model, std::int64_t cells) {
    // llama_memory_recurrent keeps both tensors in f32 (create_memory passes GGML_TYPE_F32 for
    // R and S), one cell per sequence.
    StateElements e = fixed_state_elements(model);
    LlamaStateBytes out;
    out.layers = e.layers;
    out.r = e.conv * Rational(4) * Rational(cells);
    out.s = e.recurrent * Rational(4) * Rational(cells);
    return out;
}

std::int64_t llamacpp_cells(std::int64_t context, std::int64_t parallel, bool unified, std::int64_t cell_pad) {
    std::int64_t n_ctx = llama_pad(context, cell_pad);
    if (unified || parallel <= 1) return n_ctx;
    return llama_pad(n_ctx / parallel, cell_pad);
}

std::int64_t llamacpp_swa_cells(std::int64_t size_base, std::int64_t window, std::int64_t parallel, bool unified,
                                std::int64_t ubatch, bool swa_full, std::int64_t cell_pad) {
    if (swa_full) return size_base;
    std::int64_t want = checked_add(checked_mul(window, unified ? parallel : 1), ubatch);
    return llama_pad(std::min(size_base, want), cell_pad);
}

std::int64_t llamacpp_cell_pad(std::string_view version, bool flash_attn) {
    auto build = llamacpp_build(version);
    if (!build || *build >= 6975) return kCellPad;
    if (*build >= 6868) return 1;
    if (*build >= 2871) return flash_attn ? kCellPad : 32;
    if (*build >= 2771) return kCellPad;
    if (*build >= 2493) return 32;
    return 1;
}

bool llamacpp_casts_mask(const EngineSettings& s) {
    auto build = llamacpp_build(s.version);
    return s.flash_attn && build && *build <= kLastBuildCastingTheMask;
}

std::int64_t llamacpp_reserve_outputs(const EngineSettings& s) {
    auto build = llamacpp_build(s.version);
    if (build && *build <= kLastBuildReservingEveryOutput) return 0;
    return std::max<std::int64_t>(1, s.parallel);
}

bool llamacpp_has_swa_cache(const Model& model) {
    if (!model.sliding || model.sliding->layers == 0) return false;
    auto basis = model_basis(model);
    return basis && !basis->window;
}

namespace {

/// src/llama-kv-cache-dsa.cpp at 80fb11ac: an MLA model with a lightning indexer (DeepSeek-V3.2)
/// gets a second llama_kv_cache for the indexer's keys, one head of the indexer's width per
/// layer at -ctk's type, with the main cache's cells and streams and no V. Its bytes per cell
/// per stream over `layers` layers; 0 for any other model. Found by the oracle test.
Rational indexer_bytes_per_cell(const Model& model, const CacheDtype& k, std::int64_t layers) {
    if (!model.mla || model.variant != AttentionVariant::mla || !model.indexer) return Rational(0);
    return Rational(layers) * Rational(model.indexer->head_dim) * k.bytes_per_element();
}

struct LlamaLayout {
    std::int64_t context = 0;     ///< -c, after 0 -> the model's native context
    std::int64_t pad = kCellPad;  ///< what the build pads cells to (llamacpp_cell_pad)
    std::int64_t cells = 0;
    std::int64_t streams = 1;
    std::int64_t swa_cells = 0;
    std::int64_t state_cells = 1;
};

LlamaLayout layout_for(const Model& model, const EngineSettings& s, std::int64_t context) {
    LlamaLayout l;
    l.context = context;
    std::int64_t parallel = std::max<std::int64_t>(1, s.parallel);
    l.pad = llamacpp_cell_pad(s.version, s.flash_attn);
    l.cells = llamacpp_cells(context, parallel, s.kv_unified, l.pad);
    l.streams = s.kv_unified ? 1 : parallel;
    if (llamacpp_has_swa_cache(model)) {
        l.swa_cells =
            llamacpp_swa_cells(l.cells, model.sliding->window, parallel, s.kv_unified, s.ubatch, s.swa_full, l.pad);
    }
    l.state_cells = parallel;
    return l;
}

/// The caches of a layout. `every_head` for an MLA model under a build that cached every
/// head's K and V (llamacpp_caches_every_head), not the latent.
void fill_parts(const Model& model, const CacheDtype& k, const CacheDtype& v, const LlamaLayout& l, bool every_head,
                EngineAnswer& a) {
    a.parts.clear();
    bool mla = model.mla && model.variant == AttentionVariant::mla && !every_head;
    bool swa = llamacpp_has_swa_cache(model);
    LlamaCacheBytes base = every_head ? llamacpp_every_head_bytes(model, k, v, checked_mul(l.cells, l.streams))
                                      : llamacpp_cache_bytes(model, swa ? LlamaCacheScope::base : LlamaCacheScope::all,
                                                             k, v, l.cells, l.streams);
    if (base.layers > 0) {
        EnginePart p;
        p.kind = mla ? EnginePartKind::mla_latent : EnginePartKind::base_cache;
        p.layers = base.layers;
        p.cells = l.cells;
        p.streams = l.streams;
        p.k_bytes = base.k;
        p.v_bytes = base.v;
        p.k_type = ggml_name(k);
        p.v_type = ggml_name(v);
        p.how = fmt::format("{} layers x {} cells x {} stream{}", base.layers, group_thousands(l.cells), l.streams,
                            l.streams == 1 ? "" : "s");
        a.parts.push_back(p);
    }
    if (mla && model.indexer && base.layers > 0) {
        EnginePart p;
        p.kind = EnginePartKind::indexer;
        p.layers = base.layers;
        p.cells = l.cells;
        p.streams = l.streams;
        p.k_bytes = indexer_bytes_per_cell(model, k, base.layers) * Rational(l.cells) * Rational(l.streams);
        p.v_bytes = Rational(0);
        p.k_type = ggml_name(k);
        p.v_type = ggml_name(v);
        p.how = fmt::format("{} layers x {} indexer keys x {} cells x {} stream{}", base.layers,
                            model.indexer->head_dim, group_thousands(l.cells), l.streams, l.streams == 1 ? "" : "s");
        a.parts.push_back(p);
    }
    if (swa) {
        LlamaCacheBytes sw = llamacpp_cache_bytes(model, LlamaCacheScope::swa, k, v, l.swa_cells, l.streams);
        EnginePart p;
        p.kind = EnginePartKind::swa_cache;
        p.layers = sw.layers;
        p.cells = l.swa_cells;
        p.streams = l.streams;
        p.k_bytes = sw.k;
        p.v_bytes = sw.v;
        p.k_type = ggml_name(k);
        p.v_type = ggml_name(v);
        p.how = fmt::format("{} layers x {} cells x {} stream{}", sw.layers, group_thousands(l.swa_cells), l.streams,
                            l.streams == 1 ? "" : "s");
        a.parts.push_back(p);
    }
    if (model.linear) {
        LlamaStateBytes st = llamacpp_state_bytes(model, l.state_cells);
        EnginePart p;
        p.kind = EnginePartKind::recurrent_state;
        p.layers = st.layers;
        p.cells = l.state_cells;
        p.k_bytes = st.r;
        p.v_bytes = st.s;
        p.k_type = "f32";
        p.v_type = "f32";
        p.how = fmt::format("{} layers x {} cell{} (one per sequence), R and S in f32", st.layers, l.state_cells,
                            l.state_cells == 1 ? "" : "s");
        a.parts.push_back(p);
    }
    a.kv_bytes = Rational(0);
    a.state_bytes = Rational(0);
    for (const auto& p : a.parts) {
        if (p.kind == EnginePartKind::recurrent_state) {
            a.state_bytes += p.bytes();
        } else {
            a.kv_bytes += p.bytes();
        }
    }
}

}  // namespace

LlamaCoefficients llamacpp_coefficients(const Model& model, const CacheDtype& dtype) {
    llamacpp_refusals(model, dtype, dtype, EngineSettings());
    // One cell in one stream: the bytes are layers x width x bytes per element x cells x streams.
    LlamaCoefficients c;
    bool swa = llamacpp_has_swa_cache(model);
    LlamaCacheBytes base =
        llamacpp_cache_bytes(model, swa ? LlamaCacheScope::base : LlamaCacheScope::all, dtype, dtype, 1, 1);
    c.base_per_cell = base.k + base.v;
    c.base_per_cell += indexer_bytes_per_cell(model, dtype, base.layers);
    if (swa) {
        LlamaCacheBytes sw = llamacpp_cache_bytes(model, LlamaCacheScope::swa, dtype, dtype, 1, 1);
        c.swa_per_cell = sw.k + sw.v;
        c.swa_window = model.sliding->window;
    }
    if (model.linear) {
        LlamaStateBytes st = llamacpp_state_bytes(model, 1);
        c.state_per_sequence = st.r + st.s;
    }
    return c;
}

std::optional<std::int64_t> llamacpp_build(std::string_view version) {
    if (version.size() < 2 || version[0] != 'b') return std::nullopt;
    std::int64_t build = 0;
    for (char c : version.substr(1)) {
        if (c < '0' || c > '9' || build > 1000000) return std::nullopt;
        build = build * 10 + (c - '0');
    }
    return build;
}

LlamaStateLine llamacpp_state_line_for(std::string_view version) {
    auto build = llamacpp_build(version);
    if (!build) return LlamaStateLine::rs_seq_p;
    return *build <= 8999 ? LlamaStateLine::seqs : LlamaStateLine::rs_seq;
}

bool llamacpp_caches_every_head(const Model& model, std::string_view version) {
    if (!model.mla || model.variant != AttentionVariant::mla) return false;
    auto build = llamacpp_build(version);
    return build && *build < kLlamaLatentBuild;
}

LlamaCacheBytes llamacpp_every_head_bytes(const Model& model, const CacheDtype& k, const CacheDtype& v,
                                          std::int64_t cells) {
    if (!model.mla || !model.attention_heads || !model.head_dim || !model.v_head_dim) {
        throw EngineError(
            "every head's expanded K (qk_nope + rope) and V (v_head_dim) are cached, and the model record gives no "
            "head_dim and v_head_dim for them");
    }
    LlamaCacheBytes b;
    b.layers = model.kv_layers.count.value_or(model.num_layers.value_or(0));
    Rational slots = Rational(b.layers) * Rational(cells) * Rational(*model.attention_heads);
    b.k = slots * Rational(*model.head_dim) * k.bytes_per_element();
    b.v = slots * Rational(*model.v_head_dim) * v.bytes_per_element();
    return b;
}

std::string ggml_name(const CacheDtype& d) {
    if (d.name == "fp16") return "f16";
    if (d.name == "fp32") return "f32";
    return std::string(d.name);
}

void llamacpp_refusals(const Model& model, const CacheDtype& k, const CacheDtype& v, const EngineSettings& s) {
    // common/arg.cpp: -ctk and -ctv take kv_cache_types only; "Unsupported cache type" else.
    static constexpr std::string_view kCacheTypes[] = {"f32",  "f16",    "bf16", "q8_0", "q4_0",
                                                       "q4_1", "iq4_nl", "q5_0", "q5_1"};
    for (const CacheDtype* d : {&k, &v}) {
        std::string name = ggml_name(*d);
        if (std::find(std::begin(kCacheTypes), std::end(kCacheTypes), name) == std::end(kCacheTypes)) {
            throw EngineRefusal(
                fmt::format("Unsupported cache type: {} (llama.cpp's cache types are f32, f16, bf16, "
                            "q8_0, q4_0, q4_1, iq4_nl, q5_0 and q5_1; common/arg.cpp)",
                            name));
        }
    }
    // src/llama-context.cpp, llama_context(): n_seq_max above LLAMA_MAX_SEQ (256, llama-cparams.h).
    if (s.parallel > kLlamaMaxSeq) {
        throw EngineRefusal(
            fmt::format("llama_init_from_model: failed to initialize the context: n_seq_max must be "
                        "<= {} (-np {})",
                        kLlamaMaxSeq, s.parallel));
    }
    // src/llama-context.cpp, llama_init_from_model(): an MLA model keeps one latent for K and V;
    // a build before b5137 kept every head's K and V, of any two types.
    if (model.mla && !llamacpp_caches_every_head(model, s.version) && ggml_name(k) != ggml_name(v)) {
        throw EngineRefusal(
            fmt::format("llama_init_from_model: model does not support different K ({}) and V ({}) cache types",
                        ggml_name(k), ggml_name(v)));
    }
    // src/llama-context.cpp, llama_init_from_model() at 80fb11ac: a quantized V cache needs flash
    // attention; -fa auto turns it on for one, -fa off is refused. Found by the oracle test.
    if (!s.flash_attn && v.block_values > 1) {
        throw EngineRefusal(fmt::format(
            "llama_init_from_model: quantized V cache requires flash_attn to be enabled (-ctv {} with -fa off)",
            ggml_name(v)));
    }
}

CacheDtype llamacpp_v_type(const CacheDtype& k, const EngineSettings& s) {
    if (!s.v_dtype) return k;
    auto found = find_cache_dtype(*s.v_dtype);
    if (!found) throw EngineError(fmt::format("unknown V cache type '{}'", *s.v_dtype));
    return *found;
}

std::int64_t llamacpp_context(const Model& model, const EngineSettings& s) {
    if (s.context > 0) return s.context;
    if (!model.native_context) throw EngineError("-c 0 takes the model's native context, which the record lacks");
    return *model.native_context;
}

std::int64_t llamacpp_largest_fit(std::int64_t unit, const Rational& available,
                                  const std::function<Rational(std::int64_t)>& bytes_at) {
    std::int64_t units = largest_holding(1, (std::int64_t{1} << 32) / unit,
                                         [&](std::int64_t n) { return !(bytes_at(n * unit) > available); });
    return units * unit;
}

EngineAnswer llamacpp_allocation(const Model& model, const CacheDtype& dtype, const EngineSettings& s) {
    CacheDtype v = llamacpp_v_type(dtype, s);
    llamacpp_refusals(model, dtype, v, s);
    std::int64_t parallel = std::max<std::int64_t>(1, s.parallel);
    std::int64_t context = llamacpp_context(model, s);
    bool every_head = llamacpp_caches_every_head(model, s.version);
    EngineAnswer a;
    a.engine = Engine::llamacpp;
    a.rule = s.version.empty() ? "llama.cpp, the newest rules held (llama-kv-cache.cpp at 3514e9f6, "
                                 "llama-kv-cache-iswa.cpp at 2aef9767)"
                               : fmt::format("llama.cpp {}, read with the newest rules held", s.version);
    a.sequences = parallel;
    a.llama_state_line = llamacpp_state_line_for(s.version);
    auto compute_at = [&](const LlamaLayout& l) {
        LlamaComputeSetting c{
            s.ubatch,    checked_mul(l.cells, l.streams), l.cells, s.flash_attn, llamacpp_reserve_outputs(s),
            l.swa_cells, llamacpp_casts_mask(s)};
        // The pinned release's graph where no other build is named.
        c.graph = s.version.empty();
        c.seqs = parallel;
        c.cache_k = std::string(dtype.name);
        c.cache_v = std::string(v.name);
        return llamacpp_compute_buffer(model, c);
    };
    if (s.available_bytes) {
        // The budget took off what the card holds (or the reserve); the rest of the runtime, the
        // compute buffer, grows with the cells and is taken here, as --fit projects it.
        const Rational in_budget = s.card_held ? s.card_held->bytes : s.reserve;
        auto bytes_at = [&](std::int64_t cells) {
            EngineAnswer probe;
            LlamaLayout l = layout_for(model, s, cells);
            fill_parts(model, dtype, v, l, every_head, probe);
            Rational beyond = llamacpp_runtime(compute_at(l), s).bytes - in_budget;
            return probe.kv_bytes + probe.state_bytes + (beyond > Rational(0) ? beyond : Rational(0));
        };
        if (llamacpp_fit_target_bytes(s) > Rational(0) && model.native_context) {
            // -c not given: --fit picks it from the model's trained context (llamacpp_fit.h).
            LlamaFitContext f =
                llamacpp_fit_context(*model.native_context, s.kv_unified ? 1 : parallel, *s.available_bytes, bytes_at);
            if (!f.fits) throw EngineRefusal(f.how);
            context = f.context;
            a.context_how = f.how;
        } else {
            // The largest -c whose allocation fits: contexts move in steps of 256 cells per stream.
            std::int64_t cell_pad = llamacpp_cell_pad(s.version, s.flash_attn);
            context = llamacpp_largest_fit(s.kv_unified ? cell_pad : cell_pad * parallel, *s.available_bytes, bytes_at);
            if (context == 0) throw EngineError(fmt::format("not even {} cells fit in the memory given", cell_pad));
        }
    }
    LlamaLayout l = layout_for(model, s, context);
    fill_parts(model, dtype, v, l, every_head, a);
    a.context = l.cells;
    a.tokens = checked_mul(l.cells, l.streams);
    a.compute_buffer = compute_at(l);
    LlamaRuntime runtime = llamacpp_runtime(a.compute_buffer, s);
    a.runtime_bytes = runtime.bytes;
    a.runtime_how = runtime.how;
    if (runtime.derived) a.card_held = s.card_held;
    LlamaHostSetting host{s.ubatch, *a.tokens, {l.cells}, s.flash_attn, dtype.block_values > 1, v.block_values > 1};
    if (l.swa_cells > 0) host.cache_cells.push_back(l.swa_cells);
    host.outputs = llamacpp_reserve_outputs(s);
    host.sequences = parallel;
    a.host_compute = llamacpp_host_compute(model, host, llamacpp_inputs_era_of(llamacpp_build(s.version)));
    a.fit_target_bytes = llamacpp_fit_target_bytes(s);
    Rational bpe = (dtype.bytes_per_element() + v.bytes_per_element()) / Rational(2);
    a.textbook_bytes_per_token = growing_kv_bytes_per_token(model, dtype);
    if (s.v_dtype) {
        // growing_kv_bytes_per_token is at one dtype; with K and V apart it is the mean of the two.
        a.textbook_bytes_per_token = a.textbook_bytes_per_token / dtype.bytes_per_element() * bpe;
    }
    std::int64_t per_sequence = std::max<std::int64_t>(1, context / parallel);
    a.textbook_kv_bytes = kv_cache_bytes(model, bpe, per_sequence) * Rational(parallel);
    a.textbook_state_bytes = fixed_state_bytes(model) * Rational(parallel);
    if (!a.parts.empty() && a.parts.front().kind != EnginePartKind::recurrent_state && a.tokens && *a.tokens > 0) {
        a.engine_bytes_per_token = a.parts.front().bytes() / Rational(*a.tokens);
    }

    // The places the allocation leaves the textbook, named.
    std::int64_t held = l.cells * l.streams;
    if (held != context) {
        a.differences.push_back(
            {"padding", fmt::format("-c {} becomes {} cells{}: llama.cpp{} pads n_ctx{} to {}{}",
                                    group_thousands(context), group_thousands(held),
                                    l.streams > 1 ? fmt::format(" ({} streams of {})", l.streams, l.cells) : "",
                                    s.version.empty() ? "" : " " + s.version,
                                    l.streams > 1 ? " and each stream's share" : "", l.pad,
                                    l.pad == kCellPad ? " (llama-context.cpp)"
                                                      : " without flash attention (llama_kv_cache_get_padding)")});
    }
    if (l.streams > 1) {
        a.differences.push_back(
            {"streams",
             fmt::format("{} sequences without --kv-unified: one stream each of {} cells, so no sequence "
                         "holds more than {} tokens (llama-kv-cache.cpp: n_stream = unified ? 1 : n_seq_max)",
                         parallel, group_thousands(l.cells), group_thousands(l.cells))});
    }
    if (llamacpp_has_swa_cache(model)) {
        a.differences.push_back(
            {"SWA reserve",
             s.swa_full ? fmt::format("--swa-full: the {} sliding layers keep all {} cells, not the window of {}",
                                      model.sliding->layers, group_thousands(l.swa_cells),
                                      group_thousands(model.sliding->window))
                        : fmt::format("the {} sliding layers keep {} cells per stream: the window {} x {} + ubatch {}, "
                                      "padded to 256, at most the base size (llama-kv-cache-iswa.cpp)",
                                      model.sliding->layers, group_thousands(l.swa_cells),
                                      group_thousands(model.sliding->window), s.kv_unified ? parallel : 1, s.ubatch)});
    } else if (model.sliding && !model_basis(model)->window) {
        a.differences.push_back({"SWA reserve", "the sliding layers are cached in full"});
    }
    if (model.linear) {
        Rational textbook = fixed_state_bytes(model);
        Rational engine = a.state_bytes / Rational(parallel);
        if (engine != textbook) {
            a.differences.push_back(
                {"state dtype", fmt::format("R and S are kept in f32: {} bytes per sequence, where the model record's "
                                            "dtypes give {} (llama-memory-recurrent.cpp)",
                                            bytes_words(engine), bytes_words(textbook))});
        }
    }
    if (every_head) {
        a.differences.push_back(
            {"MLA every head",
             fmt::format("llama.cpp {} (a build before b{}) caches every head's K ({} heads x {}) and V ({} heads x "
                         "{}), not the latent "
                         "of {}: the latent came with ggml-org/llama.cpp pull 12801 (a GGUF converted before it "
                         "still gets every head)",
                         s.version, kLlamaLatentBuild, model.attention_heads.value_or(0), model.head_dim.value_or(0),
                         model.attention_heads.value_or(0), model.v_head_dim.value_or(0), model.mla->latent_dim())});
    } else if (model.mla && model.variant == AttentionVariant::mla) {
        a.differences.push_back({"MLA latent",
                                 "K holds the latent (kv_lora_rank + rope, one head) and V holds "
                                 "nothing: the V-less cache of ggml-org/llama.cpp pull 19067"});
    }
    return a;
}

namespace {

std::string llama_cache_line(const EnginePart& p, std::int64_t sequences) {
    return fmt::format(
        "llama_kv_cache: size = {} MiB ({} cells, {} layers, {}/{} seqs), K ({}): {} MiB, V ({}): {} MiB",
        right_aligned(llamacpp_mib_text(p.bytes()), 7), right_aligned(std::to_string(p.cells), 6),
        right_aligned(std::to_string(p.layers), 3), right_aligned(std::to_string(sequences), 2), p.streams, p.k_type,
        right_aligned(llamacpp_mib_text(p.k_bytes), 7), p.v_type, right_aligned(llamacpp_mib_text(p.v_bytes), 7));
}

std::string llama_state_line(const EnginePart& p, const Model& m, LlamaStateLine wording) {
    // The recurrent memory counts every layer of the model in its line, not only the state's.
    // src/llama-memory-recurrent.cpp at 80fb11ac adds the rollback snapshots per sequence
    // (n_rs_seq, 0 unless speculation asks for them) and a P row (the PLE history, which no model
    // kvcat holds has: 0.00 MiB).
    std::int64_t layers = m.num_layers.value_or(p.layers);
    std::string seqs = right_aligned(std::to_string(p.cells), 2) + " seqs";
    if (wording != LlamaStateLine::seqs) seqs += "  0 rs_seq";
    std::string line = fmt::format(
        "llama_memory_recurrent: size = {} MiB ({} cells, {} layers, {}), R ({}): {} MiB, S ({}): {} MiB",
        right_aligned(llamacpp_mib_text(p.bytes()), 7), right_aligned(std::to_string(p.cells), 6),
        right_aligned(std::to_string(layers), 3), seqs, p.k_type, right_aligned(llamacpp_mib_text(p.k_bytes), 7),
        p.v_type, right_aligned(llamacpp_mib_text(p.v_bytes), 7));
    if (wording == LlamaStateLine::rs_seq_p)
        line += fmt::format(", P ({}): {} MiB", p.k_type, right_aligned("0.00", 7));
    return line;
}

}  // namespace

std::vector<std::string> llamacpp_log_lines(const EngineAnswer& a, const Model& m) {
    std::vector<std::string> out;
    for (const auto& p : a.parts) {
        out.push_back(p.kind == EnginePartKind::recurrent_state ? llama_state_line(p, m, a.llama_state_line)
                                                                : llama_cache_line(p, a.sequences));
    }
    return out;
}

}  // namespace kvcat
