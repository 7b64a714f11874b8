// kvcat plan: a plan before the download. For a model on a card, every weight format x KV cache
// dtype x slots asked for, whether each context step fits and the largest context (model/plan.h),
// as one table in any of query's formats.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check/lint.h"
#include "check/record_ref.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/engine_options.h"
#include "cmd/table_output.h"
#include "engines/engine_rules.h"
#include "engines/engine_verdict.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "import/gguf.h"
#include "model/curve.h"
#include "model/plan.h"
#include "output/render.h"
#include "output/terminal.h"
#include "vocab/weight_mix.h"

namespace kvcat::cmd {

namespace {

struct PlanOptions {
    Common common;
    std::string model;
    std::string accelerator;
    std::int64_t gpus = 1;
    std::string weights = "bf16,Q8_0,Q6_K,Q5_K_M,Q4_K_M,Q3_K_M";
    CLI::Option* weights_option = nullptr;
    std::vector<std::string> weight_files;  ///< GGUF paths or addresses, planned at their exact bytes
    std::string kv_dtypes;  ///< empty: the engine's usual ones (llama.cpp's f16, q8_0, q4_0 without one)
    EngineOptions engine;
    std::string slots = "1";
    std::string contexts;
    ReserveOption reserve;
    bool imatrix = false;
};

Table plan_table(const std::vector<PlanRow>& rows, const PlanGrid& grid) {
    Table t;
    t.columns = {"weights", "weights_lower_bound", "kv_cache_dtype", "slots", "weight_bytes", "max_context"};
    for (std::int64_t c : grid.contexts) t.columns.push_back("fits_" + context_tag(c));
    for (const PlanRow& r : rows) {
        std::vector<Cell> cells;
        cells.emplace_back(r.weights);
        cells.emplace_back(std::string(r.weights_lower_bound ? "yes" : "no"));
        cells.emplace_back(r.kv_dtype);
        cells.emplace_back(r.slots);
        cells.push_back(r.error.empty() ? Cell((r.terms.weights * Rational(grid.gpus)).ceil()) : Cell());
        cells.push_back(r.max_context > 0 ? Cell(r.max_context) : Cell());
        for (bool fits : r.fits_at) cells.emplace_back(std::string(fits ? "yes" : "no"));
        t.rows.push_back(std::move(cells));
    }
    return t;
}

std::string_view plan_column_unit(std::string_view column) {
    if (column == "weight_bytes") return "bytes";
    if (column == "max_context") return "tokens";
    return {};
}

/// What the table rests on, on stderr under it: the card's memory and reserve, the mixes'
/// lower bound, and the rows the physics could not answer.
void plan_notes(const std::vector<PlanRow>& rows, const PlanGrid& grid, const std::string& model,
                const std::string& accelerator, const EngineOptions& engine_options, bool imatrix) {
    const std::string& engine = engine_options.engine;
    // The card's terms from a row the physics answered (a refused row's are empty).
    auto answered =
        std::find_if(rows.begin(), rows.end(), [](const PlanRow& r) { return r.terms.memory > Rational(0); });
    if (answered == rows.end()) return;
    const FitTerms& t = answered->terms;
    spdlog::info(
        "{} on {}{}: {} bytes a card ({}), {} bytes held back for the runtime; weight_bytes counts "
        "every card; max_context is the largest context that fits, up to the model's native {}",
        model, accelerator, grid.gpus > 1 ? fmt::format(" x {}", grid.gpus) : "", group_thousands(t.memory.ceil()),
        t.memory_how, group_thousands(grid.reserve.ceil()), group_thousands(t.native_context));
    if (auto e = parse_engine(engine)) {
        spdlog::info("each verdict is {}'s: {}", name_of(*e), rules_of(*e).verdict_rule);
    }
    std::vector<std::string> mixes, exact;
    for (const PlanRow& r : rows) {
        if (r.weights_lower_bound && std::find(mixes.begin(), mixes.end(), r.weights) == mixes.end())
            mixes.push_back(r.weights);
        auto sized = grid.exact_weights.find(r.weights);
        if (sized != grid.exact_weights.end() && std::find(exact.begin(), exact.end(), r.weights) == exact.end()) {
            exact.push_back(r.weights);
            if (!find_weights(r.weights) || grid.engine_layers.count(r.weights))
                spdlog::info("{}: {}", r.weights, sized->second.second);
        }
        if (!r.error.empty()) spdlog::warn("{} with {}: {}", r.weights, r.kv_dtype, r.error);
        if (!r.why_not.empty() && r.max_context == 0 && r.terms.fits) {
            spdlog::info("{} with {} and {} slot{}: {}", r.weights, r.kv_dtype, r.slots, r.slots == 1 ? "" : "s",
                         r.why_not);
        }
    }
    // Files and the engine's own layers, said above: what is left is llama-quantize's.
    std::erase_if(exact, [&grid](const std::string& w) { return !find_weights(w) || grid.engine_layers.count(w); });
    bool files = std::any_of(grid.exact_weights.begin(), grid.exact_weights.end(),
                             [](const auto& e) { return !find_weights(e.first); });
    if (!exact.empty()) {
        spdlog::info("{} {} sized as llama-quantize writes {}, tensor by tensor from the model record{}",
                     fmt::join(exact, ", "), exact.size() == 1 ? "is" : "are", exact.size() == 1 ? "it" : "them",
                     imatrix ? ", with an importance matrix" : "");
    }
    if (!mixes.empty()) {
        spdlog::info(
            "{} {} llama.cpp's mix{} of block types, taken at {} base type throughout: the weights are a "
            "lower bound (weights_lower_bound: yes), so a yes may not fit the real file; kvcat fit "
            "--weight-file FILE.gguf or --weight-bytes N gives the exact answer",
            fmt::join(mixes, ", "), mixes.size() == 1 ? "is" : "are", mixes.size() == 1 ? "" : "es",
            mixes.size() == 1 ? "its" : "their");
    }
    spdlog::info(
        "every term of one row: kvcat fit --model {} --accelerator {} --weight-quant W{} --kv-dtype D "
        "--batch SLOTS{}{}",
        model, accelerator, files ? " (or --weight-file F)" : "",
        grid.gpus > 1 ? fmt::format(" --gpus {}", grid.gpus) : "",
        engine.empty() ? "" : engine_fit_flags(engine_options) + " and its context option");
}

/// gpt-oss is published in llama-quantize's MXFP4_MOE (its experts were trained in MXFP4): without
/// --weights its plan has that mix too, after bf16, where the engine's files are llama-quantize's.
void add_published_mix(PlanGrid& grid, const Model& model, const std::string& engine, bool imatrix) {
    if (!model.tensors || model.tensors->llama_arch != "gpt-oss") return;
    try {
        if (!named_quant_plan(model, "MXFP4_MOE", engine, imatrix)) return;
    } catch (const std::invalid_argument&) {
        return;
    }
    grid.weights.insert(grid.weights.begin() + (grid.weights.empty() ? 0 : 1), "MXFP4_MOE");
}

/// The mixes whose exact bytes llama-quantize's plan gives for this model (engines/llamacpp/llamacpp_quant).
void exact_mix_weights(PlanGrid& grid, const Model& model, const std::string& engine, bool imatrix) {
    for (const auto& w : grid.weights) {
        auto named = find_weights(w);
        // plan_fits refuses a name neither table knows, with the list of known ones; a llama.cpp
        // mix with no single base type (MXFP4_MOE) is known only by its exact plan.
        if (!named && !find_llama_mix(w)) continue;
        try {
            if (auto plan = named_quant_plan(model, w, engine, imatrix)) {
                std::string name = named ? std::string(named->name()) : w;
                grid.exact_weights[name] = {Rational(plan->bytes), quant_plan_how(*plan)};
                if (grid.gpus == 1 && parse_engine(engine) == Engine::llamacpp) {
                    grid.weights_off_card[name] = {Rational(llamacpp_off_card_bytes(*plan)),
                                                   llamacpp_host_bytes_how(*plan)};
                }
            }
        } catch (const std::invalid_argument& e) {
            throw PlanError(e.what());
        }
    }
}

/// The weights the engine loads for each named format where it holds a rule for them
/// (EngineRules::loaded_weights: vLLM's layers), or its refusal to load them on these cards.
void engine_loaded_weights(PlanGrid& grid, const Model& model, Engine engine, EngineSettings settings) {
    settings.gpus = grid.gpus;
    for (const auto& w : grid.weights) {
        auto named = find_weights(w);
        if (!named || grid.exact_weights.count(std::string(named->name()))) continue;
        std::string name(named->name());
        try {
            if (auto loaded = rules_of(engine).loaded_weights(model, w, settings)) {
                grid.exact_weights[name] = {loaded->bytes * Rational(grid.gpus), loaded->how};
                grid.engine_layers.insert(name);
            }
        } catch (const EngineRefusal& e) {
            grid.refused_weights[name] = e.what();
        } catch (const OverflowError&) {
            // Widths whose layers pass 64 bits: the row keeps all parameters x bits.
        }
    }
}

int run_plan(const PlanOptions& o) {
    auto format = parse_table_format(o.common.format);
    PlanGrid grid;
    // With --weight-file and no --weights, the files alone are planned.
    if (o.weight_files.empty() || o.weights_option->count() > 0) grid.weights = split_commas(o.weights);
    for (const auto& where : o.weight_files) {
        try {
            GgufWeights g = read_gguf_weights(where);
            std::string name = where.substr(where.find_last_of('/') + 1);
            grid.weights.push_back(name);
            grid.exact_weights[name] = {Rational(static_cast<std::int64_t>(g.data_bytes)), gguf_weights_how(where, g)};
        } catch (const std::exception& e) {
            spdlog::error("{}: {}", where, e.what());
            return ExitCode::failure;
        }
    }
    grid.gpus = o.gpus;
    std::string error;
    auto engine = engine_settings(o.engine, &error);
    if (!error.empty()) {
        spdlog::error("{}", error);
        return ExitCode::failure;
    }
    const EngineRules* rules = engine ? &rules_of(engine->first) : nullptr;
    if (rules && rules->one_card_only && o.gpus > 1) {
        spdlog::error("--engine {} is planned on one card: kvcat does not model how it spreads layers over cards",
                      o.engine.engine);
        return ExitCode::failure;
    }
    // The cache dtypes each engine takes: vLLM and SGLang have no q8_0 or q4_0 cache.
    grid.kv_dtypes = split_commas(!o.kv_dtypes.empty() ? o.kv_dtypes
                                  : rules              ? std::string(rules->plan_kv_dtypes)
                                                       : std::string("f16,q8_0,q4_0"));
    try {
        for (std::int64_t s : parse_contexts(o.slots)) grid.slots.push_back(s);
        if (!o.contexts.empty()) {
            grid.contexts = parse_contexts(o.contexts);
            std::sort(grid.contexts.begin(), grid.contexts.end());
            grid.contexts.erase(std::unique(grid.contexts.begin(), grid.contexts.end()), grid.contexts.end());
        }
    } catch (const std::invalid_argument& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    grid.reserve = o.reserve.bytes();
    grid.reserve_given = o.reserve.given();
    LintResult lint = lint_paths({o.common.records}, judging_none());
    RecordRef model = resolve_record(lint.records, o.model, RecordKind::model);
    RecordRef card = resolve_record(lint.records, o.accelerator, RecordKind::accelerator);
    for (const RecordRef* ref : {&model, &card}) {
        if (!ref->record || (ref == &model ? !ref->record->model : !ref->record->accelerator)) {
            spdlog::error("{}: {}", o.common.records,
                          ref->record ? ref->record->id + " is not a readable record of that kind" : ref->error);
            return ExitCode::failure;
        }
    }
    std::vector<PlanRow> rows;
    try {
        if (o.weights_option->count() == 0 && o.weight_files.empty()) {
            add_published_mix(grid, *model.record->model, engine ? o.engine.engine : std::string(), o.imatrix);
        }
        exact_mix_weights(grid, *model.record->model, engine ? o.engine.engine : std::string(), o.imatrix);
        if (engine) engine_loaded_weights(grid, *model.record->model, engine->first, engine->second);
        rows = plan_fits(*model.record->model, *card.record->accelerator, grid);
        if (engine) engine_plan(rows, grid, *model.record->model, engine->first, engine->second);
    } catch (const PlanError& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    RenderOptions shown = stdout_render_options("--format vertical", !o.common.no_formula_guard);
    shown.unit_of = plan_column_unit;
    // On a narrow terminal the verdicts stay longest: the mixes are named under the table.
    shown.drop_order = {"weights_lower_bound", "weight_bytes", "slots"};
    shown.summarize_when_dropped = {"slots"};
    std::cout << render_table(plan_table(rows, grid), *format, shown);
    std::cout.flush();
    plan_notes(rows, grid, model.record->id, card.record->id, o.engine, o.imatrix);
    if (std::all_of(rows.begin(), rows.end(), [](const PlanRow& r) { return !r.error.empty(); })) {
        // Not a verdict: nothing was answered (the warnings above say why for each row).
        spdlog::error("no row of the plan could be worked out: {}", rows.empty() ? "it has no row" : rows[0].error);
        return ExitCode::failure;
    }
    bool any = std::any_of(rows.begin(), rows.end(), [](const PlanRow& r) { return r.max_context > 0; });
    if (!any) {
        auto unanswered = std::count_if(rows.begin(), rows.end(), [](const PlanRow& r) { return !r.error.empty(); });
        bool refused = std::all_of(grid.weights.begin(), grid.weights.end(), [&grid](const std::string& w) {
            auto named = find_weights(w);
            return grid.refused_weights.count(named ? std::string(named->name()) : w) > 0;
        });
        spdlog::error("no row fits{}", unanswered > 0
                                           ? fmt::format(" of those worked out; {} could not be (above)", unanswered)
                                       : refused ? ": the engine would not load any of these weights (above)"
                                                 : ": even the smallest weights, cache and slots asked for leave "
                                                   "no room");
    }
    return any ? ExitCode::ok : ExitCode::findings;
}

}  // namespace

void setup_plan(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<PlanOptions>();
    CLI::App* sub = app.add_subcommand(
        "plan", "Before the download: which weights, KV cache dtype and slots fit a model on a card, at what context");
    sub->add_option("--model", o->model, "A model record id")->required();
    sub->add_option("--accelerator", o->accelerator, "An accelerator record id")->required();
    sub->add_option("--gpus", o->gpus, "Cards the model is spread over (tensor parallel, as kvcat fit)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    o->weights_option =
        sub->add_option("--weights", o->weights,
                        "Weight formats, comma-separated: exact ones (bf16, Q8_0, Q4_K, ...) or llama.cpp's mixes "
                        "(Q4_K_M, ...): exact when the model record lists its tensors, else a lower bound; by "
                        "default gpt-oss also gets MXFP4_MOE, the mix it is published in")
            ->capture_default_str();
    sub->add_option("--weight-file", o->weight_files,
                    "A GGUF file or its http(s) address (its header read by range requests), planned at its exact "
                    "weights; give it once a file; without --weights only the files are planned")
        ->allow_extra_args(false);
    sub->add_flag("--imatrix", o->imatrix,
                  "The mixes were quantised with an importance matrix (llama-quantize --imatrix)");
    sub->add_option("--kv-dtypes", o->kv_dtypes,
                    "KV cache dtypes, comma-separated (default f16,q8_0,q4_0; bf16,fp8 with --engine vllm or sglang)")
        ->transform(lower_case());
    sub->add_option("--engine", o->engine.engine,
                    "Each verdict as this engine decides it: llama.cpp, ik_llama.cpp, vllm or sglang (its other "
                    "settings at their defaults)");
    sub->add_option("--engine-version", o->engine.engine_version,
                    "The engine's build or release (b6713, 0.10.1.1) where a rule changed with it");
    sub->add_option("--max-num-seqs", o->engine.max_num_seqs,
                    "vLLM --max-num-seqs (its default by card when not set); a hybrid needs a pool block for each")
        ->check(CLI::PositiveNumber);
    add_vllm_memory_options(*sub, o->engine);
    sub->add_option("--slots", o->slots, "Sequences held at once, comma-separated: 1,4,8")->capture_default_str();
    sub->add_option("--contexts", o->contexts,
                    "Context steps, comma-separated: 8k,32k,128k (default: 4k, 8k, ... doubling up to the model's "
                    "native context, and that)");
    add_reserve_option(*sub, o->reserve);
    add_records_option(*sub, o->common, RecordsUse::read);
    add_format_option(*sub, o->common, FormatFamily::table);
    sub->footer(
        "One row per weight format x KV dtype x slots: the weights' bytes, the largest context that fits\n"
        "(empty when the weights alone do not) and yes or no at each context step, each the answer of\n"
        "kvcat fit for those settings: the card's memory as its driver reports it, the weights, the\n"
        "fixed state and KV cache of every slot, and --reserve-gib held back. A llama.cpp mix (Q4_K_M)\n"
        "is what llama-quantize writes, tensor by tensor, when the model record lists its tensors; else\n"
        "it is taken at its base type, a lower bound of the file (weights_lower_bound: yes). max_context\n"
        "stops at the model's native context. With --engine each verdict is that engine's: llama.cpp's\n"
        "whole allocation at -c context x slots, -np slots; vLLM's start and maximum concurrency at\n"
        "--max-model-len context; SGLang's token pool (see kvcat fit --engine). Exit 1 when no row fits.\n"
        "Examples:\n"
        "  kvcat plan --model qwen3-32b --accelerator nvidia-rtx-3090\n"
        "  kvcat plan --model qwen3.5-27b --accelerator nvidia-rtx-4090 --weights Q4_K_M,Q5_K_M --kv-dtypes "
        "q8_0,f16 --slots 1,4\n"
        "  kvcat plan --model llama-3.1-70b --accelerator nvidia-rtx-4090 --gpus 2 --format csv\n"
        "  kvcat plan --model qwen3.5-27b --accelerator nvidia-rtx-4090 --engine vllm --max-num-seqs 8 --weights Q4_K "
        "--slots 1,4");
    set_command_body(*sub, exit_code, [o] { return run_plan(*o); });
}

}  // namespace kvcat::cmd
