#include "engines/llamacpp/llamacpp_record_check.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "engines/allocation_fields.h"
#include "engines/llamacpp/llamacpp_allocation.h"
#include "engines/llamacpp/llamacpp_compute.h"
#include "engines/llamacpp/llamacpp_graph.h"
#include "engines/llamacpp/llamacpp_host_compute.h"
#include "engines/llamacpp/llamacpp_log.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "engines/llamacpp/llamacpp_tensors.h"
#include "load/schema.h"
#include "vocab/dtype.h"

namespace kvcat {

namespace {

using namespace allocation_fields;  // NOLINT(google-build-using-namespace): the record readers every check shares

/// A MiB figure of llama.cpp, judged to the two decimals it prints.
void mib_figure(const Record& r, const std::string& key, const Rational& bytes, const std::string& how,
                AllocationPartCheck& part) {
    decimal_figure(r, key, llamacpp_mib_text(bytes), "MiB",
                   fmt::format("llama.cpp allocates {} bytes ({})", group_thousands(bytes.floor()), how), part);
}

/// "K: 1,073,741,824 bytes = 32 layers x 16,384 cells x 1 stream x 2,048 bytes per cell per layer (f16)".
std::string cell_term(std::string_view name, const Rational& bytes, std::int64_t layers, std::int64_t cells,
                      std::int64_t streams, std::string_view type) {
    Rational slots = Rational(layers) * Rational(cells) * Rational(streams);
    Rational per = slots.is_zero() ? Rational(0) : bytes / slots;
    return fmt::format("{}: {} bytes = {} x {} x {} x {} bytes per cell per layer ({}) = {} MiB", name,
                       bytes_words(bytes), plural(layers, "layer"), plural(cells, "cell"), plural(streams, "stream"),
                       per.to_display(), type, llamacpp_mib_text(bytes));
}

void llama_cache(const Record& r, const Model& m, const std::string& key, AllocationCheck& out) {
    if (!r.node(key)) return;
    AllocationPartCheck part;
    std::string scope_text = text(r, key + ".scope");
    part.what = scope_text == "swa" ? "SWA cache" : scope_text == "base" ? "base cache" : "cache";
    read_part(r, key, {"size_mib", "k_mib", "v_mib"}, part);
    auto cells = integer(r, key + ".cells");
    std::string k_name = text(r, key + ".k_type");
    auto finish = [&] { out.parts.push_back(std::move(part)); };
    if (!cells) return finish();  // schema-missing-key
    if (k_name.empty()) {
        out.not_judged.push_back({key, "the line printed no types, so its bytes are not recomputed"});
        return finish();
    }
    std::int64_t streams = integer(r, key + ".streams").value_or(1);
    LlamaCacheScope scope = scope_text == "base"  ? LlamaCacheScope::base
                            : scope_text == "swa" ? LlamaCacheScope::swa
                                                  : LlamaCacheScope::all;
    auto k = find_cache_dtype(k_name);
    std::string v_name = text(r, key + ".v_type");
    auto v = v_name.empty() ? k : find_cache_dtype(v_name);
    if (!k || !v) {
        out.problems.push_back({key + (k ? ".v_type" : ".k_type"), k ? v_name : k_name, "a ggml type kvcat knows",
                                "the type is not one kvcat has a size for"});
        return finish();
    }
    bool mla_latent = text(r, key + ".mla_latent") == "true";
    bool mla_off = text(r, key + ".mla_off") == "true" && m.mla;
    std::string v_printed = text(r, key + ".v_mib");
    // A V printed beside an MLA latent is kept: llama.cpp before the V-less cache, and
    // ik_llama.cpp's kv^T (-mla 1 without flash attention), both kv_lora_rank values a token.
    bool v_cache = !v_printed.empty() && !same_decimal(v_printed, "0");
    bool judge_v = !mla_latent || v_cache;
    try {
        LlamaCacheBytes b = mla_off ? llamacpp_every_head_bytes(m, *k, *v, *cells)
                                    : llamacpp_cache_bytes(m, scope, *k, *v, *cells, streams, v_cache);
        std::string how =
            fmt::format("{} layers x {} cells x {} stream{}", b.layers, *cells, streams, streams == 1 ? "" : "s");
        part.terms.push_back(cell_term("K", b.k, b.layers, *cells, streams, k->name));
        if (judge_v)
            part.terms.push_back(cell_term(mla_latent ? "V (kv^T)" : "V", b.v, b.layers, *cells, streams, v->name));
        if (!judge_v) part.terms.emplace_back("V: none (the MLA latent is kept as K only)");
        part.terms.push_back(
            fmt::format("size: K + V = {} bytes = {} MiB", bytes_words(b.k + b.v), llamacpp_mib_text(b.k + b.v)));
        mib_figure(r, key + ".k_mib", b.k, how, part);
        if (judge_v) mib_figure(r, key + ".v_mib", b.v, how, part);
        mib_figure(r, key + ".size_mib", b.k + b.v, how, part);
        part.bytes = b.k + b.v;
    } catch (const EngineError& e) {
        out.problems.push_back({key, scope_text, "a shape kvcat models", e.what()});
    }
    finish();
}

void llama_recurrent(const Record& r, const Model& m, AllocationCheck& out) {
    if (!r.node("recurrent")) return;
    AllocationPartCheck part;
    part.what = "recurrent state";
    read_part(r, "recurrent", {"size_mib", "r_mib", "s_mib"}, part);
    auto cells = integer(r, "recurrent.cells");
    if (cells && text(r, "recurrent.r_type").empty()) {
        out.not_judged.push_back({"recurrent", "the line printed no types, so its bytes are not recomputed"});
    } else if (cells) {
        LlamaStateBytes s = llamacpp_state_bytes(m, *cells);
        std::string how = fmt::format("{} state layers x {} cell{}, f32", s.layers, *cells, *cells == 1 ? "" : "s");
        part.terms.push_back(cell_term("R (conv state)", s.r, s.layers, *cells, 1, "f32"));
        part.terms.push_back(cell_term("S (recurrent state)", s.s, s.layers, *cells, 1, "f32"));
        part.terms.push_back(
            fmt::format("size: R + S = {} bytes = {} MiB", bytes_words(s.r + s.s), llamacpp_mib_text(s.r + s.s)));
        mib_figure(r, "recurrent.r_mib", s.r, how, part);
        mib_figure(r, "recurrent.s_mib", s.s, how, part);
        mib_figure(r, "recurrent.size_mib", s.r + s.s, how, part);
        part.bytes = s.r + s.s;
    }
    out.parts.push_back(std::move(part));
}

/// The engine model's answer for the settings a llama.cpp record shows, with the differences
/// told from the printed cells: the -c the cells were padded from and the ubatch the SWA cache
/// was sized with are not in the log, so those two are said from what was printed.
void llama_answer(const Record& r, const Model& m, AllocationCheck& out) {
    std::string key = r.node("kv_cache") ? "kv_cache" : "swa_cache";
    auto cells = integer(r, key + ".cells");
    auto k = find_cache_dtype(text(r, key + ".k_type"));
    if (!cells || !k) return;
    std::int64_t streams = integer(r, key + ".streams").value_or(1);
    std::int64_t seqs = integer(r, key + ".seqs").value_or(streams);
    EngineSettings s;
    s.version = text(r, "engine_version");
    s.parallel = std::max<std::int64_t>(1, seqs);
    s.kv_unified = streams == 1 && seqs > 1;
    s.context = checked_mul(*cells, streams);
    if (std::string v = text(r, key + ".v_type"); !v.empty() && v != k->name) s.v_dtype = v;
    try {
        EngineAnswer a = llamacpp_allocation(m, *k, s);
        std::erase_if(a.differences,
                      [](const EngineDifference& d) { return d.name == "padding" || d.name == "SWA reserve"; });
        if (auto swa = integer(r, "swa_cache.cells"); swa && m.sliding) {
            a.differences.push_back(
                {"SWA reserve",
                 fmt::format("the {} sliding layers keep {} cells per stream where the textbook keeps "
                             "the window of {}: the window x sequences + ubatch, padded to 256, at "
                             "most the base size (llama-kv-cache-iswa.cpp)",
                             m.sliding->layers, group_thousands(*swa), group_thousands(m.sliding->window))});
        }
        out.answer = std::move(a);
    } catch (const std::exception&) {
        // A shape the engine model refuses is a problem already, said at the part.
    }
}

/// A host-side buffer: the pinned memory beside a GPU, or the mapped file, not a device's own.
bool host_device(const std::string& device) {
    return device == "CPU" || device == "CPU_Mapped" || device.ends_with("_Host") || device.ends_with("_Mapped");
}

/// llama.cpp's flash_attn as printed: off only when it says so (auto turns it on for a GPU
/// that has it, and the CPU has it).
bool flash_attn_on(const std::string& printed) {
    return !(printed == "disabled" || printed == "0" || printed == "false" || printed == "off");
}

/// A start that left layers on the CPU: start.offloaded_layers "18/33", whose two counts differ.
bool split_start(const Record& r) {
    std::string offloaded = text(r, "start.offloaded_layers");
    auto slash = offloaded.find('/');
    return slash != std::string::npos && offloaded.substr(0, slash) != offloaded.substr(slash + 1);
}

/// The llama.cpp build a record prints (engine_version b2961); nullopt for another engine's
/// record (ollama's, whose version is its own) or one that prints none.
std::optional<std::int64_t> record_build(const Record& r) {
    if (text(r, "engine") != "llama.cpp") return std::nullopt;
    return llamacpp_build(text(r, "engine_version"));
}

/// The outputs a record's start reserved its graph for (LlamaComputeSetting::outputs): a build
/// after b8198 may be llama-server's, one a sequence, the smaller figure; else every token (0).
std::int64_t record_reserve_outputs(const Record& r, std::optional<std::int64_t> build) {
    return build && *build > kLastBuildReservingEveryOutput ? integer(r, "kv_cache.seqs").value_or(1) : 0;
}

/// One buffer of a record's start: where it stands in the list, and its fields as written.
struct StartBuffer {
    std::size_t index = 0;
    std::string device, kind, mib;
};

/// The record's start.buffers, read once for every use below.
std::vector<StartBuffer> start_buffers(const Record& r) {
    std::vector<StartBuffer> out;
    const YamlNode* list = r.node("start.buffers");
    for (std::size_t i = 0; list && list->is_sequence() && i < list->items.size(); ++i) {
        auto field = [&](const char* name) { return text(r, fmt::format("start.buffers.{}.{}", i, name)); };
        out.push_back({i, field("device"), field("kind"), field("mib")});
    }
    return out;
}

/// A start's compute buffers: the devices' and the host's.
struct ComputeBuffers {
    std::vector<const StartBuffer*> device;
    std::vector<const StartBuffer*> host;
};

ComputeBuffers compute_buffers(const std::vector<StartBuffer>& buffers) {
    ComputeBuffers out;
    for (const auto& b : buffers) {
        if (b.kind == "compute") (host_device(b.device) ? out.host : out.device).push_back(&b);
    }
    return out;
}

/// The compute buffer's figure: equal to kvcat's stage where that stage is the allocator's peak
/// to the printed 0.01 MiB (llamacpp_compute_is_exact), else at least it.
AllocationFigure compute_figure(std::size_t index, const std::string& printed, const LlamaComputeBuffer& bound,
                                bool exact) {
    std::string mib = llamacpp_mib_text(Rational(bound.bytes));
    AllocationFigure f;
    f.key = fmt::format("start.buffers.{}.mib", index);
    f.printed = printed;
    f.computed = exact ? mib : "at least " + mib;
    f.unit = "MiB";
    f.why = exact ? fmt::format("llama.cpp's CUDA compute buffer is its {} stage, {} bytes ({})", bound.stage,
                                group_thousands(bound.bytes), bound.how)
                  : fmt::format("llama.cpp's compute buffer is at least its {} stage, {} bytes ({})", bound.stage,
                                group_thousands(bound.bytes), bound.how);
    // The printed figure is rounded to 0.01 MiB: exact, it is the stage's rounding; a bound holds
    // when it is not below the bound's rounding.
    auto value = Rational::parse(printed);
    auto want = Rational::parse(mib).value_or(Rational(0));
    f.holds = value && (exact ? *value == want : !(*value < want));
    return f;
}

/// A hybrid's compute buffer (Gated DeltaNet or Mamba-2 layers beside attention) on the one device
/// that ran every layer, a CUDA card or the CPU: the buffer ggml-alloc reserves for llama.cpp's graph
/// (engines/llamacpp/llamacpp_graph.h), built with the output rows where the pinned release takes
/// them and where older builds did (inside the last layer, LlamaGraphSetting::rows_in_layer), and
/// equal to one of the two to the printed 0.01 MiB. kvcat builds the Gated DeltaNet's fused chunked
/// form, so a start whose log does not print it enabled is not judged.
void llama_start_hybrid_compute(const Record& r, const Model& m, const StartBuffer& device, std::int64_t cells,
                                AllocationPartCheck& part, AllocationCheck& out) {
    std::string key = fmt::format("start.buffers.{}.mib", device.index);
    auto dims = llamacpp_graph_dims(m);
    std::string fused = text(r, "start.fused_gdn_chunked");
    std::string why_not =
        !dims ? "kvcat builds no graph for this model (it has no tensors mapping, or its architecture's graph is not "
                "built)"
        : device.device != "CPU" && !device.device.starts_with("CUDA")
            ? fmt::format("kvcat places the graph as CUDA and the CPU do, not as {}", device.device)
        : dims->deltanet && fused != "enabled"
            ? fmt::format("kvcat builds the graph with the fused chunked Gated DeltaNet, and the log {}",
                          fused.empty() ? "does not say how the layers ran" : "says the fused form was disabled")
            : "";
    if (!why_not.empty()) {
        out.not_judged.push_back({key, why_not});
        return;
    }
    std::int64_t streams = integer(r, "kv_cache.streams").value_or(1);
    std::int64_t seqs = integer(r, "kv_cache.seqs").value_or(1);
    LlamaGraphSetting s;
    s.tokens = std::min(checked_mul(cells, streams), integer(r, "start.n_ubatch").value_or(512));
    s.seqs = seqs;
    s.unified = streams == 1 && seqs > 1;
    s.cells_per_stream = cells;
    s.outputs = record_reserve_outputs(r, record_build(r));
    s.flash_attn = flash_attn_on(text(r, "start.flash_attn"));
    s.cache_k = text(r, "kv_cache.k_type");
    s.cache_v = text(r, "kv_cache.v_type");
    s.device = device.device != "CPU";
    std::vector<std::string> candidates, figures;
    bool equal = false;
    for (bool rows_in_layer : {false, true}) {
        s.rows_in_layer = rows_in_layer;
        auto bytes = llamacpp_graph_buffer(m, s);
        if (!bytes) {
            out.not_judged.push_back({key, llamacpp_graph_unsupported(m, s)});
            return;
        }
        std::string mib = llamacpp_mib_text(Rational(*bytes));
        // An architecture whose rows are taken in the last layer either way gives one figure.
        if (std::find(figures.begin(), figures.end(), mib) != figures.end()) continue;
        figures.push_back(mib);
        candidates.push_back(fmt::format("{} ({})", mib,
                                         rows_in_layer
                                             ? "the output rows taken inside the last layer, as older builds did"
                                             : "the pinned release's graph"));
        auto printed = Rational::parse(device.mib);
        equal = equal || (printed && *printed == Rational::parse(mib).value_or(Rational(-1)));
    }
    part.terms.push_back(fmt::format(
        "compute buffer: what ggml-alloc reserves for llama.cpp's graph of {} tokens (-ub {}, flash attention {}, "
        "{}): {}",
        s.tokens, integer(r, "start.n_ubatch").value_or(512), s.flash_attn ? "on" : "off",
        s.outputs == 0 ? "an output for every token" : plural(s.outputs, "output"), fmt::join(candidates, "; ")));
    AllocationFigure f;
    f.key = key;
    f.printed = device.mib;
    f.computed = fmt::format("{}", fmt::join(candidates, " or "));
    f.unit = "MiB";
    f.why =
        "llama.cpp's compute buffer is what ggml-alloc reserves for its graph, in the arrangements of the output "
        "rows a build may have";
    f.holds = equal;
    part.figures.push_back(std::move(f));
}

/// The compute buffer of the one device that ran the layers (a GPU's, or the CPU's in a CPU-only
/// start), held to kvcat's stage (engines/llamacpp/llamacpp_compute.h): equal to it on a CUDA card
/// at the output or attention-scores stage, elsewhere at least it (llama.cpp's figure may be above
/// it, never below). Several GPUs split the graph, which kvcat does not model.
void llama_start_compute(const Record& r, const Model& m, const std::vector<StartBuffer>& buffers,
                         const std::vector<LlamaInputs>& host_eras, AllocationPartCheck& part, AllocationCheck& out) {
    auto split = compute_buffers(buffers);
    auto& device = split.device;
    const auto& host = split.host;
    if (device.empty() && host.size() == 1 && host[0]->device == "CPU") {
        device = host;  // a CPU-only start: the CPU ran the layers
    }
    if (device.size() != 1) {
        if (!device.empty() || !host.empty()) {
            out.not_judged.push_back(
                {"start", fmt::format("{} devices printed a compute buffer; kvcat gives the buffer of a start on one",
                                      device.size())});
        }
        return;
    }
    // Layers left on the CPU run there, and the scheduler may move their largest products to the
    // GPU: the graph is split in a way the bound of a start on one device does not follow.
    if (split_start(r)) {
        std::string offloaded = text(r, "start.offloaded_layers");
        out.not_judged.push_back(
            {"start.offloaded_layers", fmt::format("{} layers on the GPU, the rest on the CPU; kvcat gives the "
                                                   "compute buffer of a start whose layers are all on one device",
                                                   offloaded)});
        return;
    }
    // A sliding-window model's SWA cache adds its mask; a start that printed only the SWA cache,
    // or has a recurrent state, is not one whose graph kvcat bounds.
    auto cells = integer(r, "kv_cache.cells");
    if (cells && r.node("recurrent")) return llama_start_hybrid_compute(r, m, *device[0], *cells, part, out);
    if (!cells || r.node("recurrent")) {
        out.not_judged.push_back({"start", "the compute buffer of this model's cache is not one kvcat gives"});
        return;
    }
    // An MLA model run head by head (a build before pull 12801, or an old GGUF) decompresses every
    // head's K and V in its graph, whose stages kvcat's bound does not follow; the oracle holds the
    // bound only for the latent's graph of the pinned release.
    if (m.mla && text(r, "kv_cache.mla_off") == "true") {
        out.not_judged.push_back({"start",
                                  "the MLA model ran every head's attention without the latent (mla_off), "
                                  "a graph whose compute buffer kvcat does not bound"});
        return;
    }
    std::int64_t streams = integer(r, "kv_cache.streams").value_or(1);
    auto printed_ubatch = integer(r, "start.n_ubatch");
    std::int64_t ubatch = printed_ubatch.value_or(512);
    std::string fa = text(r, "start.flash_attn");
    std::optional<std::int64_t> build = record_build(r);
    std::int64_t outputs = record_reserve_outputs(r, build);
    // A log that prints n_ubatch (from pull 6017) but no flash_attn line is of a build from before
    // flash attention (b2771, which added the line): it ran without. With neither printed the build
    // is not known, and flash attention is taken as on, the weaker bound.
    bool fa_on = flash_attn_on(fa);
    std::string fa_said = fa.empty() ? ", not printed" : "";
    if (fa.empty() && printed_ubatch) {
        fa_on = false;
        fa_said =
            ": the log prints n_ubatch and no flash_attn line, so its build is from before b2771, which "
            "brought flash attention";
    }
    LlamaComputeSetting setting{
        ubatch, checked_mul(*cells, streams), *cells, fa_on, outputs, integer(r, "swa_cache.cells").value_or(0)};
    // Before pull 23764 flash attention cast an f32 mask to f16 in the graph. A build up to b8198
    // did; so did one whose host buffer holds the mask in f32 (its inputs are no era's of the f16
    // mask).
    bool f32_mask_on_host =
        !host_eras.empty() && std::find(host_eras.begin(), host_eras.end(), LlamaInputs::half_mask) == host_eras.end();
    setting.mask_cast = fa_on && ((build && *build <= kLastBuildCastingTheMask) || f32_mask_on_host);
    auto bound = llamacpp_compute_buffer(m, setting);
    if (!bound) {
        out.not_judged.push_back({"start", "the model record has no tensors mapping, so no compute buffer is given"});
        return;
    }
    bool settings_known = !fa.empty() || printed_ubatch.has_value();
    bool exact = llamacpp_compute_is_exact(device[0]->device, *bound, settings_known);
    part.terms.push_back(
        fmt::format("compute buffer: {}{} bytes = {} MiB, the {} stage ({}; -ub {}{}, flash attention {}{}){}",
                    exact ? "" : "at least ", group_thousands(bound->bytes), llamacpp_mib_text(Rational(bound->bytes)),
                    bound->stage, bound->how, ubatch, printed_ubatch ? "" : " as llama.cpp's default",
                    setting.flash_attn ? "on" : "off", fa_said, exact ? kLlamaExactComputeNote : ""));
    part.figures.push_back(compute_figure(device[0]->index, device[0]->mib, *bound, exact));
}

/// The host's compute buffer of a start whose layers are all on one GPU: the graph's inputs, summed
/// in each era of llama.cpp the record's build may be of (engines/llamacpp/llamacpp_host_compute.h),
/// and equal to one of them to the printed 0.01 MiB. A build the record does not print (ollama's,
/// a binding's) may be of any era.
/// Returns the eras whose sum the printed buffer equals (none when it is not judged).
std::vector<LlamaInputs> llama_start_host_compute(const Record& r, const Model& m,
                                                  const std::vector<StartBuffer>& buffers, AllocationPartCheck& part,
                                                  AllocationCheck& out) {
    const auto split = compute_buffers(buffers);
    const auto& device = split.device;
    const auto& host = split.host;
    std::vector<LlamaInputs> eras;
    if (device.size() != 1 || host.size() != 1 || split_start(r)) return eras;  // said by llama_start_compute
    auto base = integer(r, "kv_cache.cells");
    auto swa = integer(r, "swa_cache.cells");
    auto not_judged = [&](const std::string& why) {
        out.not_judged.push_back({fmt::format("start.buffers.{}.mib", host[0]->index), why});
    };
    if (!base) {
        not_judged(
            fmt::format("the {} compute buffer: a start that prints no base cache is not one whose inputs kvcat "
                        "sums",
                        host[0]->device));
        return eras;
    }
    LlamaHostSetting setting;
    setting.ubatch = integer(r, "start.n_ubatch").value_or(512);
    setting.context = checked_mul(*base, integer(r, "kv_cache.streams").value_or(1));
    setting.cache_cells = {*base};
    if (swa) setting.cache_cells.push_back(*swa);
    setting.flash_attn = flash_attn_on(text(r, "start.flash_attn"));
    auto quantized = [&](const std::string& key) {
        auto d = find_cache_dtype(text(r, key));
        return d && d->block_values > 1;
    };
    setting.k_quantized = quantized("kv_cache.k_type");
    setting.v_quantized = quantized("kv_cache.v_type");
    std::optional<std::int64_t> build = record_build(r);
    setting.outputs = record_reserve_outputs(r, build);
    setting.sequences = integer(r, "kv_cache.seqs").value_or(1);
    auto value = Rational::parse(host[0]->mib);
    std::vector<std::string> candidates, equal;
    std::string how;
    for (const auto& era : llamacpp_inputs_eras()) {
        if (build && !llamacpp_inputs_era_holds(era.inputs, *build)) continue;
        auto figure = llamacpp_host_compute(m, setting, era.inputs);
        if (!figure) {
            not_judged(fmt::format("the {} compute buffer: the inputs of a {} graph are not read", host[0]->device,
                                   m.tensors ? m.tensors->llama_arch : "model without a tensors mapping"));
            return eras;
        }
        std::string mib = llamacpp_mib_text(Rational(figure->bytes));
        candidates.push_back(fmt::format("{} ({})", mib, era.change));
        if (value && Rational::parse(mib) == value) {
            if (equal.empty()) {
                how = fmt::format("the graph's inputs as of {}: {} = {} bytes = {} MiB", era.change, figure->how,
                                  group_thousands(figure->bytes), mib);
            }
            equal.push_back(era.change);
            eras.push_back(era.inputs);
        }
    }
    std::string builds =
        build ? fmt::format("the eras a build {} may be of", *build) : "every era (the build is not printed)";
    part.terms.push_back(equal.empty() ? fmt::format("host compute buffer: {} MiB printed, none of {}: {}",
                                                     host[0]->mib, builds, fmt::join(candidates, "; "))
                                       : fmt::format("host compute buffer ({}), {}{}", host[0]->device, how,
                                                     equal.size() > 1
                                                         ? fmt::format("; the same to the printed 0.01 MiB as of {}",
                                                                       fmt::join(equal.begin() + 1, equal.end(), "; "))
                                                         : ""));
    AllocationFigure f;
    f.key = fmt::format("start.buffers.{}.mib", host[0]->index);
    f.printed = host[0]->mib;
    f.computed = fmt::format("{}", fmt::join(candidates, " or "));
    f.unit = "MiB";
    f.why = fmt::format("llama.cpp's host compute buffer is the sum of the graph's inputs, in {}", builds);
    f.holds = !equal.empty();
    part.figures.push_back(std::move(f));
    return eras;
}

/// The host's model buffers beside the plan's input layer, which llama.cpp keeps on the CPU
/// (llamacpp_host_bytes); "" for a start that printed none.
std::string host_weights_text(const std::vector<StartBuffer>& buffers, const QuantPlan& plan) {
    Rational host(0);
    int count = 0;
    for (const auto& b : buffers) {
        auto v = Rational::parse(b.mib);
        if (b.kind != "model" || !llamacpp_host_buffer(b.device) || !v) continue;
        host = host + *v;
        ++count;
    }
    if (count == 0) return "";
    return fmt::format(
        "; of them the host's ({} MiB) stand beside the plan's input layer, {} MiB, which llama.cpp "
        "keeps on the CPU (src/llama-model.cpp at 80fb11ac)",
        two(host.to_double()), llamacpp_mib_text(Rational(llamacpp_host_bytes(plan))));
}

/// The model buffers of every device together, beside the bytes llama-quantize at the pinned
/// commit writes for the file's mix. Said, not judged: a file made by an older llama-quantize
/// (whose rules have changed), with --tensor-type or a custom recipe (Unsloth's UD) holds other
/// types, and nothing in the log tells which.
void llama_start_weights(const Record& r, const Model& m, const std::vector<StartBuffer>& buffers,
                         AllocationPartCheck& part, AllocationCheck& out) {
    Rational printed(0), repacked(0);
    int model_buffers = 0;
    // With the file mapped, a repacking buffer holds a second copy of tensors the mapped buffers
    // already span (src/llama-model-loader.cpp, load_all_data: a mapped buffer runs from the first
    // to the last of its tensors in each file).
    const bool mapped = std::any_of(buffers.begin(), buffers.end(),
                                    [](const StartBuffer& b) { return b.kind == "model" && b.device == "CPU_Mapped"; });
    std::string repack_names;
    for (const auto& b : buffers) {
        if (b.kind != "model") continue;
        auto v = Rational::parse(b.mib);
        if (!v) return;
        if (mapped && llamacpp_repack_buffer(b.device)) {
            repacked = repacked + *v;
            if (repack_names.find(b.device) == std::string::npos) {
                repack_names += (repack_names.empty() ? "" : ", ") + b.device;
            }
            continue;
        }
        printed = printed + *v;
        ++model_buffers;
    }
    if (model_buffers == 0) return;
    auto mix = llama_mix_of_file_type(text(r, "start.file_type"));
    if (!mix || !has_tensor_inventory(m)) {
        out.not_judged.push_back(
            {"start",
             fmt::format("the model buffers ({} MiB) are not compared: {}", two(printed.to_double()),
                         !mix ? "the log names no file type kvcat plans" : "the model record has no tensors mapping")});
        return;
    }
    QuantPlan plan = llamacpp_quant_plan(m, *mix, false);
    Rational planned = Rational(plan.bytes) / Rational(1 << 20);
    Rational gap = printed - planned;
    // Each printed MiB is rounded to 0.01, and a buffer places each tensor at its alignment (128
    // bytes for CUDA, 32 for the CPU; the mapped file at its pages): up to 256 bytes a tensor
    // is taken as padding.
    Rational below = Rational(model_buffers, 200);
    Rational above = below + Rational(checked_mul(static_cast<std::int64_t>(plan.types.size()), 256), 1 << 20);
    auto within = [&](const Rational& apart) { return !(apart > above) && !(Rational(0) - apart > below); };
    bool same = within(gap);
    // Tied embeddings: llama.cpp keeps token_embd on the host for the input and loads the output
    // as a copy of it on the output's device (TENSOR_DUPLICATED in src/models/*.cpp), so a full
    // offload's buffers hold that tensor twice.
    bool tied_twice = false;
    if (!same && m.tensors->tied_embeddings) {
        for (const auto& t : plan.types) {
            if (t.tensor->name == "token_embd.weight") tied_twice = within(gap - Rational(t.bytes) / Rational(1 << 20));
        }
    }
    // Builds of early 2024 print the mapped file whole as the CPU's buffer, beside the GPU's copies
    // of the layers it holds: a split start's buffers then count those layers twice.
    std::string offloaded = text(r, "start.offloaded_layers");
    std::string why_apart = split_start(r)
                                ? fmt::format(
                                      "with {} layers on the GPU: a build that prints the mapped file whole "
                                      "counts the GPU's layers in both buffers",
                                      offloaded)
                                : "the file was made by other rules: an older llama-quantize, or a custom recipe";
    if (!repack_names.empty()) {
        why_apart += fmt::format(
            "; or, with tensors repacked to {}, mapped buffers that do not run over the whole file", repack_names);
    }
    if (!same && !tied_twice) {
        out.not_judged.push_back(
            {"start", fmt::format("the model buffers ({} MiB) stand {} MiB from llama-quantize's {} of this model at "
                                  "80fb11ac: {}",
                                  two(printed.to_double()), two(gap.to_double()), mix->name, why_apart)});
    }
    const std::string repack_text =
        repacked == Rational(0)
            ? ""
            : fmt::format(
                  " (the {} buffer's {} MiB beside them is a second copy of the tensors repacked for the CPU's "
                  "kernels, not counted)",
                  repack_names, two(repacked.to_double()));
    part.terms.push_back(
        fmt::format(
            "weights: the {} model buffer{} to {} MiB{}; llama-quantize's {} of this model (80fb11ac) is {} bytes = "
            "{} MiB, {}",
            model_buffers, model_buffers == 1 ? " comes" : "s sum", two(printed.to_double()), repack_text, mix->name,
            group_thousands(plan.bytes), llamacpp_mib_text(Rational(plan.bytes)),
            same ? fmt::format("the same to the printed 0.01 MiB and the buffers' alignment ({} MiB apart; {} tensors)",
                               two(std::abs(gap.to_double())), plan.types.size())
            : tied_twice ? fmt::format("{} MiB apart: the tied token embeddings, which the buffers hold twice (on the "
                                       "host for the input, on the device as the output); the same otherwise",
                                       two(gap.to_double()))
                         : fmt::format("{} MiB apart ({})", two(gap.to_double()), why_apart)) +
        host_weights_text(buffers, plan));
}

void llama_start(const Record& r, const Model& m, AllocationCheck& out) {
    if (!r.node("start")) return;
    AllocationPartCheck part;
    part.key = "start";
    part.what = "whole start";
    for (const char* setting : {"file_type", "n_ubatch", "flash_attn"}) {
        std::string v = text(r, std::string("start.") + setting);
        if (!v.empty()) part.settings.emplace_back(setting, v);
    }
    std::vector<StartBuffer> buffers = start_buffers(r);
    for (const auto& b : buffers) part.printed.emplace_back(b.device + " " + b.kind, b.mib);
    try {
        llama_start_weights(r, m, buffers, part, out);
        // The host's inputs say whether the build casts its mask, which the device's bound needs;
        // the device's figure is listed first.
        AllocationPartCheck host_part;
        std::vector<LlamaInputs> eras = llama_start_host_compute(r, m, buffers, host_part, out);
        llama_start_compute(r, m, buffers, eras, part, out);
        part.terms.insert(part.terms.end(), host_part.terms.begin(), host_part.terms.end());
        part.figures.insert(part.figures.end(), host_part.figures.begin(), host_part.figures.end());
    } catch (const std::exception& e) {
        out.problems.push_back({"start", "", "a figure kvcat can compute", e.what()});
    }
    out.parts.push_back(std::move(part));
}

}  // namespace

void llama_family_check_record(const Record& r, const Model& m, AllocationCheck& out, bool whole_start) {
    llama_cache(r, m, "kv_cache", out);
    llama_cache(r, m, "swa_cache", out);
    llama_recurrent(r, m, out);
    if (whole_start) llama_start(r, m, out);
    llama_answer(r, m, out);
}

void llama_family_summarise(const Record& r, const AllocationCheck& c, AllocationSummary& out,
                            AllocationHeadline& headline) {
    std::string part = r.node("kv_cache") ? "kv_cache" : "swa_cache";
    out.kv_cache_dtype = text(r, part + ".k_type");
    out.v_cache_dtype = text(r, part + ".v_type");
    if (out.v_cache_dtype == out.kv_cache_dtype) out.v_cache_dtype.clear();
    out.context = integer(r, part + ".cells");
    out.seqs = integer(r, part + ".seqs");
    if (out.context) out.tokens = checked_mul(*out.context, integer(r, part + ".streams").value_or(1));
    for (const auto& p : c.parts) headline.add(c, p, "size_mib");
    headline.unit = "MiB";
}

void llama_family_logged_figures(const ParsedLog& log, std::vector<LoggedFigure>& out) {
    for (const auto& c : log.caches) {
        std::string part = c.scope == "swa" ? "swa_cache." : "kv_cache.";
        add_logged(out, part + "cells", c.cells);
        add_logged(out, part + "seqs", c.seqs);
        add_logged(out, part + "layers", c.layers);
        add_logged(out, part + "size_mib", c.size_mib, true);
        add_logged(out, part + "k_type", c.k_type, false);
        add_logged(out, part + "k_mib", c.k_mib, true);
        add_logged(out, part + "v_type", c.v_type, false);
        add_logged(out, part + "v_mib", c.v_mib, true);
    }
    if (log.recurrent) {
        const LoggedRecurrent& r = *log.recurrent;
        add_logged(out, "recurrent.cells", r.cells);
        add_logged(out, "recurrent.seqs", r.seqs);
        add_logged(out, "recurrent.layers", r.layers);
        add_logged(out, "recurrent.size_mib", r.size_mib, true);
        add_logged(out, "recurrent.r_type", r.r_type, false);
        add_logged(out, "recurrent.r_mib", r.r_mib, true);
        add_logged(out, "recurrent.s_type", r.s_type, false);
        add_logged(out, "recurrent.s_mib", r.s_mib, true);
    }
    if (!log.buffers.empty()) add_logged(out, "start.offloaded_layers", log.offloaded_layers, false);
    for (std::size_t i = 0; i < log.buffers.size(); ++i) {  // in the log's order, as import-log writes them
        add_logged(out, fmt::format("start.buffers.{}.device", i), log.buffers[i].device, false);
        add_logged(out, fmt::format("start.buffers.{}.kind", i), log.buffers[i].kind, false);
        add_logged(out, fmt::format("start.buffers.{}.mib", i), log.buffers[i].mib, true);
    }
}

}  // namespace kvcat
