#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/skeleton_output.h"
#include "import/skeleton.h"

namespace kvcat::cmd {

namespace {

namespace fs = std::filesystem;

struct NewKvOptions {
    std::string model;
    std::string engine;
    std::string kv_dtype;
    std::string context;
    std::string accelerator;
    std::string weight_quant;
    std::string id;
    Common common;
    std::string out;
    bool force = false;
};

/// "0,16k,32k" -> {0, 16384, 32768}; nullopt (after an error message) when a part is not a context.
std::optional<std::vector<std::int64_t>> parse_new_contexts(const std::string& text) {
    std::vector<std::int64_t> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto comma = text.find(',', start);
        if (comma == std::string::npos) comma = text.size();
        std::string part = text.substr(start, comma - start);
        auto v = part == "0" ? std::optional<std::int64_t>(0) : parse_context(part);
        if (!v) {
            spdlog::error(
                "--context '{}' is not a number of tokens; write e.g. 65536, 64k or 1M, or a comma list "
                "such as 0,16k,32k",
                part);
            return std::nullopt;
        }
        if (std::find(out.begin(), out.end(), *v) != out.end()) {
            spdlog::error("--context names {} twice", part);
            return std::nullopt;
        }
        out.push_back(*v);
        start = comma + 1;
    }
    return out;
}

int run_new_kv(const NewKvOptions& o) {
    auto contexts = parse_new_contexts(o.context);
    if (!contexts) return ExitCode::failure;
    auto catalog = load_records_for_skeleton(o.common.records);
    if (!catalog) return ExitCode::failure;

    SkeletonOptions options;
    options.model = o.model;
    options.engine = o.engine;
    options.kv_dtype = o.kv_dtype;
    if (contexts->size() == 1 && contexts->front() > 0) {
        options.context = contexts->front();
    } else {
        // A curve: one measurements item per context, in the order given, speeds left null.
        for (auto c : *contexts) {
            MeasurementPoint p;
            p.context_length = c;
            options.points.push_back(p);
        }
    }
    if (!o.accelerator.empty()) options.accelerator = o.accelerator;
    if (!o.weight_quant.empty()) options.weight_quant = o.weight_quant;
    if (!o.id.empty()) options.id = o.id;

    return emit_skeleton(*catalog, std::move(options), o.out, o.force);
}

}  // namespace

void setup_new(CLI::App& app, int& exit_code) {
    CLI::App* sub = app.add_subcommand("new", "Write a record skeleton for a person to finish");
    sub->require_subcommand(1);
    sub->footer(
        "Kinds:\n"
        "  kv-efficiency   the byte figures of one model, cache dtype and context (kvcat new kv-efficiency --help)\n"
        "Example:\n"
        "  kvcat new kv-efficiency --model models/llama-3.1-8b --engine llama.cpp --kv-dtype q8_0 --context 64k");

    auto o = std::make_shared<NewKvOptions>();
    CLI::App* kv = sub->add_subcommand("kv-efficiency", "A kv-efficiency record with its byte figures computed");
    kv->add_option("--model", o->model, "The model record, models/NAME")->required();
    kv->add_option("--engine", o->engine, "The inference engine: llama.cpp, vLLM, ...")->required();
    kv->add_option("--kv-dtype", o->kv_dtype, "The KV cache element type: bf16, fp8, q8_0, ...")
        ->transform(lower_case())
        ->required();
    kv->add_option("--context", o->context,
                   "Context length, tokens; k and M are powers of two (64k, 1M); a comma list (0,16k,32k) writes "
                   "one record with a point per context")
        ->required();
    kv->add_option("--accelerator", o->accelerator, "The accelerator record, accelerators/NAME (default: null)");
    kv->add_option("--weight-quant", o->weight_quant, "The weights' quantisation: Q4_K, fp8, ... (default: null)");
    kv->add_option("--id", o->id,
                   "The record id, kv-efficiency/NAME (default: engine-model-accelerator-weights-dtype-context)");
    add_records_option(*kv, o->common, RecordsUse::read);
    kv->add_option("--out", o->out,
                   "Write the skeleton to this file instead of stdout; a folder (or a path ending in /) takes the file "
                   "named by its id");
    kv->add_flag("--force", o->force, "Replace an existing --out file");
    kv->footer(
        "Examples:\n"
        "  kvcat new kv-efficiency --model models/llama-3.1-8b --engine llama.cpp --kv-dtype q8_0 --context 64k\n"
        "  kvcat new kv-efficiency --model models/llama-3.1-8b --engine vLLM --kv-dtype bf16 --context 128k \\\n"
        "      --accelerator accelerators/nvidia-h100-sxm --weight-quant bf16 \\\n"
        "      --out records/kv-efficiency/vllm-llama-3.1-8b-nvidia-h100-sxm-bf16-bf16-128k.yaml\n"
        "  kvcat new kv-efficiency --model models/qwen3.5-27b --engine llama.cpp --kv-dtype f16 \\\n"
        "      --accelerator accelerators/nvidia-rtx-3090 --weight-quant Q4_K --context 0,16k,32k,64k\n"
        "The bytes per token, their basis and statement are computed from the model record. methodology,\n"
        "notes and sources are left for you: kvcat lint reports them missing until you write them.\n"
        "Exit status: 0 written, 2 usage error, unknown model, dtype or accelerator.");
    set_command_body(*kv, exit_code, [o] { return run_new_kv(*o); });
}

}  // namespace kvcat::cmd
