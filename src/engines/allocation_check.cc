#include "engines/allocation_check.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engines/ik_llama/ik_llama_allocation.h"
#include "engines/llamacpp/llamacpp_allocation.h"
#include "engines/llamacpp/llamacpp_compute.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "engines/llamacpp/llamacpp_tensors.h"
#include "engines/sglang/sglang_allocation.h"
#include "engines/vllm/vllm_allocation.h"
#include "load/schema.h"
#include "vocab/dtype.h"
#include "vocab/dtype_spelling.h"

namespace kvcat {

namespace {

const YamlNode* at(const Record& r, const std::string& key) {
    const YamlNode* n = r.node(key);
    return n && n->is_scalar() && n->value != "null" ? n : nullptr;
}

std::optional<std::int64_t> integer(const Record& r, const std::string& key) {
    return as_integer(r.node(key));
}

std::string text(const Record& r, const std::string& key) {
    const YamlNode* n = at(r, key);
    return n ? n->value : "";
}

/// Printed and computed decimals are the same number ("8192.00" and "8192.0" alike).
bool same_decimal(const std::string& printed, const std::string& computed) {
    auto a = Rational::parse(printed), b = Rational::parse(computed);
    return a && b && *a == *b;
}

std::string two(double x) {
    return fmt::format("{:.2f}", x);
}

std::string plural(std::int64_t n, std::string_view word) {
    return fmt::format("{} {}{}", group_thousands(n), word, n == 1 ? "" : "s");
}

std::string bytes_words(const Rational& r) {
    return r.is_integer() ? group_thousands(r.num()) : r.to_display();
}

/// The part's values as the record gives them: the printed figures (`figures`) apart from the
/// settings read beside them.
void read_part(const Record& r, const std::string& key, std::initializer_list<std::string_view> figures,
               AllocationPartCheck& part) {
    part.key = key;
    const YamlNode* n = r.node(key);
    if (!n || !n->is_mapping()) return;
    for (const auto& [name, value] : n->entries) {
        if (!value.is_scalar() || name.value == "log_line") continue;
        bool printed = std::find(figures.begin(), figures.end(), name.value) != figures.end();
        (printed ? part.printed : part.settings).emplace_back(name.value, value.value);
    }
}

/// A decimal figure the record says the engine printed at `key`, judged against `computed`
/// at the digits the engine prints. Nothing when the record holds no such figure.
void decimal_figure(const Record& r, const std::string& key, std::string computed, std::string unit, std::string why,
                    AllocationPartCheck& part) {
    std::string printed = text(r, key);
    if (printed.empty()) return;
    AllocationFigure f;
    f.key = key;
    f.printed = printed;
    f.computed = std::move(computed);
    f.unit = std::move(unit);
    f.why = std::move(why);
    f.holds = same_decimal(printed, f.computed);
    part.figures.push_back(std::move(f));
}

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
        out.not_judged.push_back(key + ": the line printed no types, so its bytes are not recomputed");
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
        LlamaCacheBytes b = mla_off ? ik_mla_off_bytes(m, *k, *v, *cells)
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
        out.not_judged.emplace_back("recurrent: the line printed no types, so its bytes are not recomputed");
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
        EngineAnswer a = engine_allocation(m, *k, Engine::llamacpp, s);
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

/// The compute buffer of the one device that ran the layers (a GPU's, or the CPU's in a CPU-only
/// start), held to kvcat's lower bound (engines/llamacpp/llamacpp_compute.h): llama.cpp's figure may be
/// above it, never below. Several GPUs split the graph, which kvcat does not model.
void llama_start_compute(const Record& r, const Model& m, const std::vector<StartBuffer>& buffers,
                         AllocationPartCheck& part, AllocationCheck& out) {
    std::vector<const StartBuffer*> device, host;
    for (const auto& b : buffers) {
        if (b.kind == "compute") (host_device(b.device) ? host : device).push_back(&b);
    }
    if (device.empty() && host.size() == 1 && host[0]->device == "CPU") {
        device = host;  // a CPU-only start: the CPU ran the layers
    }
    if (device.size() != 1) {
        if (!device.empty() || !host.empty()) {
            out.not_judged.push_back(fmt::format(
                "start: {} devices printed a compute buffer; kvcat gives the buffer of a start on one", device.size()));
        }
        return;
    }
    std::string key = r.node("kv_cache") ? "kv_cache" : "swa_cache";
    auto cells = integer(r, key + ".cells");
    if (!cells || r.node("swa_cache") || r.node("recurrent")) {
        out.not_judged.emplace_back("start: the compute buffer of this model's cache is not one kvcat gives");
        return;
    }
    std::int64_t streams = integer(r, key + ".streams").value_or(1);
    auto printed_ubatch = integer(r, "start.n_ubatch");
    std::int64_t ubatch = printed_ubatch.value_or(512);
    std::string fa = text(r, "start.flash_attn");
    LlamaComputeSetting setting{ubatch, checked_mul(*cells, streams), *cells, flash_attn_on(fa)};
    auto bound = llamacpp_compute_buffer(m, setting);
    if (!bound) {
        out.not_judged.emplace_back("start: the model record has no tensors mapping, so no compute buffer is given");
        return;
    }
    std::string least = llamacpp_mib_text(Rational(bound->bytes));
    part.terms.push_back(
        fmt::format("compute buffer: at least {} bytes = {} MiB, the {} stage ({}; -ub {}{}, flash "
                    "attention {}{})",
                    group_thousands(bound->bytes), least, bound->stage, bound->how, ubatch,
                    printed_ubatch ? "" : " as llama.cpp's default", setting.flash_attn ? "on" : "off",
                    fa.empty() ? ", not printed" : ""));
    AllocationFigure f;
    f.key = fmt::format("start.buffers.{}.mib", device[0]->index);
    f.printed = device[0]->mib;
    f.computed = "at least " + least;
    f.unit = "MiB";
    f.why = fmt::format("llama.cpp's compute buffer is at least its {} stage, {} bytes ({})", bound->stage,
                        group_thousands(bound->bytes), bound->how);
    // The printed figure is rounded to 0.01 MiB: it holds when it is not below the bound's rounding.
    auto value = Rational::parse(f.printed);
    f.holds = value && !(*value < Rational::parse(least).value_or(Rational(0)));
    part.figures.push_back(std::move(f));
}

/// The model buffers of every device together, beside the bytes llama-quantize at the pinned
/// commit writes for the file's mix. Said, not judged: a file made by an older llama-quantize
/// (whose rules have changed), with --tensor-type or a custom recipe (Unsloth's UD) holds other
/// types, and nothing in the log tells which.
void llama_start_weights(const Record& r, const Model& m, const std::vector<StartBuffer>& buffers,
                         AllocationPartCheck& part, AllocationCheck& out) {
    Rational printed(0);
    int model_buffers = 0;
    for (const auto& b : buffers) {
        if (b.kind != "model") continue;
        auto v = Rational::parse(b.mib);
        if (!v) return;
        printed = printed + *v;
        ++model_buffers;
    }
    if (model_buffers == 0) return;
    auto mix = llama_mix_of_file_type(text(r, "start.file_type"));
    if (!mix || !has_tensor_inventory(m)) {
        out.not_judged.push_back(
            fmt::format("start: the model buffers ({} MiB) are not compared: {}", two(printed.to_double()),
                        !mix ? "the log names no file type kvcat plans" : "the model record has no tensors mapping"));
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
    bool same = !(gap > above) && !(Rational(0) - gap > below);
    part.terms.push_back(fmt::format(
        "weights: the {} model buffer{} sum to {} MiB; llama-quantize's {} of this model (80fb11ac) is {} bytes = {} "
        "MiB, {}",
        model_buffers, model_buffers == 1 ? "" : "s", two(printed.to_double()), mix->name, group_thousands(plan.bytes),
        llamacpp_mib_text(Rational(plan.bytes)),
        same ? fmt::format("the same to the printed 0.01 MiB and the buffers' alignment ({} MiB apart; {} tensors)",
                           two(std::abs(gap.to_double())), plan.types.size())
             : fmt::format("{} MiB apart (the file was made by other rules: an older llama-quantize, or a custom "
                           "recipe)",
                           two(gap.to_double()))));
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
        llama_start_compute(r, m, buffers, part, out);
    } catch (const std::exception& e) {
        out.problems.push_back({"start", "", "a figure kvcat can compute", e.what()});
    }
    out.parts.push_back(std::move(part));
}

std::optional<CacheDtype> torch_cache_dtype(const std::string& kv, const std::string& model_dtype) {
    std::string name = kv.empty() || kv == "auto" ? (model_dtype.empty() ? "bfloat16" : model_dtype) : kv;
    if (name == "bfloat16") name = "bf16";
    if (name == "float16" || name == "half") name = "f16";
    if (name == "float32") name = "f32";
    if (name == "float8_e4m3fn") name = "fp8_e4m3";  // torch's names, as SGLang prints them
    if (name == "float8_e5m2") name = "fp8_e5m2";
    return find_cache_dtype(name);
}

/// vLLM's printed maximum concurrency beside the pools at either end of the printed memory.
AllocationFigure vllm_concurrency(const std::string& printed, std::int64_t tokens, const VllmPool& lo,
                                  const VllmPool& hi, const EngineSettings& s) {
    AllocationFigure f;
    f.key = "vllm.concurrency";
    f.printed = printed;
    f.unit = "x";
    std::int64_t block = lo.block_size;
    // Before 0.20 the printed tokens are the blocks of one group times the block size
    // (num_blocks // groups), and the concurrency is all the blocks over the blocks one
    // request of max_model_len takes (get_max_concurrency_for_kv_cache_config), printed
    // with two decimals. From the printed tokens the blocks are known to within the
    // groups' remainder, so the concurrency is one figure or a few.
    bool from_tokens = !s.version.empty() && vllm_version_before(s.version, "0.20") && lo.groups == hi.groups &&
                       lo.per_request_blocks == hi.per_request_blocks && lo.per_request_blocks > 0 &&
                       tokens % block == 0 && s.max_model_len.has_value();
    if (from_tokens) {
        std::int64_t per_group = tokens / block;
        std::vector<std::string> allowed;
        for (std::int64_t extra = 0; extra < lo.groups; ++extra) {
            std::string c =
                two(static_cast<double>(per_group * lo.groups + extra) / static_cast<double>(lo.per_request_blocks));
            if (allowed.empty() || allowed.back() != c) allowed.push_back(c);
        }
        f.holds = std::find(allowed.begin(), allowed.end(), printed) != allowed.end();
        f.computed = allowed.size() == 1 ? allowed.front() : allowed.front() + " to " + allowed.back();
        f.why = fmt::format(
            "the printed {} tokens are {} blocks of {}{}, and one request of {} tokens takes {} blocks; their quotient "
            "is",
            group_thousands(tokens), group_thousands(per_group), block,
            lo.groups == 1 ? "" : fmt::format(" in each of {} groups", lo.groups), group_thousands(*s.max_model_len),
            group_thousands(lo.per_request_blocks));
        return f;
    }
    f.computed = fmt::format("{} to {}", two(lo.max_concurrency), two(hi.max_concurrency));
    f.why = "the pool in the printed memory gives a maximum concurrency of";
    auto c = Rational::parse(printed);
    auto c_lo = Rational::parse(two(lo.max_concurrency)), c_hi = Rational::parse(two(hi.max_concurrency));
    f.holds = !(c && c_lo && c_hi && (*c < *c_lo || *c > *c_hi));
    return f;
}

void vllm(const Record& r, const Model& m, AllocationCheck& out) {
    if (!r.node("vllm")) return;
    AllocationPartCheck part;
    part.what = "pool";
    read_part(r, "vllm", {"available_kv_gib", "tokens", "concurrency"}, part);
    auto finish = [&] { out.parts.push_back(std::move(part)); };
    auto tokens = integer(r, "vllm.tokens");
    auto gib = Rational::parse(text(r, "vllm.available_kv_gib"));
    if (!tokens) return finish();
    if (!gib) {
        out.not_judged.emplace_back(
            "vllm.tokens: the log printed no available memory, so the tokens are not "
            "recomputed");
        return finish();
    }
    auto dtype = torch_cache_dtype(text(r, "vllm.kv_cache_dtype"), text(r, "vllm.model_dtype"));
    if (!dtype) {
        out.problems.push_back({"vllm.kv_cache_dtype", text(r, "vllm.kv_cache_dtype"), "a cache dtype kvcat knows",
                                "kvcat has no size for it"});
        return finish();
    }
    EngineSettings s;
    s.version = text(r, "engine_version");
    s.gpus = integer(r, "vllm.tensor_parallel").value_or(1);
    s.block_size = integer(r, "vllm.block_size");
    s.max_model_len = integer(r, "vllm.max_model_len");
    if (auto b = integer(r, "vllm.max_num_batched_tokens")) s.max_num_batched_tokens = *b;
    // The printed GiB is rounded to two decimals: the memory lay within half a hundredth of it.
    Rational half(1, 200);
    Rational unit(1LL << 30);
    try {
        VllmPool lo = vllm_pool(m, *dtype, s, ((*gib - half) * unit).floor());
        VllmPool hi = vllm_pool(m, *dtype, s, ((*gib + half) * unit).floor());
        std::int64_t block = lo.block_size;
        part.terms.push_back(fmt::format(
            "memory: {} GiB as printed, so {:.3f} to {:.3f} GiB ({} to {} bytes){}", text(r, "vllm.available_kv_gib"),
            gib->to_double() - 0.005, gib->to_double() + 0.005, group_thousands(((*gib - half) * unit).floor()),
            group_thousands(((*gib + half) * unit).floor()), s.gpus > 1 ? " on each card" : ""));
        part.terms.push_back(fmt::format("pool: {} to {} blocks of {} tokens in {} group{} of {} layer{}",
                                         group_thousands(lo.num_blocks), group_thousands(hi.num_blocks), block,
                                         lo.groups, lo.groups == 1 ? "" : "s", lo.group_size,
                                         lo.group_size == 1 ? "" : "s"));
        bool by_blocks = !s.version.empty() && vllm_version_before(s.version, "0.20");
        part.terms.push_back(
            by_blocks ? fmt::format("tokens: num_blocks // {} group{} x {} = {} to {} (vLLM {} prints blocks)",
                                    lo.groups, lo.groups == 1 ? "" : "s", block, group_thousands(lo.tokens),
                                    group_thousands(hi.tokens), s.version)
                      : fmt::format("tokens: int(maximum concurrency x max_model_len) = {} to {}",
                                    group_thousands(lo.tokens), group_thousands(hi.tokens)));
        if (lo.per_request_blocks > 0) {
            part.terms.push_back(
                fmt::format("one request of max_model_len takes {} blocks; maximum concurrency {} to "
                            "{}",
                            group_thousands(lo.per_request_blocks), two(lo.max_concurrency), two(hi.max_concurrency)));
        }
        AllocationFigure t;
        t.key = "vllm.tokens";
        t.printed = group_thousands(*tokens);
        t.unit = "tokens";
        t.computed = fmt::format("{} to {}", group_thousands(lo.tokens), group_thousands(hi.tokens));
        t.why = fmt::format("{} to {} GiB hold, in blocks of {}", two(gib->to_double() - 0.005),
                            two(gib->to_double() + 0.005), block);
        t.holds = *tokens >= lo.tokens - block && *tokens <= hi.tokens + block;
        if (t.holds && by_blocks && *tokens % block != 0) {
            // Up to 0.19 _report_kv_cache_config prints num_blocks // len(groups) x the smallest
            // block size (vllm/v1/core/kv_cache_utils.py at 001cabc1be16a59a70d720ed61a13b678c060a18,
            // and num_blocks x block_size at bbf906a88ba1a39104884c88c9811a4f968e4659), times the
            // context-parallel size when there is one: a whole number of blocks.
            std::int64_t down = *tokens / block * block;
            std::int64_t nearest = *tokens - down <= block / 2 ? down : down + block;
            t.holds = false;
            t.computed = group_thousands(nearest);
            t.why = fmt::format(
                "vLLM {} prints num_blocks // groups x the block size, a whole number of blocks of {}; the nearest is",
                s.version, block);
        }
        part.figures.push_back(std::move(t));
        if (std::string printed = text(r, "vllm.concurrency"); !printed.empty()) {
            part.figures.push_back(vllm_concurrency(printed, *tokens, lo, hi, s));
        }
        s.available_bytes = (*gib * unit);
        out.answer = engine_allocation(m, *dtype, Engine::vllm, s);
    } catch (const EngineError& e) {
        out.problems.push_back({"vllm", "this pool", "a shape kvcat models", e.what()});
    }
    finish();
}

/// SGLang's Mamba pool as printed: the conv and SSM state of the printed requests and the padded
/// slot, each judged to the printed hundredth of a GB.
void sglang_mamba(const Record& r, const Model& m, AllocationCheck& out) {
    auto slots = integer(r, "sglang.mamba_slots");
    if (!slots) return;
    AllocationPartCheck part;
    part.what = "Mamba pool";
    read_part(r, "sglang", {"mamba_slots", "conv_state_gb", "ssm_state_gb"}, part);
    // The KV pool's figures are its own part's; of the settings only the SSM dtype is this pool's.
    std::erase_if(part.settings, [](const auto& kv) { return kv.first != "mamba_ssm_dtype"; });
    std::int64_t tp = integer(r, "sglang.tensor_parallel").value_or(1);
    std::string ssm_type = sglang_ssm_dtype(m, text(r, "sglang.mamba_ssm_dtype"));
    try {
        SglangMambaBytes b = sglang_mamba_bytes(m, *slots, tp, std::string(kSglangConvDtype), ssm_type);
        part.terms.push_back(fmt::format("rows: {} requests + the padded slot = {}", group_thousands(*slots),
                                         group_thousands(*slots + 1)));
        part.terms.push_back(fmt::format("conv state: {} bytes = {} GB ({} layers, {}{})", bytes_words(b.conv),
                                         python_gib_text(b.conv), b.layers, kSglangConvDtype,
                                         tp > 1 ? ", one card's" : ""));
        part.terms.push_back(fmt::format("SSM state: {} bytes = {} GB ({} layers, {}{})", bytes_words(b.ssm),
                                         python_gib_text(b.ssm), b.layers, ssm_type, tp > 1 ? ", one card's" : ""));
        auto judge = [&](const std::string& key, const Rational& bytes, std::string_view what) {
            decimal_figure(r, key, python_gib_text(bytes), "GB",
                           fmt::format("SGLang's {} of {} requests and the padded slot is {} bytes", what,
                                       group_thousands(*slots), group_thousands(bytes.floor())),
                           part);
        };
        judge("sglang.conv_state_gb", b.conv, "conv state");
        judge("sglang.ssm_state_gb", b.ssm, "SSM state");
        part.bytes = b.conv + b.ssm;
    } catch (const EngineError& e) {
        out.problems.push_back({"sglang.mamba_slots", "this Mamba pool", "a shape kvcat models", e.what()});
    }
    out.parts.push_back(std::move(part));
}

void sglang(const Record& r, const Model& m, AllocationCheck& out) {
    if (!r.node("sglang")) return;
    sglang_mamba(r, m, out);
    AllocationPartCheck part;
    part.what = "pool";
    read_part(r, "sglang", {"tokens", "k_gb", "v_gb", "kv_gb"}, part);
    std::erase_if(part.settings, [](const auto& kv) {
        return kv.first == "mamba_slots" || kv.first == "conv_state_gb" || kv.first == "ssm_state_gb" ||
               kv.first == "mamba_ssm_dtype";
    });
    auto finish = [&] { out.parts.push_back(std::move(part)); };
    auto tokens = integer(r, "sglang.tokens");
    if (!tokens) return finish();
    auto dtype = torch_cache_dtype(text(r, "sglang.kv_cache_dtype"), "");
    if (!dtype) {
        out.not_judged.push_back("sglang: kvcat has no size for the cache dtype " + text(r, "sglang.kv_cache_dtype"));
        return finish();
    }
    EngineSettings s;
    s.version = text(r, "engine_version");
    s.page_size = sglang_page_size(m, integer(r, "sglang.page_size").value_or(1));
    s.gpus = integer(r, "sglang.tensor_parallel").value_or(1);
    s.context = *tokens;
    s.mamba_slots = integer(r, "sglang.mamba_slots");
    s.mamba_ssm_cache_dtype = text(r, "sglang.mamba_ssm_dtype");
    try {
        SglangPoolBytes b = sglang_pool_bytes(m, *dtype, *tokens, s.page_size, s.gpus);
        Rational cell = sglang_cell_bytes(m, *dtype, s.gpus);
        part.terms.push_back(fmt::format("slots: {} tokens + {} padding slot{} = {}", group_thousands(*tokens),
                                         s.page_size, s.page_size == 1 ? "" : "s",
                                         group_thousands(*tokens + s.page_size)));
        part.terms.push_back(
            fmt::format("{}: {} bytes = {} GB", b.mla ? "KV" : "K", bytes_words(b.k), python_gib_text(b.k)));
        if (!b.indexer.is_zero()) {
            part.terms.push_back(fmt::format(
                "indexer keys: {} bytes in pages of {}; KV size with them: {} bytes = {} GB", bytes_words(b.indexer),
                s.page_size, bytes_words(b.k + b.indexer), python_gib_text(b.k + b.indexer)));
        }
        if (!b.mla) {
            part.terms.push_back(fmt::format("V: {} bytes = {} GB", bytes_words(b.v), python_gib_text(b.v)));
        }
        part.terms.push_back(fmt::format("{} bytes per token over every layer{} (GB = 2^30 bytes)", cell.to_display(),
                                         s.gpus > 1 ? ", one card's" : ""));
        auto judge = [&](const std::string& key, const Rational& bytes) {
            decimal_figure(r, key, python_gib_text(bytes), "GB",
                           fmt::format("SGLang's pool of {} tokens and its padding page is {} bytes",
                                       group_thousands(*tokens), group_thousands(bytes.floor())),
                           part);
        };
        judge("sglang.k_gb", b.k);
        judge("sglang.v_gb", b.v);
        judge("sglang.kv_gb", b.k + b.v + b.indexer);
        part.bytes = b.k + b.v + b.indexer;
        out.answer = engine_allocation(m, *dtype, Engine::sglang, s);
    } catch (const EngineError& e) {
        out.problems.push_back({"sglang", "this pool", "a shape kvcat models", e.what()});
    }
    finish();
}

}  // namespace

AllocationCheck check_allocation(const Record& r, const Model& m) {
    AllocationCheck out;
    auto engine = parse_engine(text(r, "engine"));
    if (!engine) return out;  // schema-enum
    out.engine = *engine;
    switch (*engine) {
        case Engine::llamacpp:
        case Engine::ik_llama:  // its cache lines are read as llama.cpp's, with its MLA layout
            llama_cache(r, m, "kv_cache", out);
            llama_cache(r, m, "swa_cache", out);
            llama_recurrent(r, m, out);
            if (*engine == Engine::llamacpp) llama_start(r, m, out);
            llama_answer(r, m, out);
            break;
        case Engine::vllm:
            vllm(r, m, out);
            break;
        case Engine::sglang:
            sglang(r, m, out);
            break;
    }
    return out;
}

namespace {

const AllocationFigure* figure(const AllocationCheck& c, std::string_view key) {
    for (const auto& p : c.parts) {
        for (const auto& f : p.figures) {
            if (f.key == key) return &f;
        }
    }
    return nullptr;
}

std::string printed_value(const AllocationPartCheck& p, std::string_view name) {
    for (const auto& [k, v] : p.printed) {
        if (k == name) return v;
    }
    return "";
}

}  // namespace

AllocationSummary summarise_allocation(const Record& r, const AllocationCheck& c) {
    AllocationSummary out;
    // Each printed figure of the headline, with kvcat's beside it when it was recomputed.
    std::vector<std::string> printed, computed;
    std::string unit;
    auto add = [&](const AllocationPartCheck& p, std::string_view name) {
        std::string value = printed_value(p, name);
        if (value.empty()) return;
        printed.push_back(value);
        const AllocationFigure* f = figure(c, p.key + "." + std::string(name));
        computed.push_back(f ? f->computed : "");
    };
    switch (c.engine) {
        case Engine::llamacpp:
        case Engine::ik_llama: {
            std::string part = r.node("kv_cache") ? "kv_cache" : "swa_cache";
            out.kv_cache_dtype = text(r, part + ".k_type");
            out.v_cache_dtype = text(r, part + ".v_type");
            if (out.v_cache_dtype == out.kv_cache_dtype) out.v_cache_dtype.clear();
            out.context = integer(r, part + ".cells");
            out.seqs = integer(r, part + ".seqs");
            if (out.context) out.tokens = checked_mul(*out.context, integer(r, part + ".streams").value_or(1));
            for (const auto& p : c.parts) add(p, "size_mib");
            unit = "MiB";
            break;
        }
        case Engine::vllm:
        case Engine::sglang: {
            bool vllm = c.engine == Engine::vllm;
            std::string part = vllm ? "vllm" : "sglang";
            // auto is the model's dtype, named only when the log shows it; else auto as written.
            std::string written = text(r, part + ".kv_cache_dtype");
            std::string model_dtype = text(r, part + ".model_dtype");
            bool named = !written.empty() && written != "auto";
            auto d = named || !model_dtype.empty() ? torch_cache_dtype(written, model_dtype) : std::nullopt;
            out.kv_cache_dtype = d ? catalog_dtype(vllm ? "vLLM" : "SGLang", d->name) : written;
            if (vllm) out.context = integer(r, "vllm.max_model_len");
            out.tokens = integer(r, part + ".tokens");
            out.tensor_parallel = integer(r, part + ".tensor_parallel").value_or(1);
            for (const auto& p : c.parts) {
                if (vllm && out.tokens) {
                    printed.push_back(group_thousands(*out.tokens));
                    const AllocationFigure* f = figure(c, "vllm.tokens");
                    computed.push_back(f ? f->computed : "");
                } else if (!vllm) {
                    // A hybrid's Mamba pool first (its part comes first), then the KV pool.
                    for (const char* name : {"conv_state_gb", "ssm_state_gb", "k_gb", "v_gb", "kv_gb"}) add(p, name);
                }
            }
            unit = vllm ? "tokens" : "GB";
            break;
        }
    }
    if (printed.empty()) return out;
    out.printed = fmt::format("{} {}", fmt::join(printed, " + "), unit);
    if (std::none_of(computed.begin(), computed.end(), [](const std::string& x) { return x.empty(); })) {
        out.computed = fmt::format("{} {}", fmt::join(computed, " + "), unit);
    }
    return out;
}

}  // namespace kvcat
