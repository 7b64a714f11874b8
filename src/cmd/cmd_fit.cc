#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cmd/commands.h"
#include "dtype.h"
#include "lint.h"
#include "physics.h"
#include "record_ref.h"
#include "schema.h"
#include "weight_quant.h"

namespace kvcat::cmd {

namespace {

struct FitOptions {
    std::string model;
    std::string accelerator;
    std::string weight_quant;
    std::string kv_dtype;
    std::int64_t batch = 1;
    std::string reserve_gib = "1";
    std::string records = "records";
    std::string format = "text";
};

template <typename T>
std::string names_of(std::span<const T> table) {
    std::string out;
    for (const auto& t : table) {
        if (!out.empty()) out += ", ";
        out += t.name;
    }
    return out;
}

int run_fit(const FitOptions& o) {
    auto quant = find_weight_quant(o.weight_quant);
    if (!quant) {
        spdlog::error("unknown weight format '{}'; exact ones are: {}", o.weight_quant, names_of(weight_quants()));
        return ExitCode::failure;
    }
    auto dtype = find_cache_dtype(o.kv_dtype);
    if (!dtype) {
        spdlog::error("unknown KV cache dtype '{}'; valid: {}", o.kv_dtype, names_of(cache_dtypes()));
        return ExitCode::failure;
    }
    auto reserve_gib = Rational::parse(o.reserve_gib);
    if (!reserve_gib || reserve_gib->is_negative()) {
        spdlog::error("--reserve-gib must be a number of GiB, such as 1 or 0.5");
        return ExitCode::failure;
    }
    LintResult lint;
    try {
        lint = lint_paths({o.records});
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    RecordRef model_ref = resolve_record(lint.records, o.model, RecordKind::model);
    RecordRef accelerator_ref = resolve_record(lint.records, o.accelerator, RecordKind::accelerator);
    const Record* model = model_ref.record;
    const Record* accelerator = accelerator_ref.record;
    if (!model || !model->model) {
        spdlog::error("{} under {}", model_ref.record ? model_ref.record->id + " is not a readable model record" : model_ref.error,
                      o.records);
        return ExitCode::failure;
    }
    if (!accelerator || !accelerator->accelerator) {
        spdlog::error("{} under {}",
                      accelerator_ref.record ? accelerator_ref.record->id + " is not a readable accelerator record"
                                             : accelerator_ref.error,
                      o.records);
        return ExitCode::failure;
    }
    for (const auto& d : lint.diagnostics) {
        if (d.severity == Severity::error && (d.pos.file == model->file || d.pos.file == accelerator->file)) {
            spdlog::warn("{}", format_text(d));
        }
    }
    try {
        Rational reserve = *reserve_gib * Rational(1LL << 30);
        FitTerms terms = fit_context(*model->model, *accelerator->accelerator, *quant, *dtype, o.batch, reserve);
        if (o.format == "json") {
            std::cout << fit_json(terms, model->id, accelerator->id, *quant, *dtype).dump(2) << '\n';
        } else {
            std::cout << fit_text(terms, model->id, accelerator->id, *quant, *dtype);
        }
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    return ExitCode::ok;
}

}  // namespace

void setup_fit(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<FitOptions>();
    CLI::App* sub = app.add_subcommand("fit", "The largest context that fits on an accelerator, every term shown");
    sub->add_option("--model", o->model, "A model record id")->required();
    sub->add_option("--accelerator", o->accelerator, "An accelerator record id")->required();
    sub->add_option("--weight-quant", o->weight_quant, "The weights' format: Q4_K, Q8_0, bf16, fp8, ...")->required();
    sub->add_option("--kv-dtype", o->kv_dtype, "The KV cache dtype: bf16, fp8, q8_0, ...")->required();
    sub->add_option("--batch", o->batch, "Sequences held at once")->check(CLI::PositiveNumber)->capture_default_str();
    sub->add_option("--reserve-gib", o->reserve_gib, "Memory held back for the runtime, GiB")->capture_default_str();
    sub->add_option("--records", o->records, "Where the records are")->capture_default_str();
    sub->add_option("--format", o->format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    sub->footer(
        "Examples:\n"
        "  kvcat fit --model models/qwen3.5-27b --accelerator accelerators/nvidia-rtx-3090 \\\n"
        "            --weight-quant Q4_K --kv-dtype bf16\n"
        "  kvcat fit --model qwen3.5-27b --accelerator nvidia-rtx-4090 --weight-quant Q4_K --kv-dtype q8_0 --batch 4\n"
        "A record id may leave out its folder, or be cut to a start only one record has.\n"
        "With --format json the answer is max_context and the other keys are the terms.");
    sub->callback([o, &exit_code] { exit_code = run_fit(*o); });
}

}  // namespace kvcat::cmd
