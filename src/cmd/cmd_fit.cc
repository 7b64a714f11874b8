#include <iostream>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/engine_options.h"
#include "dtype.h"
#include "engine_render.h"
#include "gguf.h"
#include "lint.h"
#include "physics.h"
#include "record_ref.h"
#include "schema.h"
#include "skeleton.h"
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
    std::int64_t gpus = 1;
    std::optional<std::int64_t> weight_bytes;
    std::string weight_file;
    std::string contexts;
    EngineOptions engine;
    Common common;
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

std::int64_t ceil_bytes(const Rational& r) {
    return r.is_integer() ? r.num() : r.floor() + 1;
}

/// "8k,32k,128k" as tokens; nullopt (and a logged error) on a bad entry.
std::optional<std::vector<std::int64_t>> parse_contexts(const std::string& text) {
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

/// The memory one card holds at each context, and whether it fits.
std::string contexts_text(const FitTerms& t, const std::vector<std::int64_t>& contexts) {
    std::string out = fmt::format("  at each context (one card{}):\n", t.batch > 1 ? ", the whole batch" : "");
    for (auto c : contexts) {
        Rational total = fit_bytes_at(t, c);
        bool fits = !(total > t.memory);
        out += fmt::format("  {:>10} tokens {:>22} bytes  ({})  {}\n", group_thousands(c),
                           group_thousands(ceil_bytes(total)), two_decimals(total / Rational(1LL << 30)) + " GiB",
                           fits ? "fits" : "does not fit");
    }
    return out;
}

/// The engine's answer for the fit's card: with --available-kv-gib that memory, with SGLang's
/// --mem-fraction-static the card's share less the weights, with llama.cpp's or SGLang's
/// --ctx-size that size, otherwise what the fit leaves after the weights and the reserve.
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
    settings.gpus = o.gpus;
    bool sized = o.engine.ctx_size && engine != Engine::vllm;
    if (!settings.available_bytes && !sized) {
        if (!o.engine.mem_fraction_static.empty()) {
            auto f = Rational::parse(o.engine.mem_fraction_static);
            if (!f || !(*f > Rational(0)) || *f > Rational(1)) {
                spdlog::error("--mem-fraction-static must be a fraction between 0 and 1, such as 0.88");
                *failed = true;
                return std::nullopt;
            }
            settings.available_bytes = terms.memory * *f - terms.weights;
        } else {
            settings.available_bytes = terms.memory - terms.weights - terms.reserve;
        }
        if (!(*settings.available_bytes > Rational(0))) settings.available_bytes.reset();
    }
    if (sized) settings.available_bytes.reset();
    try {
        return engine_allocation(model, dtype, engine, settings);
    } catch (const std::exception& e) {
        spdlog::error("--engine {}: {}", o.engine.engine, e.what());
        *failed = true;
        return std::nullopt;
    }
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
    FitSetup setup;
    setup.batch = o.batch;
    setup.gpus = o.gpus;
    std::string weights_name;
    if (!o.weight_quant.empty()) {
        quant = find_weight_quant(o.weight_quant);
        if (!quant) {
            spdlog::error(
                "unknown weight format '{}'; exact ones are: {} (for a mixed recipe such as Q4_K_M give "
                "--weight-file FILE.gguf or --weight-bytes N)",
                o.weight_quant, names_of(weight_quants()));
            return ExitCode::failure;
        }
        weights_name = std::string(quant->name);
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
            setup.weight_bytes = Rational(static_cast<std::int64_t>(g.data_bytes));
            setup.weight_how = fmt::format(
                "the tensor data of {}: {} tensors, the file's {} bytes less its {}-byte "
                "header",
                o.weight_file, g.tensors, group_thousands(static_cast<std::int64_t>(g.file_size)),
                group_thousands(static_cast<std::int64_t>(g.data_offset)));
            weights_name = o.weight_file;
        } catch (const std::exception& e) {
            spdlog::error("{}: {}", o.weight_file, e.what());
            return ExitCode::failure;
        }
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
    setup.reserve = *reserve_gib * Rational(1LL << 30);
    std::vector<std::int64_t> contexts;
    if (!o.contexts.empty()) {
        auto parsed = parse_contexts(o.contexts);
        if (!parsed) return ExitCode::failure;
        contexts = *parsed;
    }
    LintResult lint = lint_paths({o.common.records});
    RecordRef model_ref = resolve_record(lint.records, o.model, RecordKind::model);
    RecordRef accelerator_ref = resolve_record(lint.records, o.accelerator, RecordKind::accelerator);
    const Record* model = model_ref.record;
    const Record* accelerator = accelerator_ref.record;
    if (!model || !model->model) {
        spdlog::error("{} under {}",
                      model_ref.record ? model_ref.record->id + " is not a readable model record" : model_ref.error,
                      o.common.records);
        return ExitCode::failure;
    }
    if (!accelerator || !accelerator->accelerator) {
        spdlog::error("{} under {}",
                      accelerator_ref.record ? accelerator_ref.record->id + " is not a readable accelerator record"
                                             : accelerator_ref.error,
                      o.common.records);
        return ExitCode::failure;
    }
    for (const auto& d : lint.diagnostics) {
        if (d.severity == Severity::error && (d.pos.file == model->file || d.pos.file == accelerator->file)) {
            spdlog::warn("{}", format_text(d));
        }
    }
    FitTerms terms = fit_context(*model->model, *accelerator->accelerator, quant ? &*quant : nullptr, *dtype, setup);
    bool engine_failed = false;
    std::optional<EngineAnswer> engine = fit_engine(o, *model->model, *dtype, terms, &engine_failed);
    if (engine_failed) return ExitCode::failure;
    if (o.common.format == "json") {
        nlohmann::json j = quant ? fit_json(terms, model->id, accelerator->id, *quant, *dtype)
                                 : fit_json(terms, model->id, accelerator->id, weights_name, *dtype);
        if (!terms.fits) j["refusal"] = fit_refusal(terms);
        if (!contexts.empty()) {
            j["at_contexts"] = nlohmann::json::array();
            for (auto c : contexts) {
                Rational total = fit_bytes_at(terms, c);
                j["at_contexts"].push_back(
                    {{"context", c}, {"bytes", ceil_bytes(total)}, {"fits", !(total > terms.memory)}});
            }
        }
        if (engine) {
            nlohmann::json e = engine_json(*engine, *model->model);
            j["engine_kv_bytes"] = e["engine_kv_bytes"];
            j["engine_state_bytes"] = e["engine_state_bytes"];
            j["engine_tokens"] = e["engine_tokens"];
            j["engine"] = e;
        }
        std::cout << j.dump(2) << '\n';
    } else {
        std::cout << fit_text(terms, model->id, accelerator->id, weights_name, *dtype);
        if (!contexts.empty()) std::cout << contexts_text(terms, contexts);
        if (engine) std::cout << engine_text(*engine, *model->model);
    }
    if (!terms.fits) {
        spdlog::error("{}", fit_refusal(terms));
        return ExitCode::findings;
    }
    return ExitCode::ok;
}

}  // namespace

