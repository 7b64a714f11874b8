#include <iostream>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check/lint.h"
#include "check/record_ref.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "output/wrap.h"
#include "predict/speed_answer.h"
#include "support/suggest.h"
#include "vocab/dtype.h"
#include "vocab/dtype_spelling.h"

namespace kvcat::cmd {

namespace {

struct PredictOptions {
    std::string model;
    std::string accelerator;
    std::string engine;
    std::string weight_quant;
    std::string kv_dtype;
    std::string v_dtype;
    std::int64_t context = 0;
    std::int64_t concurrency = 1;
    std::int64_t gpus = 1;
    bool speculative = false;
    std::string holdout;
    Common common;
};

/// The engine as the records spell it ("vllm" is vLLM); "" with an error naming the catalog's
/// engines when no measured point names it.
std::string engine_named(const std::string& given, const std::vector<SpeedPoint>& points) {
    std::string spelled = engine_spelled(given, points);
    if (spelled.empty()) {
        std::set<std::string> engines;
        for (const auto& p : points) engines.insert(p.setup.engine);
        std::vector<std::string_view> names(engines.begin(), engines.end());
        spdlog::error("no measured point names the engine '{}'; the catalog's engines: {}", given,
                      one_of(names, 10, ""));
    }
    return spelled;
}

int run_holdout(const PredictOptions& o, const SpeedPredictor& predictor) {
    std::vector<HoldoutMode> modes;
    if (o.holdout == "all") {
        modes = {HoldoutMode::point, HoldoutMode::curve, HoldoutMode::pair};
    } else if (auto m = find_holdout(o.holdout)) {
        modes = {*m};
    } else {
        spdlog::error("--holdout {}: expected point, curve, pair or all", o.holdout);
        return ExitCode::failure;
    }
    nlohmann::json j = nlohmann::json::object();
    std::string markdown;
    for (HoldoutMode m : modes) {
        auto cases = holdout_cases(predictor, m);
        if (o.common.format == "csv") {
            markdown += holdout_csv(m, cases, markdown.empty());
        } else if (o.common.format == "markdown") {
            markdown += (markdown.empty() ? "" : "\n") + holdout_markdown(m, cases);
        } else {
            j[std::string(holdout_name(m))] = holdout_json(cases);
        }
    }
    if (o.common.format == "markdown" || o.common.format == "csv") {
        std::cout << markdown;
    } else if (modes.size() == 1) {
        std::cout << j[std::string(holdout_name(modes[0]))].dump(2) << '\n';
    } else {
        std::cout << j.dump(2) << '\n';
    }
    return ExitCode::ok;
}

/// The setup the options name; nullopt (with an error logged) when one of them names nothing.
std::optional<SpeedSetup> setup_of(const PredictOptions& o, const RecordSet& records,
                                   const std::vector<SpeedPoint>& points) {
    SpeedSetup s;
    RecordRef model = resolve_record(records, o.model, RecordKind::model);
    if (!model.record || !model.record->model) {
        spdlog::error("{}: {}", o.common.records,
                      model.record ? model.record->id + " is not a model record" : model.error);
        return std::nullopt;
    }
    s.model = model.record->id;
    RecordRef card = resolve_record(records, o.accelerator, RecordKind::accelerator);
    if (card.record && card.record->accelerator) {
        s.accelerator = card.record->id;
        s.card = card.record->accelerator->name;
    } else {
        for (const auto& p : points) {  // a card a source names with no record of its own
            if (p.setup.accelerator.empty() && equal_ignoring_case(p.setup.card, o.accelerator)) s.card = p.setup.card;
        }
        if (s.card.empty()) {
            spdlog::error("{}: {}", o.common.records, card.error);
            return std::nullopt;
        }
    }
    s.engine = engine_named(o.engine, points);
    if (s.engine.empty()) return std::nullopt;
    for (const std::string* d : {&o.kv_dtype, &o.v_dtype}) {
        if (!d->empty() && !find_cache_dtype(*d)) {
            spdlog::error("unknown KV cache dtype '{}'", *d);
            return std::nullopt;
        }
    }
    s.weights = o.weight_quant;
    // A GGUF mix of a model whose record lists its tensors weighs what llama-quantize writes, as
    // kvcat fit takes it (engines/llamacpp/llamacpp_quant.h).
    try {
        if (auto plan = named_quant_plan(*model.record->model, o.weight_quant, s.engine)) s.weight_bytes = plan->bytes;
    } catch (const std::exception& e) {
        spdlog::error("{}: {}", model.record->id, e.what());
        return std::nullopt;
    }
    s.kv = catalog_dtype(s.engine, o.kv_dtype);  // the engine's spelling as the catalog names it
    std::string v = o.v_dtype.empty() ? "" : catalog_dtype(s.engine, o.v_dtype);
    s.v_kv = v == s.kv ? "" : v;
    s.gpus = o.gpus;
    s.concurrency = o.concurrency;
    s.speculative = o.speculative;
    return s;
}

int run_predict(const PredictOptions& o) {
    LintResult lint = lint_paths({o.common.records}, judging_none());
    SpeedPhysics physics(lint.records);
    SpeedPredictor predictor(speed_points(lint.records), physics);
    if (!o.holdout.empty()) return run_holdout(o, predictor);
    std::vector<std::string> missing;
    for (auto [value, name] :
         {std::pair{&o.model, "--model"}, std::pair{&o.accelerator, "--accelerator"}, std::pair{&o.engine, "--engine"},
          std::pair{&o.weight_quant, "--weight-quant"}, std::pair{&o.kv_dtype, "--kv-dtype"}}) {
        if (value->empty()) missing.emplace_back(name);
    }
    if (o.context <= 0) missing.emplace_back("--context");
    if (!missing.empty()) {
        spdlog::error("kvcat predict needs {} (or --holdout point|curve|pair|all)", fmt::join(missing, ", "));
        return ExitCode::failure;
    }
    auto setup = setup_of(o, lint.records, predictor.points());
    if (!setup) return ExitCode::failure;
    SpeedIntervals intervals(predictor);
    SpeedAnswer answer = predict_speed(predictor, intervals, *setup, o.context);
    if (o.common.format == "json") {
        std::cout << speed_answer_json(answer).dump(2) << '\n';
    } else {
        std::cout << fit_to_stdout(speed_answer_text(answer));
    }
    return answer.parts.empty() ? ExitCode::findings : ExitCode::ok;
}

}  // namespace

void setup_predict(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<PredictOptions>();
    CLI::App* sub = app.add_subcommand(
        "predict", "The decode and prefill speed at a context, predicted from the measured points, with an interval");
    sub->add_option("--model", o->model, "A model record id");
    sub->add_option("--accelerator", o->accelerator, "An accelerator record id, or a card a source names");
    sub->add_option("--engine", o->engine, "The engine: llama.cpp, ik_llama.cpp, vLLM, SGLang, MLX, ollama");
    sub->add_option("--weight-quant", o->weight_quant, "The weights' format as records write it: Q4_K_M, NVFP4, ...");
    sub->add_option("--kv-dtype", o->kv_dtype, "The KV cache dtype (K's when --v-dtype differs)")
        ->transform(lower_case());
    sub->add_option("--v-dtype", o->v_dtype, "The V cache's dtype, when it differs from K's")->transform(lower_case());
    sub->add_option("--context", o->context, "The context, tokens: 65536 or 64k")->transform(token_count());
    sub->add_option("--concurrency", o->concurrency, "Requests decoding together")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_option("--gpus", o->gpus, "Cards the model is spread over")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_flag("--speculative", o->speculative, "Predict a run with speculative decoding (a draft or MTP head)");
    sub->add_option("--holdout", o->holdout,
                    "Leave out each point, curve or card-and-model pair, predict it from the rest and print the "
                    "errors: point, curve, pair or all");
    add_records_option(*sub, o->common, RecordsUse::read);
    o->common.format = "text";
    sub->add_option("--format", o->common.format,
                    "Output format: text or json; with --holdout also markdown (the table) or csv (each case)")
        ->check(CLI::IsMember({"text", "json", "markdown", "csv"}))
        ->capture_default_str();
    sub->footer(
        "Examples:\n"
        "  kvcat predict --model qwen3.5-27b --accelerator nvidia-rtx-4090 --engine llama.cpp \\\n"
        "                --weight-quant Q4_K_M --kv-dtype q4_0 --context 64k\n"
        "  kvcat predict --holdout curve --format json\n"
        "The interval holds 80% of what the catalog's held-out points measured for estimates of the same basis;\n"
        "docs/prediction.md has the table (tools/docs-prediction writes it).");
    set_command_body(*sub, exit_code, [o] { return run_predict(*o); });
}

}  // namespace kvcat::cmd
