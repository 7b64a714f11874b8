// kvcat import-bench: one record, with its points, from a benchmark's own output.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check/lint.h"
#include "check/record_ref.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/skeleton_output.h"
#include "import/bench_import.h"
#include "import/skeleton.h"
#include "support/suggest.h"

namespace kvcat::cmd {

namespace {

struct ImportBenchOptions {
    std::vector<std::string> files;
    std::string model;
    std::string accelerator;
    std::string engine;
    std::string engine_version;
    std::string kv_dtype;
    std::string weight_quant;
    std::string provenance;
    std::string context;
    std::int64_t concurrency = 0;
    std::vector<std::string> select;
    std::string id;
    Common common;
    std::string out;
    bool force = false;
};

/// What the file says, as the first draft of the methodology.
std::string draft_methodology(const BenchRun& run, const std::vector<std::string>& files) {
    // The files by name alone: the path they were imported from is the importer's machine.
    std::string files_text;
    for (const auto& f : files) {
        files_text += (files_text.empty() ? "" : ", ") + std::filesystem::path(f).filename().string();
    }
    std::string t = fmt::format("Imported by kvcat import-bench from {} output ({}).\n", run.format, files_text);
    t += fmt::format("{} point{}: ", run.points.size(), run.points.size() == 1 ? "" : "s");
    if (!run.layout.empty()) {
        t += run.layout;
    } else if (run.format.starts_with("llama-bench")) {
        t += "each point is the pp test (prompt processing) and the tg test (generation) at one depth\n"
             "(n_depth), avg_ts as measured_*_tps_at_ctx and stddev_ts as *_stddev.\n";
    } else if (run.format.starts_with("vLLM")) {
        t += "one per result file, at its max_concurrency; measured_tps_at_ctx is\n"
             "1000 / median_tpot_ms, measured_total_tps_at_ctx is output_throughput.\n";
    } else {
        t += "one per CSV row, as written.\n";
    }
    if (!run.derivations.empty()) {
        t += "How the figures the file does not state were taken:\n";
        for (const auto& d : run.derivations) t += "  - " + d + "\n";
    }
    if (!run.facts.empty()) {
        t += "What the file records of the run:\n";
        for (const auto& f : run.facts) t += "  - " + f + "\n";
    }
    return t;
}

/// A card's name reduced to what tells cards apart: "NVIDIA GeForce RTX 3090" and "GeForce RTX
/// 3090" are both "rtx3090", "Apple M4 Max" is "m4max"; a record's name is read up to a comma or
/// a parenthesis ("M4 Max, 16-core CPU / 40-core GPU (128 GB configuration)").
std::string card_key(std::string name, bool record) {
    if (record) name = name.substr(0, name.find_first_of(",("));
    std::string out = letters_and_digits(name);
    for (const char* vendor : {"nvidia", "geforce", "amd", "radeon", "apple"}) {
        for (auto at = out.find(vendor); at != std::string::npos; at = out.find(vendor))
            out.erase(at, std::strlen(vendor));
    }
    return out;
}

/// What the benchmark file says of its model and card against the records it is filed under:
/// llama-bench's model_n_params against the model record's parameters (more than 10% apart is
/// another model), and its gpu_info against the accelerator record's name. An empty string when
/// they agree or the file does not say.
std::string contradicts_the_file(const BenchRun& run, const LintResult& catalog, const ImportBenchOptions& o) {
    if (run.model_params) {
        RecordRef m = resolve_record(catalog.records, o.model, RecordKind::model);
        if (m.record && m.record->model && m.record->model->total_params_b_exact) {
            Rational stated = *m.record->model->total_params_b_exact * Rational(1000000000);
            Rational file(*run.model_params);
            Rational gap = stated > file ? stated - file : file - stated;
            if (gap * Rational(10) > stated) {
                return fmt::format(
                    "the file's model has {} parameters (model_n_params), but {} has {} billion: the measurement is of "
                    "another model; give the --model it was taken on",
                    group_thousands(*run.model_params), m.record->id,
                    m.record->model->total_params_b_exact->to_display());
            }
        }
    }
    if (run.gpu_info && !o.accelerator.empty()) {
        RecordRef a = resolve_record(catalog.records, o.accelerator, RecordKind::accelerator);
        if (a.record && a.record->accelerator) {
            std::string want = card_key(a.record->accelerator->name, true);
            if (!want.empty() && card_key(*run.gpu_info, false).find(want) == std::string::npos) {
                return fmt::format(
                    "the file ran on '{}' (gpu_info), but --accelerator is {} ({}): give the card it "
                    "ran on",
                    *run.gpu_info, a.record->id, a.record->accelerator->name);
            }
        }
    }
    return "";
}

int run_import_bench(const ImportBenchOptions& o) {
    BenchOptions bench_options;
    if (!o.context.empty()) {
        auto c = o.context == "0" ? std::optional<std::int64_t>(0) : parse_context(o.context);
        if (!c) {
            spdlog::error("--context '{}' is not a number of tokens; write e.g. 8192 or 8k", o.context);
            return ExitCode::failure;
        }
        bench_options.context = c;
    }
    if (o.concurrency > 0) bench_options.concurrency = o.concurrency;
    for (const auto& s : o.select) {
        auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0) {
            spdlog::error("--select '{}': write KEY=VALUE, a llama-bench field and its value (type_k=q8_0)", s);
            return ExitCode::failure;
        }
        bench_options.select.push_back({s.substr(0, eq), s.substr(eq + 1)});
    }
    BenchRun run = read_bench_files(o.files, bench_options);

