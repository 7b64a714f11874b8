#include "engines/vllm/vllm_record_check.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "engines/allocation_fields.h"
#include "engines/checkpoint_layers.h"
#include "engines/vllm/vllm_allocation.h"
#include "engines/vllm/vllm_budget.h"
#include "engines/vllm/vllm_log.h"
#include "engines/vllm/vllm_profile.h"
#include "vocab/dtype_spelling.h"

namespace kvcat {

namespace {

using namespace allocation_fields;  // NOLINT(google-build-using-namespace): the record readers every check shares

/// vLLM's printed maximum concurrency beside the pools at either end of the printed memory.
AllocationFigure vllm_concurrency(const std::string& printed, std::int64_t tokens, const VllmPool& lo,
                                  const VllmPool& hi, const EngineSettings& s) {
    // Built whole: g++ 12 at -O3 reports a false -Wrestrict on a short literal assigned to a member
    // of a fresh figure here (GCC bug 105329).
    AllocationFigure f{.key = "vllm.concurrency", .printed = printed, .computed = {}, .unit = "x", .why = {}};
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
    // The weights as loaded are a printed figure (its line stands under what the engine printed),
    // not a setting.
    std::erase_if(part.settings,
                  [](const auto& kv) { return kv.first == "model_loading_gib" || vllm_profile_key(kv.first); });
    auto finish = [&] { out.parts.push_back(std::move(part)); };
    auto tokens = integer(r, "vllm.tokens");
    // The profile line's "Current kv cache memory in use" prints the same figure as "Available KV
    // cache memory" (available_kv_cache_memory_bytes, gpu_worker.py), for a log that shows only it.
    std::string memory_key = text(r, "vllm.available_kv_gib").empty() && !text(r, "vllm.kv_in_use_gib").empty()
                                 ? "vllm.kv_in_use_gib"
                                 : "vllm.available_kv_gib";
    auto gib = Rational::parse(text(r, memory_key));
    if (!tokens) return finish();
    if (!gib) {
        out.not_judged.push_back(
            {"vllm.tokens", "the log printed no available memory, so the tokens are not recomputed"});
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
    if (s.max_model_len && *s.max_model_len <= 0) {
        // The schema says so too; no concurrency or token count is worked out from it.
        out.problems.push_back({"vllm.max_model_len", std::to_string(*s.max_model_len), "a length above zero",
                                "vLLM's maximum concurrency divides by it, so nothing is recomputed"});
        return finish();
    }
    if (auto b = integer(r, "vllm.max_num_batched_tokens")) s.max_num_batched_tokens = *b;
    // The printed GiB is rounded to two decimals: the memory lay within half a hundredth of it.
    Rational half(1, 200);
    Rational unit(1LL << 30);
    try {
        VllmPool lo = vllm_pool(m, *dtype, s, ((*gib - half) * unit).floor());
        VllmPool hi = vllm_pool(m, *dtype, s, ((*gib + half) * unit).floor());
        std::int64_t block = lo.block_size;
        part.terms.push_back(fmt::format(
            "memory: {} GiB as printed{}, so {:.3f} to {:.3f} GiB ({} to {} bytes){}", text(r, memory_key),
            memory_key == "vllm.kv_in_use_gib" ? " (the profile line's kv cache in use)" : "", gib->to_double() - 0.005,
            gib->to_double() + 0.005, group_thousands(((*gib - half) * unit).floor()),
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
        out.answer = vllm_allocation(m, *dtype, s);
    } catch (const EngineError& e) {
        out.problems.push_back({"vllm", "this pool", "a shape kvcat models", e.what()});
    }
    finish();
}

/// The checkpoint format whose layers vLLM builds for a model it loads unquantized in
/// `model_dtype` (torch's name): it makes every parameter in that dtype, whatever the files hold.
std::optional<std::string_view> unquantized_format(std::string_view model_dtype) {
    if (model_dtype == "bfloat16") return "bf16";
    if (model_dtype == "float16") return "fp16";
    if (model_dtype == "float32") return "f32";
    return std::nullopt;
}

/// "Model loading took X GiB" and the profile line's "X GiB for weight": torch's bytes once the
/// weights are loaded (the same model_memory_usage), held to the layers vLLM's model file makes
/// for a checkpoint loaded in the model's dtype (quantization None), with what PyTorch's caching
/// allocator counts beside them and the rotary table (vllm_loaded_weights, vllm_rotary_table), to
/// the printed places: four up to 0.10 ("%.4f"), two from 0.11.
void vllm_weights_loaded(const Record& r, const Model& m, AllocationCheck& out) {
    std::vector<std::string> keys;
    for (const char* key : {"vllm.model_loading_gib", "vllm.weights_gib"}) {
        if (!text(r, key).empty()) keys.emplace_back(key);
    }
    if (keys.empty()) return;
    // The profile line's figure is judged by engine-profile's sums whether or not this rule can
    // judge it, so only "Model loading took" is noted when kvcat has no layers to hold it to.
    auto not_judged = [&](const std::string& why) {
        if (keys.front() == "vllm.model_loading_gib") out.not_judged.push_back({keys.front(), why});
    };
    std::string quantization = text(r, "vllm.quantization");
    std::string model_dtype = text(r, "vllm.model_dtype");
    if (quantization.empty()) {
        return not_judged("the record does not give the config line's quantization, on which vLLM's layers depend");
    }
    if (quantization != "None") {
        return not_judged(
            quantization == "fp8"
                ? "an fp8 checkpoint: vLLM replaces its layers once loaded, and kvcat's fp8 layers stand 0.002 and "
                  "0.06 GiB from the two starts that print them, not explained (docs/engines.md)"
                : fmt::format("a checkpoint quantized as {}: kvcat builds no layers for it", quantization));
    }
    auto format = unquantized_format(model_dtype);
    if (!format)
        return not_judged(fmt::format("the model's dtype ({}) is not one kvcat builds vLLM's layers in",
                                      model_dtype.empty() ? "not given" : model_dtype));
    EngineSettings s;
    s.gpus = integer(r, "vllm.tensor_parallel").value_or(1);
    s.expert_parallel = text(r, "vllm.expert_parallel") == "true";
    s.model_dtype = std::string(*checkpoint_float_dtype(*format));
    auto weights = vllm_loaded_weights(m, *format, s);
    auto rotary = vllm_rotary_table(s, model_terms(m));
    if (!weights || !rotary) {
        return not_judged(
            "kvcat builds vLLM's layers and rotary table for the llama, qwen2, qwen3 and qwen3moe architectures "
            "with a tensors mapping, not this model's");
    }
    Rational unit(std::int64_t{1} << 30);
    Rational bytes = weights->bytes + *rotary;
    AllocationPartCheck part;
    part.key = "vllm";
    part.what = "weights as loaded";
    part.settings = {{"quantization", quantization}, {"model_dtype", model_dtype}};
    part.terms.push_back(
        fmt::format("weights: {} = {} bytes", weights->how, allocation_fields::bytes_words(weights->bytes)));
    part.terms.push_back(fmt::format("the rotary table: {} positions x {} x {} bytes = {} bytes",
                                     group_thousands(m.native_context.value_or(0)), m.head_dim.value_or(0),
                                     *torch_dtype_bytes(s.model_dtype), allocation_fields::bytes_words(*rotary)));
    for (const auto& key : keys) {
        std::string printed = text(r, key);
        auto gib = Rational::parse(printed);
        if (!gib) continue;
        // vLLM 0.10 prints four places ("%.4f"), later releases round to two and drop a trailing zero.
        std::size_t dot = printed.find('.');
        int places = std::max(2, dot == std::string::npos ? 0 : static_cast<int>(printed.size() - dot - 1));
        Rational half = Rational(1, 2) / Rational(places == 2 ? 100 : 10000);
        AllocationFigure f;
        f.key = key;
        f.printed = printed;
        f.unit = "GiB";
        f.computed = fmt::format("{:.{}f}", (bytes / unit).to_double(), places);
        f.why = fmt::format("vLLM's layers for a {} checkpoint on {} and its rotary table come to {} bytes, which is",
                            *format, plural(s.gpus, "card"), allocation_fields::bytes_words(bytes));
        f.holds = !(bytes < (*gib - half) * unit) && !(bytes > (*gib + half) * unit);
        part.figures.push_back(std::move(f));
    }
    out.parts.push_back(std::move(part));
}

}  // namespace

void vllm_check_record(const Record& r, const Model& m, AllocationCheck& out) {
    vllm(r, m, out);
    vllm_weights_loaded(r, m, out);
    // The profile line's sums need no model; the engine-profile rule reports them.
    VllmProfileCheck profile = vllm_profile_check(r);
    if (!profile.any) return;
    profile.part.rule = "engine-profile";
    out.parts.push_back(std::move(profile.part));
    out.not_judged.insert(out.not_judged.end(), profile.not_judged.begin(), profile.not_judged.end());
}

void vllm_summarise(const Record& r, const AllocationCheck& c, AllocationSummary& out, AllocationHeadline& headline) {
    // auto is the model's dtype, named only when the log shows it; else auto as written.
    std::string written = text(r, "vllm.kv_cache_dtype");
    std::string model_dtype = text(r, "vllm.model_dtype");
    bool named = !written.empty() && written != "auto";
    auto d = named || !model_dtype.empty() ? torch_cache_dtype(written, model_dtype) : std::nullopt;
    out.kv_cache_dtype = d ? catalog_dtype("vLLM", d->name) : written;
    out.context = integer(r, "vllm.max_model_len");
    out.tokens = integer(r, "vllm.tokens");
    out.tensor_parallel = integer(r, "vllm.tensor_parallel").value_or(1);
    bool pool = std::any_of(c.parts.begin(), c.parts.end(), [](const auto& p) { return p.rule.empty(); });
    if (pool && out.tokens) {
        headline.printed.push_back(group_thousands(*out.tokens));
        const AllocationFigure* f = find_figure(c, "vllm.tokens");
        headline.computed.push_back(f ? f->computed : "");
    }
    headline.unit = "tokens";
}

void vllm_logged_figures(const ParsedLog& log, std::vector<LoggedFigure>& out) {
    add_logged(out, "vllm.available_kv_gib", log.available_gib, true);
    add_logged(out, "vllm.tokens", log.tokens);
    add_logged(out, "vllm.concurrency", log.concurrency, true);
    add_logged(out, "vllm.model_loading_gib", log.model_loading_gib, true);
    for_each_profile_figure(log.profile, [&out](const char* key, const auto& value) {
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
            add_logged(out, std::string("vllm.") + key, value, true);  // a printed GiB, compared as a number
        } else {
            add_logged(out, std::string("vllm.") + key, value);
        }
    });
}

}  // namespace kvcat
