#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cmd/commands.h"
#include "cmd/write_file.h"
#include "import/gguf.h"
#include "import/http_range.h"
#include "import/import_config.h"
#include "import/import_gguf.h"
#include "support/bounded_read.h"
#include "support/json_input.h"

namespace kvcat::cmd {

namespace {

namespace fs = std::filesystem;

struct ImportConfigOptions {
    std::string config;
    std::string id;
    std::string name;
    std::string source;
    std::string out;
    double total_params_b = 0;
    double active_params_b = 0;
    std::int64_t native_context = 0;
    bool verified = false;
    bool count_mtp = false;
    bool force = false;
    CLI::Option* total_option = nullptr;
    CLI::Option* active_option = nullptr;
    CLI::Option* native_option = nullptr;
};

int run_import_config(const ImportConfigOptions& o) {
    // A GGUF file (it starts with the magic "GGUF") is read for its header's metadata only: the
    // file can be many GiB, so it is never read whole; an http(s) address is a GGUF whose header
    // is read by range requests. Anything else is a config.json.
    std::error_code ec;
    const bool remote = is_http_url(o.config);
    bool gguf = remote;
    if (!remote && fs::is_regular_file(o.config, ec)) {
        std::ifstream probe(o.config, std::ios::binary);
        char magic[4] = {};
        gguf = probe.read(magic, sizeof magic) && std::string_view(magic, sizeof magic) == "GGUF";
    }
    std::map<std::string, nlohmann::json> metadata;
    nlohmann::json config;
    if (gguf) {
        try {
            metadata = read_gguf_header(o.config).metadata;
        } catch (const std::exception& e) {
            spdlog::error("{}: not a GGUF header kvcat can read: {}", o.config, e.what());
            return ExitCode::failure;
        }
    } else {
        // A config.json is a few kilobytes; a FIFO or /dev/zero is refused, not waited on.
        constexpr std::size_t kMaxConfigBytes = 16u << 20;
        std::string why;
        auto text = read_bounded(o.config, kMaxConfigBytes, why);
        if (!text) {
            spdlog::error("{}: cannot read the file: {}", o.config, why);
            return ExitCode::failure;
        }
        try {
            config = parse_json_input(*text, [](std::string_view json_text) { return parse_config_json(json_text); });
        } catch (const JsonInputError& e) {
            spdlog::error("{}:{}:{}: {}", o.config, e.line(), e.column(), e.what());
            return ExitCode::failure;
        }
    }

    ImportOptions options;
    options.config_file = remote ? o.config : fs::path(o.config).filename().string();
    if (!o.id.empty()) options.id = o.id;
    if (!o.name.empty()) options.name = o.name;
    if (!o.source.empty()) options.source = o.source;
    if (o.total_option->count() > 0) options.total_params_b = o.total_params_b;
    if (o.active_option->count() > 0) options.active_params_b = o.active_params_b;
    if (o.native_option->count() > 0) options.native_context = o.native_context;
    options.verified = o.verified;
    options.count_mtp = o.count_mtp;

    // A file written into a models/ folder is named by its id, so the one decides the other.
    fs::path out_path(o.out);
    bool into_models = !o.out.empty() && out_path.parent_path().filename() == "models";
    if (into_models && !options.id) options.id = "models/" + out_path.stem().string();

    ImportResult result = gguf ? import_model_gguf(metadata, options) : import_model_config(config, options);
    if (!result.ok()) {
        for (const auto& p : result.problems) spdlog::error("{}: {}", o.config, p);
        return ExitCode::failure;
    }
    if (!generated_record_is_printable(result.text, o.config)) return ExitCode::failure;
    if (o.out.empty()) {
        std::cout << result.text;
        std::cout.flush();
        return ExitCode::ok;
    }
    if (into_models && result.id != "models/" + out_path.stem().string()) {
        spdlog::error("--out {} would hold a record whose id is {}; name the file {}.yaml or drop --id", o.out,
                      result.id, result.id.substr(7));
        return ExitCode::failure;
    }
    if (!write_whole_file(out_path, result.text, o.force)) return ExitCode::failure;
    spdlog::info("wrote {} ({}); check it with: kvcat lint {}", o.out, result.id, o.out);
    return ExitCode::ok;
}

}  // namespace

void setup_import_config(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<ImportConfigOptions>();
    CLI::App* sub = app.add_subcommand("import-config",
                                       "Write a model record from a Hugging Face config.json or a GGUF file's header");
    sub->add_option("config", o->config,
                    "The config.json, a .gguf file, or a GGUF's http(s) address (its header only is read)")
        ->required();
    sub->add_option("--id", o->id, "The record id, models/NAME (default: from the name)");
    sub->add_option("--name", o->name, "The model's published name (default: the config's _name_or_path)");
    sub->add_option("--source", o->source,
                    "What the config is, for sources and config_source (default: its file name)");
    o->total_option = sub->add_option("--total-params-b", o->total_params_b,
                                      "Total parameters, billions (required: a config does not state it)");
    o->active_option = sub->add_option("--active-params-b", o->active_params_b,
                                       "Parameters active per token, billions (required; the total for a dense model)");
    o->native_option = sub->add_option("--native-context", o->native_context,
                                       "Native context, tokens; only for a config without max_position_embeddings");
    sub->add_flag("--verified", o->verified, "The config was read from the model's own repository (config_verified)");
    sub->add_flag("--count-mtp", o->count_mtp,
                  "Count the multi-token-prediction layers, which cache only while MTP speculative decoding runs");
    sub->add_option("--out", o->out, "Write the record to this file instead of stdout");
    sub->add_flag("--force", o->force, "Replace an existing --out file");
    sub->footer(
        "Examples:\n"
        "  kvcat import-config config.json --name Llama-3.1-8B --total-params-b 8 --active-params-b 8\n"
        "  kvcat import-config config.json --name DeepSeek-V3 --total-params-b 671 --active-params-b 37 \\\n"
        "      --source 'deepseek-ai/DeepSeek-V3 config.json' --verified --out deepseek-v3.yaml\n"
        "Reads text_config when the config nests one; a .gguf file is read for its header's metadata.\n"
        "Every default it applies is said in the record's notes;\n"
        "a figure it cannot read is an error naming the field.\n"
        "Exit status: 0 written, 2 usage or input error (the file and what is wrong are named).");
    set_command_body(*sub, exit_code, [o] { return run_import_config(*o); });
}

}  // namespace kvcat::cmd
