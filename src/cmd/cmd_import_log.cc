#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cmd/commands.h"
#include "cmd/write_file.h"
#include "import/log_import.h"

namespace kvcat::cmd {

namespace {

namespace fs = std::filesystem;

struct ImportLogOptions {
    std::string log;
    std::string model;
    std::string engine_version;
    std::string id;
    std::string url;
    std::string notes;
    std::string out;
    bool force = false;
};

int run_import_log(const ImportLogOptions& o) {
    std::ifstream in(o.log, std::ios::binary);
    std::error_code ec;
    if (!in || fs::is_directory(o.log, ec)) {
        spdlog::error("{}: cannot read the file", o.log);
        return ExitCode::failure;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    ParsedLog parsed;
    try {
        parsed = parse_engine_log(buffer.str(), o.log);
    } catch (const LogError& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    std::string model = o.model.starts_with("models/") ? o.model : "models/" + o.model;
    fs::path out_path(o.out);
    std::string id = o.id;
    if (id.empty()) {
        id = "allocations/" + (o.out.empty() ? fs::path(o.log).stem().string() : out_path.stem().string());
    }
    std::string text = allocation_record_text(parsed, id, model, o.engine_version, o.url, o.notes,
                                              fs::path(o.log).filename().string());
    if (o.out.empty()) {
        std::cout << text;
        std::cout.flush();
        return ExitCode::ok;
    }
    if (!write_whole_file(out_path, text, o.force)) return ExitCode::failure;
    spdlog::info("wrote {} ({}); check it with: kvcat lint {}", o.out, id, o.out);
    return ExitCode::ok;
}

}  // namespace

void setup_import_log(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<ImportLogOptions>();
    CLI::App* sub = app.add_subcommand("import-log", "Write an allocation record from an engine's start-up log");
    sub->add_option("log", o->log, "The log: a whole start-up log, or the lines pasted from an issue")->required();
    sub->add_option("--model", o->model, "The model record the engine ran, models/NAME")->required();
    sub->add_option("--engine-version", o->engine_version,
                    "The engine's build or release (default: what the log prints, else null)");
    sub->add_option("--id", o->id, "The record id, allocations/NAME (default: from --out, else the log's name)");
    sub->add_option("--url", o->url, "Where the log was copied from (else left for a person to fill)");
    sub->add_option("--notes", o->notes, "What the log leaves unsaid (else left for a person to fill)");
    sub->add_option("--out", o->out, "Write the record to this file instead of stdout");
    sub->add_flag("--force", o->force, "Replace an existing --out file");
    sub->footer(
        "Reads llama.cpp (llama_kv_cache, llama_kv_cache_unified, llama_kv_cache_iswa, llama_memory_recurrent,\n"
        "KV self size), vLLM (Available KV cache memory, GPU KV cache size, Maximum concurrency and its config\n"
        "line) and SGLang (KV Cache is allocated, max_total_num_tokens) lines. A line that carries an\n"
        "allocation figure but does not read as one is an error naming its file and line.\n"
        "Examples:\n"
        "  kvcat import-log server.log --model models/qwen3.6-27b\n"
        "  kvcat import-log vllm.log --model qwen2-7b-instruct --url https://github.com/o/r/issues/1 \\\n"
        "      --out records/allocations/vllm-qwen2-7b.yaml\n"
        "Without --url and --notes the record says where to write them, and lint fails until they are.\n"
        "Exit status: 0 written, 2 usage or input error.");
    set_command_body(*sub, exit_code, [o] { return run_import_log(*o); });
}

}  // namespace kvcat::cmd