    SkeletonOptions options;
    options.model = o.model;
    options.points = run.points;
    // What the command line says wins over what the file says; what neither says is an error.
    options.engine = !o.engine.empty() ? o.engine : run.engine.value_or("");
    if (options.engine.empty()) {
        spdlog::error("{} output does not name its engine: give --engine (llama.cpp, vLLM, ...)", run.format);
        return ExitCode::failure;
    }
    options.kv_dtype = !o.kv_dtype.empty() ? o.kv_dtype : run.kv_dtype.value_or("");
    options.v_dtype = run.v_dtype;
    if (options.kv_dtype.empty()) {
        spdlog::error(
            "{} output does not name its KV cache dtype: give --kv-dtype (the engine's default when the "
            "run set none, e.g. bf16 for a bf16 model on vLLM)",
            run.format);
        return ExitCode::failure;
    }
    if (!o.kv_dtype.empty() && run.kv_dtype && *run.kv_dtype != o.kv_dtype) {
        spdlog::error("--kv-dtype {} disagrees with the file's cache type {}", o.kv_dtype, *run.kv_dtype);
        return ExitCode::failure;
    }
    if (!o.engine_version.empty()) {
        options.engine_version = o.engine_version;
    } else {
        options.engine_version = run.engine_version;
    }
    if (!o.weight_quant.empty()) {
        options.weight_quant = o.weight_quant;
    } else {
        options.weight_quant = run.weight_quant;
    }
    options.weight_bytes = run.weight_bytes;
    // A value taken from the file is the file's mistake, named as such: the skeleton's own
    // checks speak of the options a user types.
    for (auto [what, taken, typed] :
         {std::tuple{"engine", std::optional<std::string>(options.engine), !o.engine.empty()},
          std::tuple{"engine version (build_commit, build_number)", options.engine_version, !o.engine_version.empty()},
          std::tuple{"weight format (model_type)", options.weight_quant, !o.weight_quant.empty()}}) {
        if (typed || !taken) continue;
        if (taken->find_first_of("\r\n") != std::string::npos || taken->find_first_not_of(" \t") == std::string::npos) {
            spdlog::error("{}: the {} the file gives is not one line of text", o.files.front(), what);
            return ExitCode::failure;
        }
    }
    // The card count, as the file shows it (measured-without-card-count). llama-bench's gpu_info
    // lists every GPU it saw (joined by ", " in tools/llama-bench/llama-bench.cpp, by "/" in older
    // builds): one device is one card; with several, -sm and -dev decide which ran, and the
    // file's gpu_info alone does not say.
    if (run.gpu_info) {
        const auto& info = *run.gpu_info;
        auto devices = std::count(info.begin(), info.end(), ',') + std::count(info.begin(), info.end(), '/') + 1;
        if (devices == 1) {
            options.gpus = 1;
        } else {
            options.unstated_gpus = fmt::format(
                "the file's gpu_info lists {} devices ('{}'), not which of them the run split over", devices, info);
        }
        if (o.accelerator.empty()) options.accelerator_named = info.substr(0, info.find_first_of(",/"));
    } else {
        options.unstated_gpus = "the benchmark file does not say how many cards ran";
    }
    if (!o.accelerator.empty()) {
        options.accelerator = o.accelerator;
    } else {
        // The record says why it names no card (measured-without-card): what the file says of it.
        options.unstated_accelerator =
            run.gpu_info ? fmt::format(
                               "the file names the card as '{}', and no accelerator record was given for it "
                               "(import-bench --accelerator)",
                               *run.gpu_info)
                         : std::string(
                               "the benchmark file names no card, and none was given (import-bench "
                               "--accelerator)");
    }
    if (!o.provenance.empty()) options.provenance = o.provenance;
    if (!o.id.empty()) options.id = o.id;
    options.methodology = draft_methodology(run, o.files);
    options.written_by = "kvcat import-bench";