void setup_fit(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<FitOptions>();
    CLI::App* sub = app.add_subcommand("fit", "The largest context that fits on an accelerator, every term shown");
    sub->add_option("--model", o->model, "A model record id")->required();
    sub->add_option("--accelerator", o->accelerator, "An accelerator record id")->required();
    sub->add_option("--weight-quant", o->weight_quant, "The weights' format: Q4_K, Q8_0, bf16, fp8, ...");
    sub->add_option("--weight-bytes", o->weight_bytes, "The weights' real size, bytes (all cards together)");
    sub->add_option("--weight-file", o->weight_file, "A GGUF file: its tensor data is the weights' size");
    sub->add_option("--gpus", o->gpus, "Cards the model is spread over (tensor parallel)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_option("--contexts", o->contexts, "Also show the memory at each of these contexts: 8k,32k,128k");
    sub->add_option("--kv-dtype", o->kv_dtype, "The KV cache dtype: bf16, fp8, q8_0, ...")->required();
    sub->add_option("--batch", o->batch, "Sequences held at once")->check(CLI::PositiveNumber)->capture_default_str();
    sub->add_option("--reserve-gib", o->reserve_gib, "Memory held back for the runtime, GiB")->capture_default_str();
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
        "            --engine vllm --engine-version 0.10.1.1 --max-model-len 131072\n"
        "  kvcat fit --model qwen3.6-27b --accelerator nvidia-rtx-4090 --weight-quant Q4_K --kv-dtype f16 \\\n"
        "            --engine llama.cpp --ctx-size 262144 --parallel 4 --kv-unified\n"
        "With --engine the engine's own allocation follows the textbook terms: its parts, the lines it prints\n"
        "at start-up and each place it differs; --format json adds engine_kv_bytes, engine_state_bytes and\n"
        "engine_tokens.\n"
        "A record id may leave out its folder, or be cut to a start only one record has.\n"
        "With --format json the answer is max_context (null when nothing fits) and the other keys are the terms.\n"
        "Exit status 1 when the weights, state and reserve alone do not fit on a card.");
    set_command_body(*sub, exit_code, [o] { return run_fit(*o); });
}

}  // namespace kvcat::cmd
