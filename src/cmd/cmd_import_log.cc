#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cmd/commands.h"
#include "cmd/write_file.h"
#include "engines/engine_log.h"
#include "engines/engine_rules.h"
#include "load/yaml_loader.h"
#include "support/bounded_read.h"
#include "support/hidden_text.h"
#include "vocab/vocabulary.h"

namespace kvcat::cmd {

namespace {

namespace fs = std::filesystem;

struct ImportLogOptions {
    std::string log;
    std::string model;
    std::string engine;
    std::string engine_version;
    std::string id;
    std::string url;
    std::string notes;
    std::string out;
    bool force = false;
};

/// The longest log import-log reads: a whole start-up log is some hundreds of KB.
constexpr std::size_t kMaxLogBytes = 16u << 20;

/// Whether a value given on the command line (or drawn from the log's name) is one line of
/// visible text, as every field it fills is; says which option holds what when it is not.
bool one_line(const std::string& value, const char* option, const char* field) {
    auto hidden = first_hidden_character(value);
    if (!hidden) return true;
    spdlog::error("{} gives '{}', which holds {}; a record's {} is one line of visible text", option,
                  escape_for_terminal(value), describe(*hidden), field);
    return false;
}

/// Whether the record import-log wrote reads as one YAML mapping with no key given twice: a
/// check of the writer itself, so that a log kvcat misreads is refused here rather than written.
bool reads_back(const std::string& text, const std::string& log) {
    LoadedYaml loaded = load_yaml("record", text);
    for (const auto& d : loaded.diagnostics) {
        if (!d.rule.starts_with("yaml-")) continue;
        spdlog::error("{}: the record written from this log would not read ({}, line {}: {}); nothing written",
                      escape_for_terminal(log), d.rule, d.pos.line, d.message);
        return false;
    }
    return true;
}

/// The name an allocation record gives a fork or an application built on llama.cpp, from how a
/// person may type it; empty when `typed` names none of them.
std::string llama_family_name(const std::string& typed) {
    const EngineName* e = engine_spelled(typed);
    if (e != nullptr && (e->name == "llama.cpp" || e->upstream == "llama.cpp")) return std::string(e->name);
    return "";
}

int run_import_log(const ImportLogOptions& o) {
    std::string why;
    auto bytes = read_bounded(o.log, kMaxLogBytes, why);
    if (!bytes) {
        spdlog::error("{}: cannot read the log: {}", escape_for_terminal(o.log), why);
        return ExitCode::failure;
    }
    ParsedLog parsed;
    try {
        parsed = parse_engine_log(*bytes, o.log);
    } catch (const LogError& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    // --engine naming the engine whose lines the log holds adds nothing; it names a fork or an
    // application of llama.cpp only over llama.cpp's lines.
    auto named = parse_engine(o.engine);
    bool the_logs_own = named && *named == parsed.engine && parsed.engine != Engine::llamacpp;
    if (!o.engine.empty() && !the_logs_own) {
        std::string name = llama_family_name(o.engine);
        if (name.empty() || parsed.engine != Engine::llamacpp) {
            spdlog::error(
                "{}: --engine {} names a fork or an application of llama.cpp (ik_llama.cpp, LM Studio, "
                "ollama), but this log's lines are {}'s",
                escape_for_terminal(o.log), escape_for_terminal(o.engine), name_of(parsed.engine));
            return ExitCode::failure;
        }
        parsed.engine_name = name;
    }
    std::string model = o.model.starts_with("models/") ? o.model : "models/" + o.model;
    fs::path out_path(o.out);
    std::string id = o.id;
    if (id.empty()) {
        id = "allocations/" + (o.out.empty() ? fs::path(o.log).stem().string() : out_path.stem().string());
    }
    const char* id_from = o.id.empty() ? (o.out.empty() ? "the log's file name" : "the --out file's name") : "--id";
    if (!one_line(id, id_from, "id") || !one_line(model, "--model", "model") ||
        !one_line(o.engine_version, "--engine-version", "engine_version") || !one_line(o.url, "--url", "url") ||
        !one_line(o.notes, "--notes", "notes")) {
        return ExitCode::failure;
    }
    std::string text = allocation_record_text(parsed, id, model, o.engine_version, o.url, o.notes,
                                              escape_for_terminal(fs::path(o.log).filename().string()));
    if (!generated_record_is_printable(text, o.log) || !reads_back(text, o.log)) return ExitCode::failure;
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
    sub->add_option("--engine", o->engine,
                    "The engine that printed llama.cpp's lines, when it is a fork or an application built on it: "
                    "ik_llama.cpp, LM Studio or ollama (default: llama.cpp)");
    sub->add_option("--engine-version", o->engine_version,
                    "The engine's build or release (default: what the log prints, else null)");
    sub->add_option("--id", o->id, "The record id, allocations/NAME (default: from --out, else the log's name)");
    sub->add_option("--url", o->url, "Where the log was copied from (else left for a person to fill)");
    sub->add_option("--notes", o->notes, "What the log leaves unsaid (else left for a person to fill)");
    sub->add_option("--out", o->out, "Write the record to this file instead of stdout");
    sub->add_flag("--force", o->force, "Replace an existing --out file");
    sub->footer(engine_log_formats() +
                "\nA line that carries an allocation figure but does not read as one is an error naming its file "
                "and line.\n"
                "Examples:\n"
                "  kvcat import-log server.log --model models/qwen3.6-27b\n"
                "  kvcat import-log vllm.log --model qwen2-7b-instruct --url https://github.com/o/r/issues/1 \\\n"
                "      --out records/allocations/vllm-qwen2-7b.yaml\n"
                "Without --url and --notes the record says where to write them, and lint fails until they are.\n"
                "Exit status: 0 written, 2 usage or input error.");
    set_command_body(*sub, exit_code, [o] { return run_import_log(*o); });
}

}  // namespace kvcat::cmd