    auto catalog = load_records_for_skeleton(o.common.records);
    if (!catalog) return ExitCode::failure;
    if (std::string contradiction = contradicts_the_file(run, *catalog, o); !contradiction.empty()) {
        spdlog::error("{}: {}", o.files.front(), contradiction);
        return ExitCode::failure;
    }
    return emit_skeleton(*catalog, std::move(options), o.out, o.force);
}

}  // namespace

void setup_import_bench(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<ImportBenchOptions>();
    CLI::App* sub = app.add_subcommand("import-bench", "Write a kv-efficiency record from a benchmark's own output");
    sub->add_option("files", o->files,
                    "llama-bench -o json or -o jsonl output, llama-batched-bench JSONL, vllm bench serve "
                    "--save-result JSON (one file a point), an AIPerf or genai-perf profile export, a GuideLLM "
                    "benchmarks.json, SGLang bench_serving JSONL, or a CSV with context_length,tps,prefill_tps,ttft_ms")
        ->required()
        ->check(CLI::ExistingFile);
    sub->add_option("--model", o->model, "The model record, models/NAME")->required();
    sub->add_option("--accelerator", o->accelerator, "The accelerator record, accelerators/NAME (default: null)");
    sub->add_option("--engine", o->engine, "The engine, when the file does not say (CSV) or to name a fork");
    sub->add_option("--engine-version", o->engine_version, "The engine's version or build (default: the file's)");
    sub->add_option("--kv-dtype", o->kv_dtype, "The KV cache dtype, when the file does not say (vLLM, CSV)");
    sub->add_option("--weight-quant", o->weight_quant, "The weights' format (default: llama-bench's model_type)");
    sub->add_option("--provenance", o->provenance, "measured, third-party-measured, derived or joined")
        ->check(CLI::IsMember({"measured", "third-party-measured", "derived", "joined"}));
    sub->add_option("--context", o->context,
                    "The context of a serving benchmark's points (default: an input length the file holds, else "
                    "the mean input length)");
    sub->add_option("--concurrency", o->concurrency,
                    "Requests in flight, for a run paced by a request rate (default: a vLLM result's "
                    "max_concurrency; GuideLLM's and SGLang's measured mean)")
        ->check(CLI::PositiveNumber);
    sub->add_option("--select", o->select,
                    "KEY=VALUE: import only the llama-bench entries whose field KEY is VALUE (model_filename, "
                    "type_k, n_prompt, ...); repeat it to narrow further")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    sub->add_option("--id", o->id, "The record id (default: engine-model-accelerator-weights-dtype-context)");
    add_records_option(*sub, o->common, RecordsUse::read);
    sub->add_option("--out", o->out,
                    "Write the record to this file instead of stdout; a folder (or a path ending in /) takes the file "
                    "named by its id");
    sub->add_flag("--force", o->force, "Replace an existing --out file");
    sub->footer(
        "Examples:\n"
        "  llama-bench -m qwen.gguf -d 0,16384,32768,65536 -o json > run.json\n"
        "  kvcat import-bench run.json --model models/qwen3.5-27b --accelerator accelerators/nvidia-rtx-3090 \\\n"
        "      --out records/kv-efficiency/llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k_m-f16-64k.yaml\n"
        "  kvcat import-bench 8k.json 32k.json --model models/llama-3.1-8b --kv-dtype bf16\n"
        "  kvcat import-bench mixed.jsonl --model models/qwen3.5-27b --select type_k=q8_0 --select n_prompt=512\n"
        "The byte figures come from the model record; the methodology is drafted from what the file\n"
        "says; notes and sources are left for you, and kvcat lint reports them until you write them.\n"
        "Exit status: 0 written, 2 a file that cannot be read as one run, or a usage error.");
    set_command_body(*sub, exit_code, [o] { return run_import_bench(*o); });
}

}  // namespace kvcat::cmd
