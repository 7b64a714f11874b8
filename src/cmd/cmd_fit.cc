#include <iostream>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check/lint.h"
#include "check/record_ref.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/engine_options.h"
#include "engines/engine_rules.h"
#include "engines/engine_verdict.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "import/gguf.h"
#include "import/skeleton.h"
#include "load/schema.h"
#include "model/physics.h"
#include "output/engine_render.h"
#include "output/wrap.h"
#include "predict/speed_answer.h"
#include "support/bisect.h"
#include "vocab/dtype.h"
#include "vocab/dtype_spelling.h"
#include "vocab/weight_mix.h"
#include "vocab/weight_quant.h"

namespace kvcat::cmd {

namespace {

struct FitOptions {
    std::string model;
    std::string accelerator;
    std::string weight_quant;
    std::string kv_dtype;
    std::int64_t batch = 1;
    ReserveOption reserve;
    std::int64_t gpus = 1;
    std::optional<std::int64_t> weight_bytes;
    std::string weight_file;
    bool imatrix = false;  ///< the GGUF mix was quantised with an importance matrix
    std::string contexts;
    EngineOptions engine;
    Common common;
};

/// "8k,32k,128k" as tokens; nullopt (and a logged error) on a bad entry.
std::optional<std::vector<std::int64_t>> parse_fit_contexts(const std::string& text) {
    std::vector<std::int64_t> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        auto tokens = parse_context(part);
        if (!tokens) {
            spdlog::error("--contexts: '{}' is not a context such as 8k, 32768 or 1M", part);
            return std::nullopt;
        }
        out.push_back(*tokens);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

/// The KV cache one card holds at `context`: what fit_bytes_at adds to the fixed terms.
Rational kv_at(const FitTerms& t, std::int64_t context) {
    return fit_bytes_at(t, context) - t.weights - t.fixed_state - t.reserve;
}

std::string gib_text(const Rational& bytes) {
    return two_decimals(bytes / Rational(1LL << 30)) + " GiB";
}

/// At each context, the KV cache on a line of its own, then the whole of what one card holds
/// (weights, fixed state and reserve with it), and whether it fits.
std::string contexts_text(const FitTerms& t, const std::vector<std::int64_t>& contexts) {
    std::string out = fmt::format("  at each context (one card{}):\n", t.batch > 1 ? ", the whole batch" : "");
    for (auto c : contexts) {
        Rational kv = kv_at(t, c);
        Rational total = fit_bytes_at(t, c);
        bool fits = !(total > t.memory);
        out += fmt::format("  {:>10} tokens  KV cache {:>22} bytes  ({})\n", group_thousands(c),
                           group_thousands(kv.ceil()), gib_text(kv));
        out += fmt::format("  {:>10}         + weights, fixed state, reserve = {} bytes  ({} of {})  {}\n", "",
                           group_thousands(total.ceil()), gib_text(total), gib_text(t.memory),
                           fits ? "fits" : "does not fit");
    }
    return out;
}

/// The engine's answer for the fit's card: with --available-kv-gib that memory, with llama.cpp's
/// or SGLang's --ctx-size that size, otherwise the engine's budget on the card (engine_budget.h:
/// vLLM's share of the card by --gpu-memory-utilization, SGLang's by --mem-fraction-static, less
/// the weights and what each holds back).
std::optional<EngineAnswer> fit_engine(const FitOptions& o, const Model& model, const CacheDtype& dtype,
                                       const FitTerms& terms, bool* failed) {
    std::string error;
    auto chosen = engine_settings(o.engine, &error);
    if (!chosen) {
        if (!error.empty()) {
            spdlog::error("{}", error);
            *failed = true;
        }
        return std::nullopt;
    }
    auto [engine, settings] = *chosen;
    const EngineRules& rules = rules_of(engine);
    settings.gpus = o.gpus;
    rules.card_defaults(settings, terms);
    bool sized = o.engine.ctx_size && rules.ctx_size_sizes;
    std::vector<BudgetTerm> budget_terms;
    if (!settings.available_bytes && !sized) {
        EngineBudget budget = rules.budget(settings, terms);
        settings.available_bytes = budget.available;
        budget_terms = std::move(budget.terms);
        // vLLM keeps a memory of nothing or less and refuses to start on it, as it does itself.
        if (!(*settings.available_bytes > Rational(0)) && rules.without_memory != EngineWithoutMemory::refuses) {
            settings.available_bytes.reset();
            if (rules.without_memory == EngineWithoutMemory::holds_nothing) {
                // It sizes its pool from the memory alone: with none left it holds no token (a
                // pool of a default size would be an answer the engine never gives).
                spdlog::warn("--engine {}: the weights leave no memory for the token pool", rules.name);
                return std::nullopt;
            }
        }
    }
    if (sized) settings.available_bytes.reset();
    try {
        EngineAnswer a = engine_allocation(model, dtype, engine, settings);
        a.budget = std::move(budget_terms);  // empty when the size was given
        return a;
    } catch (const EngineRefusal& e) {
        // The engine would not start: its verdict, shown with the textbook's terms, exit 1.
        EngineAnswer refused;
        refused.engine = engine;
        refused.rule = std::string(name_of(engine)) + ", before it allocates";
        refused.refusal = e.what();
        if (rules.sizing == EngineSizing::from_memory) refused.budget = std::move(budget_terms);
        return refused;
    } catch (const std::exception& e) {
        spdlog::error("--engine {}: {}", o.engine.engine, e.what());
        *failed = true;
        return std::nullopt;
    }
}

/// llama.cpp and ik_llama.cpp allocate their whole cache and state at start-up: with --ctx-size
/// on one card, the verdict is the card's memory against the weights, the reserve and what the
/// engine allocates (the planner's verdict too). Why it does not fit, or nullopt when it does.
std::optional<std::string> engine_overflow(const FitOptions& o, const Model& model, const CacheDtype& dtype,
                                           const FitTerms& terms, const EngineAnswer& e) {
    if (e.refusal || !o.engine.ctx_size || o.gpus != 1) return std::nullopt;
    if (rules_of(e.engine).sizing != EngineSizing::at_start) return std::nullopt;
    Rational need = engine_start_bytes(terms, e);
    if (!(need > terms.memory)) return std::nullopt;
    // The largest -c whose allocation fits, as the engine pads it: its cache only grows with -c.
    std::int64_t fits = largest_holding(1, *o.engine.ctx_size - 1, [&](std::int64_t c) {
        FitOptions at = o;
        at.engine.ctx_size = c;
        bool failed = false;
        auto a = fit_engine(at, model, dtype, terms, &failed);
        return a && !a->refusal && !(engine_start_bytes(terms, *a) > terms.memory);
    });
    Rational runtime = engine_runtime_bytes(terms, e);
    // The answer's own runtime line ("runtime on the card") says what it is made of.
    std::string runtime_name = e.runtime_bytes ? "the runtime on the card" : "the reserve";
    std::string largest = fits <= 0 ? std::string("no -c fits")
                          : e.fit_target_bytes > Rational(0)
                              ? fmt::format("the largest -c that leaves --fit its target is {}", group_thousands(fits))
                              : fmt::format("the largest -c whose allocation fits is {}", group_thousands(fits));
    if (!(e.fit_target_bytes > Rational(0))) {
        return fmt::format(
            "at -c {} {} allocates {} bytes of cache and state, which with the weights{} ({} bytes) and {} ({} "
            "bytes) is {} bytes, {} more than the card's {} ({}); {}",
            group_thousands(*o.engine.ctx_size), name_of(e.engine),
            group_thousands((e.kv_bytes + e.state_bytes).ceil()),
            terms.weights_off_card > Rational(0) ? " on the card" : "",
            group_thousands((terms.weights - terms.weights_off_card).ceil()), runtime_name,
            group_thousands(runtime.ceil()), group_thousands(need.ceil()), gib_text(need - terms.memory),
            group_thousands(terms.memory.ceil()), terms.memory_how, largest);
    }
    // llama.cpp's --fit (common/fit.cpp at 80fb11ac) does not refuse: with -c given it moves layers
    // to the CPU until the target is free, and only -fit off leaves the start to fail or not.
    Rational start = need - e.fit_target_bytes;
    std::string without = start > terms.memory
                              ? std::string("with -fit off it fails to allocate")
                              : fmt::format("with -fit off it starts with {} to spare", gib_text(terms.memory - start));
    return fmt::format(
        "at -c {} {} allocates {} bytes of cache and state, which with the weights on the card ({} bytes) and {} "
        "({} bytes) leaves {} of the card's {} ({}) free where its --fit keeps {} ({} bytes, --fit-target); "
        "so it does not start as asked but keeps layers on the CPU, and every token is slower ({}); {}",
        group_thousands(*o.engine.ctx_size), name_of(e.engine), group_thousands((e.kv_bytes + e.state_bytes).ceil()),
        group_thousands((terms.weights - terms.weights_off_card).ceil()), runtime_name, group_thousands(runtime.ceil()),
        start > terms.memory ? "nothing" : gib_text(terms.memory - start), group_thousands(terms.memory.ceil()),
        terms.memory_how, gib_text(e.fit_target_bytes), group_thousands(e.fit_target_bytes.ceil()), without, largest);
}

/// A whole start (--ctx-size on one card) whose verdict a card holding more or less before the engine
/// starts would turn (engine_held_edge).
std::optional<std::string> start_edge(const FitOptions& o, const FitTerms& terms, const EngineAnswer& e) {
    if (e.refusal || !o.engine.ctx_size || o.gpus != 1) return std::nullopt;
    if (rules_of(e.engine).sizing != EngineSizing::at_start) return std::nullopt;
    return engine_held_edge(terms, e);
}

/// What an answer for a mix rests on, and how to get the exact one.
std::string mix_note(const WeightMix& mix) {
    return fmt::format(
        "{0} is llama.cpp's mix of {1} with {2} (src/llama-quant.cpp), which the model record cannot place: the "
        "weights are taken as {1} throughout, a lower bound, so the largest context is at most the one shown. For "
        "the real size give --weight-file FILE.gguf, or --weight-bytes N (llama-bench's model_size).",
        mix.name, mix.base, mix.raised);
}

/// --accelerator a,b,c: which of these cards run the model, one line each (the terms of
/// one are `kvcat fit` with that card alone).
/// The contexts a fit's speeds are given at: --contexts, else the engine's context, else the
/// largest that fits.
std::vector<std::int64_t> speed_contexts(const FitOptions& o, const FitTerms& terms,
                                         const std::vector<std::int64_t>& contexts) {
    if (!contexts.empty()) return contexts;
    for (const auto& given : {o.engine.ctx_size, o.engine.max_model_len}) {
        if (given && *given > 0) return {*given};
    }
    if (terms.fits && terms.max_context > 0) return {terms.max_context};
    return {};
}

/// The fit's model, card, weights and cache as a speed's setup, with `engine` as records spell it.
SpeedSetup fit_setup(const FitOptions& o, const Record& model, const Record& accelerator, const FitSetup& setup,
                     const CacheDtype& dtype, const std::string& engine) {
    SpeedSetup s;
    s.model = model.id;
    s.accelerator = accelerator.id;
    s.card = accelerator.accelerator->name;
    s.gpus = setup.gpus;
    s.engine = engine;
    s.weights = o.weight_quant;
    if (setup.weight_bytes) s.weight_bytes = setup.weight_bytes->floor();
    s.kv = catalog_dtype(engine, dtype.name);
    std::string v = o.engine.v_dtype.empty() ? "" : catalog_dtype(engine, o.engine.v_dtype);
    s.v_kv = v == s.kv ? "" : v;
    s.concurrency = setup.batch;
    return s;
}

/// kvcat predict's answer at each context, for the fit's model, card, weights and cache.
std::vector<SpeedAnswer> fit_speeds(const FitOptions& o, const LintResult& lint, const Record& model,
                                    const Record& accelerator, const FitSetup& setup, const CacheDtype& dtype,
                                    const std::vector<std::int64_t>& at) {
    std::vector<SpeedAnswer> out;
    if (at.empty()) return out;
    if (o.engine.engine.empty()) {
        // No engine, no prediction (a measured speed belongs to one engine): the ceiling alone,
        // without learning the intervals of every basis from the catalog.
        SpeedPhysics physics(lint.records);
        for (std::int64_t c : at) {
            SpeedAnswer a;
            a.setup = fit_setup(o, model, accelerator, setup, dtype, "");
            a.context = c;
            if (auto floor = physics.floor_seconds(a.setup, c)) a.ceiling_tps = 1.0 / *floor;
            a.weights_how = physics.weights_how(a.setup);
            out.push_back(std::move(a));
        }
        return out;
    }
    CatalogSpeeds speeds(lint.records);
    SpeedSetup s = fit_setup(o, model, accelerator, setup, dtype, speeds.engine_named(o.engine.engine));
    for (std::int64_t c : at) out.push_back(speeds.answer(s, c));
    return out;
}

std::string speeds_text(const FitOptions& o, const std::vector<SpeedAnswer>& answers) {
    if (answers.empty()) return "";
    std::string out = fmt::format("  speed of each request (kvcat predict{}):\n",
                                  o.engine.engine.empty() ? "; give --engine for a predicted speed" : "");
    for (const SpeedAnswer& a : answers) {
        std::string ceiling = a.ceiling_tps ? fmt::format("decode ceiling {:.2f} tokens/s", *a.ceiling_tps)
                                            : std::string("no decode ceiling (no bandwidth or weight size)");
        const SpeedPart* d = a.part(SpeedMeasure::decode);
        std::string predicted =
            d ? fmt::format("; predicted {:.2f} (80% interval {:.2f} to {:.2f}; basis {})", d->estimate.value, d->low(),
                            d->high(), basis_name(d->estimate.basis))
              : (o.engine.engine.empty() ? "" : "; no prediction: no measured point reaches this setup");
        out += fmt::format("  {:>10} tokens  {}{}\n", group_thousands(a.context), ceiling, predicted);
    }
    return out;
}

int fit_on_each(const FitOptions& o, const LintResult& lint, const std::optional<WeightQuant>& quant,
                const std::optional<WeightMix>& mix, const CacheDtype& dtype, const FitSetup& setup,
                const std::string& weights_name) {
    RecordRef model_ref = resolve_record(lint.records, o.model, RecordKind::model);
    if (!model_ref.record || !model_ref.record->model) {
        spdlog::error("{}: {}", o.common.records,  // the folder first: the error may end in a question
                      model_ref.record ? model_ref.record->id + " is not a readable model record" : model_ref.error);
        return ExitCode::failure;
    }
    const Record& model = *model_ref.record;
    struct Answer {
        std::string id;
        FitTerms terms;
    };
    std::vector<Answer> answers;
    for (const auto& name : split_commas(o.accelerator)) {
        RecordRef ref = resolve_record(lint.records, name, RecordKind::accelerator);
        if (!ref.record || !ref.record->accelerator) {
            spdlog::error("{}: {}", o.common.records,
                          ref.record ? ref.record->id + " is not a readable accelerator record" : ref.error);
            return ExitCode::failure;
        }
        FitTerms terms = fit_context(*model.model, *ref.record->accelerator, quant ? &*quant : nullptr, dtype, setup);
        answers.push_back({ref.record->id, terms});
    }
    std::size_t runs = 0;
    for (const auto& a : answers) runs += a.terms.fits ? 1 : 0;
    if (o.common.format == "json") {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& a : answers) {
            nlohmann::json one = quant && !mix ? fit_json(a.terms, model.id, a.id, *quant, dtype)
                                               : fit_json(a.terms, model.id, a.id, weights_name, dtype);
            if (!a.terms.fits) one["refusal"] = fit_refusal(a.terms);
            if (mix) one["weights_lower_bound"] = true;
            j.push_back(one);
        }
        std::cout << j.dump(2) << '\n';
    } else {
        std::string text = fmt::format(
            "{}, weights {}, KV cache {}, batch {}{}: {} of {} cards run it\n", model.id, weights_name, dtype.name,
            setup.batch, setup.gpus > 1 ? fmt::format(", {} of each", setup.gpus) : "", runs, answers.size());
        std::size_t width = 0;
        for (const auto& a : answers) width = std::max(width, a.id.size());
        for (const auto& a : answers) {
            std::string answer = a.terms.fits
                                     ? fmt::format("largest context {:>11} tokens  ({} for the KV cache of {})",
                                                   group_thousands(a.terms.max_context), gib_text(a.terms.available),
                                                   gib_text(a.terms.memory))
                                     : fit_refusal(a.terms);
            text += fmt::format("  {:<{}}  {}\n", a.id, width, answer);
        }
        if (mix) text += "  " + mix_note(*mix) + "\n";
        text += "  Every term of one card: kvcat fit with that --accelerator alone.\n";
        std::cout << fit_to_stdout(text);
    }
    return runs > 0 ? ExitCode::ok : ExitCode::findings;
}

/// llama.cpp on one card: the weights it keeps in host memory, from the plan of a mix or the
/// tensors of --weight-file (engines/llamacpp/llamacpp_quant.h); nothing for another engine, or
/// for weights given only as bytes.
void set_weights_off_card(FitTerms& terms, const FitOptions& o, const std::optional<QuantPlan>& exact,
                          const std::vector<NamedTensorBytes>& file_tensors) {
    if (o.gpus != 1 || parse_engine(o.engine.engine) != Engine::llamacpp) return;
    if (exact) {
        terms.weights_off_card = Rational(llamacpp_off_card_bytes(*exact));
        terms.weights_off_card_how = llamacpp_host_bytes_how(*exact);
    } else if (!file_tensors.empty()) {
        terms.weights_off_card = Rational(llamacpp_off_card_bytes(file_tensors));
        terms.weights_off_card_how = llamacpp_off_card_how(file_tensors) + ", as " + o.weight_file + " holds them";
    }
}

/// The engine's answer under `j`, with its figures scripts read beside the textbook's, and its
/// verdict: `fits` false when its start overflows the card or it would not start.
void add_engine_json(nlohmann::json& j, const EngineAnswer& engine, const Model& model, const FitTerms& terms,
                     const std::optional<std::string>& overflow) {
    nlohmann::json e = engine_json(engine, model);
    j["engine_kv_bytes"] = e["engine_kv_bytes"];
    j["engine_state_bytes"] = e["engine_state_bytes"];
    j["engine_tokens"] = e["engine_tokens"];
    if (e.contains("compute_buffer_bytes")) j["compute_buffer_bytes"] = e["compute_buffer_bytes"];
    if (e.contains("host_compute_buffer_bytes")) j["host_compute_buffer_bytes"] = e["host_compute_buffer_bytes"];
    if (e.contains("fit_target_bytes")) j["fit_target_bytes"] = e["fit_target_bytes"];
    if (e.contains("card_held_bytes")) j["card_held_bytes"] = e["card_held_bytes"];
    if (e.contains("runtime_bytes")) j["runtime_bytes"] = e["runtime_bytes"];
    if (terms.weights_off_card > Rational(0)) {
        j["weights_off_card_bytes"] = terms.weights_off_card.ceil();
        j["weights_off_card_how"] = terms.weights_off_card_how;
    }
    j["engine"] = e;
    if (overflow) {
        j["fits"] = false;  // the engine's allocation does not fit the card
        j["engine_overflow"] = *overflow;
    }
    if (engine.refusal) {
        j["fits"] = false;  // the engine's verdict: it would not start
        j["engine_refusal"] = *engine.refusal;
        if (engine.parts.empty()) {  // refused before it allocates anything
            j["engine_kv_bytes"] = nullptr;
            j["engine_state_bytes"] = nullptr;
        }
    }
}

/// The weights the engine loads for a named format where it holds a rule for them
/// (EngineRules::loaded_weights: vLLM's layers), in place of all parameters x bits; its refusal,
/// in its own words, when it would not load them.
std::optional<std::string> set_loaded_weights(const FitOptions& o, const Model& model, FitSetup& setup) {
    std::string error;  // a wrong engine option is fit_engine's to report
    auto chosen = engine_settings(o.engine, &error);
    if (!chosen) return std::nullopt;
    auto& [engine, settings] = *chosen;
    settings.gpus = o.gpus;
    try {
        if (auto w = rules_of(engine).loaded_weights(model, o.weight_quant, settings)) {
            setup.weight_bytes = w->bytes * Rational(o.gpus);
            setup.weight_how = w->how;
        }
    } catch (const EngineRefusal& e) {
        return std::string(e.what());
    } catch (const OverflowError&) {
        // Widths whose layers pass 64 bits: the parameters x bits stand, and fit_context says
        // what it makes of them.
    }
    return std::nullopt;
}

/// The engine's answer when it would not load the weights: its refusal, the budget kept.
EngineAnswer refused_at_load(const EngineAnswer& answer, const std::string& refusal) {
    EngineAnswer refused;
    refused.engine = answer.engine;
    refused.rule = std::string(name_of(answer.engine)) + ", as it loads the weights";
    refused.refusal = refusal;
    refused.budget = answer.budget;
    return refused;
}

int run_fit(const FitOptions& o) {
    int weight_sources = !o.weight_quant.empty() + o.weight_bytes.has_value() + !o.weight_file.empty();
    if (weight_sources != 1) {
        spdlog::error(
            "give the weights' size one way: --weight-quant FORMAT, --weight-bytes N or --weight-file "
            "FILE.gguf");
        return ExitCode::failure;
    }
    std::optional<WeightQuant> quant;
    std::optional<WeightMix> mix;                // a lower bound of the weights, said under the answer
    std::vector<NamedTensorBytes> file_tensors;  // --weight-file's tensors
    FitSetup setup;
    setup.batch = o.batch;
    setup.gpus = o.gpus;
    std::string weights_name;
    if (!o.weight_quant.empty()) {
        auto named = find_weights(o.weight_quant);
        auto llama_mix = find_llama_mix(o.weight_quant);
        if (!named && !llama_mix) {
            spdlog::error(
                "{}. For the real size give --weight-file FILE.gguf or --weight-bytes N (llama-bench's model_size)",
                unknown_weights_message(o.weight_quant));
            return ExitCode::failure;
        }
        if (named) {
            quant = named->quant;
            mix = named->mix;
        }
        // A mix with no single base type (MXFP4_MOE) has only its exact plan, below.
        weights_name = named ? std::string(named->name()) : std::string(llama_mix->name);
    } else if (o.weight_bytes) {
        if (*o.weight_bytes <= 0) {
            spdlog::error("--weight-bytes must be a number of bytes greater than zero");
            return ExitCode::failure;
        }
        setup.weight_bytes = Rational(*o.weight_bytes);
        setup.weight_how = "as given by --weight-bytes";
        weights_name = fmt::format("{} bytes", group_thousands(*o.weight_bytes));
    } else {
        try {
            GgufWeights g = read_gguf_weights(o.weight_file);
            for (const auto& e : g.extents) {
                file_tensors.push_back({e.name, static_cast<std::int64_t>(e.bytes), ""});
            }
            setup.weight_bytes = Rational(static_cast<std::int64_t>(g.data_bytes));
            setup.weight_how = gguf_weights_how(o.weight_file, g);
            weights_name = o.weight_file;
        } catch (const std::exception& e) {
            spdlog::error("{}: {}", o.weight_file, e.what());
            return ExitCode::failure;
        }
    }
    auto dtype = find_cache_dtype(o.kv_dtype);
    if (!dtype) {
        spdlog::error("{}", unknown_cache_dtype_message(o.kv_dtype));
        return ExitCode::failure;
    }
    setup.reserve = o.reserve.bytes();
    setup.reserve_given = o.reserve.given();
    std::vector<std::int64_t> contexts;
    if (!o.contexts.empty()) {
        auto parsed = parse_fit_contexts(o.contexts);
        if (!parsed) return ExitCode::failure;
        contexts = *parsed;
    }
    // Judged: the model and the cards, whose findings are shown beside the answer.
    LintOptions judging;
    judging.judge_only = [&o](const RecordSet& refs) {
        std::vector<RecordName> names = {{o.model, RecordKind::model}};
        for (const auto& name : split_commas(o.accelerator)) names.push_back({name, RecordKind::accelerator});
        return files_named(refs, names);
    };
    LintResult lint = lint_paths({o.common.records}, judging);
    std::optional<QuantPlan> exact;
    const Model* sized_model = nullptr;  // the model record a named format is sized against
    if (!o.weight_quant.empty()) {
        RecordRef ref = resolve_record(lint.records, o.model, RecordKind::model);
        if (ref.record && ref.record->model) sized_model = &*ref.record->model;
        try {
            if (sized_model) exact = named_quant_plan(*sized_model, o.weight_quant, o.engine.engine, o.imatrix);
        } catch (const std::exception& e) {
            spdlog::error("{}: {}", ref.record->id, e.what());
            return ExitCode::failure;
        }
    }
    if (!o.weight_quant.empty() && !exact && !quant) {
        spdlog::error(
            "{} is sized only from llama-quantize's plan, which needs the model record's tensors mapping "
            "(and the llama.cpp family of engines); give --weight-file FILE.gguf or --weight-bytes N",
            weights_name);
        return ExitCode::failure;
    }
    if (exact) {  // the file's own bytes: no lower bound left to say
        quant.reset();
        mix.reset();
        setup.weight_bytes = Rational(exact->bytes);
        setup.weight_how = quant_plan_how(*exact);
    }
    std::optional<std::string> load_refusal;
    if (!exact && quant && sized_model && !o.engine.engine.empty())
        load_refusal = set_loaded_weights(o, *sized_model, setup);
    if (o.accelerator.find(',') != std::string::npos) {
        if (!o.engine.engine.empty()) {
            spdlog::error("--engine answers for one card: give one --accelerator with it");
            return ExitCode::failure;
        }
        return fit_on_each(o, lint, quant, mix, *dtype, setup, weights_name);
    }
    RecordRef model_ref = resolve_record(lint.records, o.model, RecordKind::model);
    RecordRef accelerator_ref = resolve_record(lint.records, o.accelerator, RecordKind::accelerator);
    const Record* model = model_ref.record;
    const Record* accelerator = accelerator_ref.record;
    if (!model || !model->model) {
        spdlog::error("{}: {}", o.common.records,  // the folder first: the error may end in a question
                      model_ref.record ? model_ref.record->id + " is not a readable model record" : model_ref.error);
        return ExitCode::failure;
    }
    if (!accelerator || !accelerator->accelerator) {
        spdlog::error("{}: {}", o.common.records,
                      accelerator_ref.record ? accelerator_ref.record->id + " is not a readable accelerator record"
                                             : accelerator_ref.error);
        return ExitCode::failure;
    }
    for (const auto& d : lint.diagnostics) {
        if (d.severity == Severity::error && (d.pos.file == model->file || d.pos.file == accelerator->file)) {
            spdlog::warn("{}", format_text(d));
        }
    }
    FitTerms terms = fit_context(*model->model, *accelerator->accelerator, quant ? &*quant : nullptr, *dtype, setup);
    set_weights_off_card(terms, o, exact, file_tensors);
    bool engine_failed = false;
    std::optional<EngineAnswer> engine = fit_engine(o, *model->model, *dtype, terms, &engine_failed);
    if (engine_failed) return ExitCode::failure;
    if (engine && load_refusal) engine = refused_at_load(*engine, *load_refusal);
    std::optional<std::string> overflow =
        engine ? engine_overflow(o, *model->model, *dtype, terms, *engine) : std::nullopt;
    std::optional<std::string> edge = engine ? start_edge(o, terms, *engine) : std::nullopt;
    if (mix) terms.weights_how = "at least: " + terms.weights_how + ", " + std::string(mix->base) + " throughout";
    std::vector<SpeedAnswer> speeds =
        fit_speeds(o, lint, *model, *accelerator, setup, *dtype, speed_contexts(o, terms, contexts));
    if (o.common.format == "json") {
        nlohmann::json j = quant ? fit_json(terms, model->id, accelerator->id, *quant, *dtype)
                                 : fit_json(terms, model->id, accelerator->id, weights_name, *dtype);
        if (!terms.fits) j["refusal"] = fit_refusal(terms);
        if (mix) {
            j["weights_lower_bound"] = true;
            j["weights_note"] = mix_note(*mix);
        }
        if (exact) {
            j["weights_lower_bound"] = false;
            j["weight_tensors"] = exact->tensors_per_type();
        }
        if (!contexts.empty()) {
            j["at_contexts"] = nlohmann::json::array();
            for (auto c : contexts) {
                Rational total = fit_bytes_at(terms, c);
                j["at_contexts"].push_back({{"context", c},
                                            {"kv_bytes", kv_at(terms, c).ceil()},
                                            {"bytes", total.ceil()},
                                            {"fits", !(total > terms.memory)}});
            }
        }
        if (engine) add_engine_json(j, *engine, *model->model, terms, overflow);
        if (edge) j["engine_held_edge"] = *edge;
        j["speeds"] = nlohmann::json::array();
        for (const SpeedAnswer& a : speeds) j["speeds"].push_back(speed_answer_json(a));
        std::cout << j.dump(2) << '\n';
    } else {
        std::string text = fit_text(terms, model->id, accelerator->id, weights_name, *dtype);
        if (mix) text += "  " + mix_note(*mix) + "\n";
        if (!contexts.empty()) text += contexts_text(terms, contexts);
        if (engine) text += engine_text(*engine, *model->model);
        if (engine && terms.weights_off_card > Rational(0)) {
            text += fmt::format("  weights in host memory, not on the card: {} bytes ({})\n",
                                group_thousands(terms.weights_off_card.ceil()), terms.weights_off_card_how);
        }
        if (overflow) text += "  does not fit: " + *overflow + "\n";
        if (edge) text += "  on the edge: " + *edge + "\n";
        text += speeds_text(o, speeds);
        std::cout << fit_to_stdout(text);
    }
    if (!terms.fits) {
        spdlog::error("{}", fit_refusal(terms));
        return ExitCode::findings;
    }
    if (overflow) {
        spdlog::error("--engine {}: does not fit on {}: {}", o.engine.engine, accelerator->id, *overflow);
        return ExitCode::findings;
    }
    if (engine && engine->refusal) {
        spdlog::error("--engine {} would not start with these settings: {}", o.engine.engine, *engine->refusal);
        return ExitCode::findings;
    }
    return ExitCode::ok;
}

}  // namespace

void setup_fit(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<FitOptions>();
    CLI::App* sub = app.add_subcommand("fit", "The largest context that fits on an accelerator, every term shown");
    sub->add_option("--model", o->model, "A model record id")->required();
    sub->add_option("--accelerator", o->accelerator,
                    "An accelerator record id, or several, comma-separated: which of these run it")
        ->required();
    sub->add_option("--weight-quant", o->weight_quant,
                    "The weights' format: Q4_K, Q8_0, bf16, fp8, ...; a llama.cpp mix (Q4_K_M, ...): its exact bytes "
                    "when the model record lists its tensors, else a lower bound");
    sub->add_flag("--imatrix", o->imatrix,
                  "The mix was quantised with an importance matrix (llama-quantize --imatrix, as most published "
                  "GGUFs are): changes Q4_0, Q5_0, IQ4_NL and IQ4_XS");
    sub->add_option("--weight-bytes", o->weight_bytes, "The weights' real size, bytes (all cards together)");
    sub->add_option("--weight-file", o->weight_file, "A GGUF file: its tensor data is the weights' size");
    sub->add_option("--gpus", o->gpus, "Cards the model is spread over (tensor parallel)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_option("--contexts", o->contexts, "Also show the memory at each of these contexts: 8k,32k,128k");
    sub->add_option("--kv-dtype", o->kv_dtype, "The KV cache dtype: bf16, fp8, q8_0, ...")
        ->transform(lower_case())
        ->required();
    sub->add_option("--batch", o->batch, "Sequences held at once")->check(CLI::PositiveNumber)->capture_default_str();
    add_reserve_option(*sub, o->reserve);
    add_engine_options(*sub, o->engine);
    add_records_option(*sub, o->common, RecordsUse::read);
    add_format_option(*sub, o->common, FormatFamily::document);
    sub->footer(
        "Examples:\n"
        "  kvcat fit --model models/qwen3.5-27b --accelerator accelerators/nvidia-rtx-3090 \\\n"
        "            --weight-quant Q4_K --kv-dtype bf16\n"
        "  kvcat fit --model models/deepseek-v3 --accelerator accelerators/nvidia-h200 --gpus 8 \\\n"
        "            --weight-file DeepSeek-V3-Q4_K_M.gguf --kv-dtype fp8 --contexts 8k,32k,128k\n"
        "  kvcat fit --model qwen3.5-27b --accelerator nvidia-rtx-4090 --weight-quant Q4_K --kv-dtype q8_0 --batch 4\n"
        "  kvcat fit --model llama-4-scout --accelerator nvidia-h200 --weight-quant fp8 --kv-dtype bf16 \\\n"
        "            --engine vllm --engine-version 0.10.1.1 --max-model-len 131072 --gpu-memory-utilization 0.95 \\\n"
        "            --flashinfer-sampler on\n"
        "  kvcat fit --model qwen3.6-27b --accelerator apple-m4-max --weight-quant Q8_0 --kv-dtype f16 \\\n"
        "            --engine llama.cpp --ctx-size 262144 --parallel 4 --kv-unified\n"
        "With --engine the engine's own allocation follows the textbook terms: its parts, the lines it prints\n"
        "at start-up and each place it differs; --format json adds engine_kv_bytes, engine_state_bytes and\n"
        "engine_tokens.\n"
        "  kvcat fit --model qwen3.5-27b --accelerator nvidia-rtx-3090,nvidia-rtx-4090,nvidia-rtx-5090 \\\n"
        "            --weight-quant Q4_K_M --kv-dtype q8_0\n"
        "A record id may leave out its folder, or be cut to a start only one record has.\n"
        "With --format json the answer is max_context (null when nothing fits) and the other keys are the terms.\n"
        "Exit status 1 when the weights, state and reserve alone do not fit on a card, or when the --engine would\n"
        "refuse to start (vLLM: one request of --max-model-len does not fit; its words and its estimated maximum\n"
        "model length follow, and JSON says \"fits\": false with engine_refusal).");
    set_command_body(*sub, exit_code, [o] { return run_fit(*o); });
}

}  // namespace kvcat::cmd
