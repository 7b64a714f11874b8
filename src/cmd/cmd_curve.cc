#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check/lint.h"
#include "check/record_ref.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/engine_options.h"
#include "cmd/table_output.h"
#include "engines/engine_memory.h"
#include "engines/engine_rules.h"
#include "engines/llamacpp/llamacpp_quant.h"
#include "model/curve.h"
#include "model/physics.h"
#include "output/render.h"
#include "output/terminal.h"
#include "predict/speed_answer.h"
#include "support/suggest.h"
#include "vocab/dtype_spelling.h"
#include "vocab/weight_mix.h"

namespace kvcat::cmd {

namespace {

struct CurveOptions {
    std::string model;
    std::string kv_dtypes = "bf16";
    std::string accelerators;  ///< empty: every accelerator record
    std::string contexts;
    std::string weight_quant;
    bool imatrix = false;
    EngineOptions engine;
    std::int64_t gpus = 1;
    Common common;
};

/// With --gpus N, whether each card's share fits one card's memory, as `kvcat fit` splits a
/// model over N cards (tensor parallel; no runtime reserve, as curve holds none).
void fit_on_gpus(const CurveRequest& request, std::int64_t gpus, std::vector<CurvePoint>& points) {
    for (auto& p : points) {
        const CacheDtype* dtype = nullptr;
        for (const auto& d : request.dtypes) {
            if (d.name == p.dtype) dtype = &d;
        }
        if (!dtype) continue;
        for (std::size_t i = 0; i < request.accelerators.size() && i < p.fits.size(); ++i) {
            const Accelerator* a = request.accelerators[i].accelerator;
            if (!a || !a->memory_gb_exact) continue;
            FitSetup setup;
            setup.gpus = gpus;
            setup.reserve = Rational(0);
            if (!request.weight_quant) setup.weight_bytes = Rational(0);
            if (request.weight_bytes) setup.weight_bytes = *request.weight_bytes;
            FitTerms terms =
                fit_context(*request.model, *a, request.weight_quant ? &*request.weight_quant : nullptr, *dtype, setup);
            p.fits[i] = !(fit_bytes_at(terms, p.context) > terms.memory);
        }
    }
}

std::string not_found(const std::string& what, const std::string& id, const RecordSet& records, RecordKind kind) {
    auto ids = records.ids_of(kind);
    std::string near = closest_match(id, ids);
    return fmt::format("no {} record '{}'{}", what, id, near.empty() ? "" : fmt::format("; did you mean '{}'?", near));
}

/// Fills `request` from the options; an empty string when it could, else what is wrong.
std::string make_request(const CurveOptions& o, const RecordSet& records, CurveRequest& request) {
    RecordRef model_ref = resolve_record(records, o.model, RecordKind::model);
    const Record* model = model_ref.record;
    if (!model || !model->model)
        return model ? not_found("model", o.model, records, RecordKind::model) : model_ref.error;
    request.model_id = model->id;
    request.model = &*model->model;
    for (const auto& name : split_commas(o.kv_dtypes)) {
        auto dtype = find_cache_dtype(name);
        if (!dtype) return unknown_cache_dtype_message(name);
        request.dtypes.push_back(*dtype);
    }
    if (request.dtypes.empty()) return "--kv-dtype names no dtype";
    if (o.accelerators.empty()) {
        for (const auto& r : records.records()) {
            if (r.accelerator) request.accelerators.push_back({r.id, &*r.accelerator});
        }
    } else {
        for (const auto& id : split_commas(o.accelerators)) {
            RecordRef a_ref = resolve_record(records, id, RecordKind::accelerator);
            const Record* a = a_ref.record;
            if (!a || !a->accelerator)
                return a ? not_found("accelerator", id, records, RecordKind::accelerator) : a_ref.error;
            request.accelerators.push_back({a->id, &*a->accelerator});
        }
    }
    if (!o.weight_quant.empty()) {
        auto named = find_weights(o.weight_quant);
        if (!named)
            return fmt::format(
                "unknown weight format '{}'; give an exact one (Q4_K, Q8_0, bf16, ...) or a llama.cpp mix (Q4_K_M, "
                "...)",
                o.weight_quant);
        request.weight_quant = named->quant;
        std::optional<QuantPlan> plan;
        try {
            plan = named_quant_plan(*request.model, o.weight_quant, o.engine.engine, o.imatrix);
        } catch (const std::exception& e) {
            return e.what();
        }
        if (plan) {
            request.weight_bytes = Rational(plan->bytes);
            spdlog::info("weight_bytes: {}", quant_plan_how(*plan));
        } else if (const auto& mix = named->mix) {
            spdlog::info(
                "{} is llama.cpp's mix of {} with {} (src/llama-quant.cpp): weight_bytes takes {} throughout, a lower "
                "bound; kvcat fit --weight-file FILE.gguf or --weight-bytes N takes the real size",
                mix->name, mix->base, mix->raised, mix->base);
        }
    }
    try {
        request.contexts = parse_contexts(o.contexts);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

/// Adds engine_kv_bytes and engine_state_bytes to each point: what the engine allocates for the
/// point's context (llama.cpp: -c of it; vLLM: one request of max_model_len it; SGLang: a pool of
/// it), at the point's dtype.
void add_engine_columns(Table& table, const CurveRequest& request, const std::vector<CurvePoint>& points, Engine engine,
                        EngineSettings settings) {
    table.columns.emplace_back("engine_kv_bytes");
    table.columns.emplace_back("engine_state_bytes");
    settings.available_bytes.reset();
    for (std::size_t i = 0; i < points.size(); ++i) {
        const CurvePoint& p = points[i];
        settings.context = p.context;
        settings.max_model_len = p.context;
        EngineAnswer a = engine_allocation(*request.model, *find_cache_dtype(p.dtype), engine, settings);
        table.rows[i].emplace_back(a.kv_bytes.ceil());
        table.rows[i].emplace_back(a.state_bytes.ceil());
    }
}

/// What the fits columns leave out and which contexts the model was not trained for: said on
/// stderr under the table, so that "yes" at 128k is not read as "runs at 128k".
void curve_notes(const CurveRequest& request) {
    if (!request.accelerators.empty() && !request.weight_quant) {
        spdlog::info(
            "the fits_ columns count the KV cache and the fixed state only, not the weights: give --weight-quant "
            "to count them too, or kvcat fit for every term");
    }
    if (request.model->native_context) {
        for (std::int64_t c : request.contexts) {
            if (c > *request.model->native_context) {
                spdlog::warn(
                    "{} tokens is above {}'s native context of {}: the model was not trained for it, and "
                    "engines refuse it unless the context is extended (rope scaling)",
                    group_thousands(c), request.model_id, group_thousands(*request.model->native_context));
            }
        }
    }
}

/// With --engine and named cards: each card's decode ceiling and kvcat predict's decode speed of
/// one request at each point, with its 80% interval and its basis.
void add_speed_columns(Table& table, const CurveRequest& request, const std::vector<CurvePoint>& points,
                       const CurveOptions& o, const RecordSet& records) {
    CatalogSpeeds speeds(records);
    std::string engine = speeds.engine_named(o.engine.engine);
    for (const auto& a : request.accelerators) {
        std::string card = short_id(a.id);  // as the fits_ columns name it
        for (const char* name :
             {"ceiling_tps_", "predicted_tps_", "predicted_low_", "predicted_high_", "predicted_basis_"})
            table.columns.push_back(name + card);
    }
    auto two = [](double v) { return std::round(v * 100) / 100; };
    for (std::size_t i = 0; i < points.size(); ++i) {
        for (const auto& a : request.accelerators) {
            SpeedSetup s;
            s.model = request.model_id;
            s.accelerator = a.id;
            s.card = a.accelerator ? a.accelerator->name : a.id;
            s.gpus = o.gpus;
            s.engine = engine;
            s.weights = o.weight_quant;
            s.kv = catalog_dtype(engine, points[i].dtype);
            SpeedAnswer answer = speeds.answer(s, points[i].context);
            const SpeedPart* d = engine.empty() ? nullptr : answer.part(SpeedMeasure::decode);
            auto& row = table.rows[i];
            row.emplace_back(answer.ceiling_tps ? Cell(two(*answer.ceiling_tps)) : Cell());
            row.emplace_back(d ? Cell(two(d->estimate.value)) : Cell());
            row.emplace_back(d ? Cell(two(d->low())) : Cell());
            row.emplace_back(d ? Cell(two(d->high())) : Cell());
            row.emplace_back(d ? Cell(std::string(basis_name(d->estimate.basis))) : Cell());
        }
    }
}

int run_curve(const CurveOptions& o) {
    auto format = parse_table_format(o.common.format);
    LintOptions options;
    // The measured rows only when a predicted speed is asked for (--engine and named cards).
    options.keep_rows = !o.engine.engine.empty() && !o.accelerators.empty();
    // Judged: the model, whose findings are shown beside the curve.
    options.judge_only = [&o](const RecordSet& refs) { return files_named(refs, {{o.model, RecordKind::model}}); };
    LintResult lint = lint_paths({o.common.records}, options);
    CurveRequest request;
    if (std::string problem = make_request(o, lint.records, request); !problem.empty()) {
        spdlog::error("{}", problem);
        return ExitCode::failure;
    }
    // The id as resolved: what the user typed may be a short id that find() does not know.
    const Record* model = lint.records.find(request.model_id);
    for (const auto& d : lint.diagnostics) {
        if (model && d.severity == Severity::error && d.pos.file == model->file) spdlog::warn("{}", format_text(d));
    }
    std::string engine_error;
    auto engine = engine_settings(o.engine, &engine_error);
    if (!engine_error.empty()) {
        spdlog::error("{}", engine_error);
        return ExitCode::failure;
    }
    try {
        auto points = kv_curve(request);
        if (o.gpus > 1) fit_on_gpus(request, o.gpus, points);
        Table table = curve_table(request, points);
        if (engine) add_engine_columns(table, request, points, engine->first, engine->second);
        if (options.keep_rows) add_speed_columns(table, request, points, o, lint.records);
        if (o.gpus > 1) {
            // The column says it is one card's share against one card: fits_4x_nvidia-h100-sxm.
            for (auto& c : table.columns) {
                if (c.starts_with("fits_")) c = fmt::format("fits_{}x_{}", o.gpus, c.substr(5));
            }
        }
        RenderOptions shown = stdout_render_options("--format vertical", !o.common.no_formula_guard);
        shown.unit_of = curve_column_unit;  // kv_bytes is no kv_rows column, but bytes all the same
        std::cout << render_table(table, *format, shown);
        curve_notes(request);
    } catch (const std::exception& e) {
        spdlog::error("{}: {}", o.model, e.what());
        return ExitCode::failure;
    }
    return ExitCode::ok;
}

}  // namespace

void setup_curve(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<CurveOptions>();
    CLI::App* sub = app.add_subcommand("curve", "A model's KV cache bytes at each context, and what fits where");
    sub->add_option("--model", o->model, "A model record id")->required();
    sub->add_option("--kv-dtype", o->kv_dtypes, "Cache dtypes, comma-separated")
        ->transform(lower_case())
        ->capture_default_str();
    sub->add_option("--accelerator", o->accelerators, "Accelerator ids, comma-separated (default: every one)");
    sub->add_option("--contexts", o->contexts, "Contexts, comma-separated: 8k,128k,1M")->required();
    sub->add_option("--weight-quant", o->weight_quant,
                    "Count the weights in this format against memory too (a llama.cpp mix to the byte when the "
                    "model record lists its tensors)");
    sub->add_flag("--imatrix", o->imatrix,
                  "The mix was quantised with an importance matrix (llama-quantize --imatrix)");
    add_engine_options(*sub, o->engine);
    sub->add_option("--gpus", o->gpus, "Spread the model over this many of each card (tensor parallel, as kvcat fit)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    add_records_option(*sub, o->common, RecordsUse::read);
    add_format_option(*sub, o->common, FormatFamily::table);
    sub->footer(
        "kv_bytes is one sequence's cache: growing layers at every token, sliding layers up to\n"
        "their window. fits_<accelerator> is yes when kv_bytes + fixed_state_bytes (+ "
        "weight_bytes\n"
        "with --weight-quant) is at most the card's memory; no runtime reserve is held back.\n"
        "With --engine, engine_kv_bytes and engine_state_bytes are what that engine allocates at each\n"
        "context: llama.cpp's caches for -c of it, vLLM's one request of max_model_len it, SGLang's pool.\n"
        "With --gpus N the column is fits_Nx_<accelerator>: each card's share (as kvcat fit splits heads, state and "
        "weights)\n"
        "against one card's memory; kv_bytes stays the whole sequence's.\n"
        "With --engine and --accelerator, each card's decode ceiling (ceiling_tps_<card>: a bound) and\n"
        "kvcat predict's decode speed of one request (predicted_tps_<card>, its 80% interval\n"
        "predicted_low_/predicted_high_<card> and predicted_basis_<card>); docs/prediction.md says how.\n"
        "Examples:\n"
        "  kvcat curve --model models/llama-4-scout-17b-16e-instruct --contexts 8k,128k --engine vllm "
        "--hybrid-manager off\n"
        "  kvcat curve --model models/llama-3.1-8b --kv-dtype bf16 --contexts 8k,128k\n"
        "  kvcat curve --model llama-3.1-70b --accelerator nvidia-rtx-4090 --gpus 4 --weight-quant Q4_K --contexts "
        "32k,128k\n"
        "  kvcat curve --model models/gemma-3-27b --kv-dtype bf16,q8_0 --contexts 1k,32k,128k "
        "--format csv");
    set_command_body(*sub, exit_code, [o] { return run_curve(*o); });
}

}  // namespace kvcat::cmd
