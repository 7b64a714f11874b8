#include "cmd/kvcat_main.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "catalog/catalog.h"
#include "cmd/commands.h"
#include "output/terminal.h"
#include "output/wrap.h"
#include "support/hidden_text.h"

namespace {

/// %* in the log pattern: the message with its control characters shown as escapes, so a file
/// name, a config key or a benchmark value quoted in a message cannot drive the terminal.
/// On a terminal the message is broken at spaces to its width, its later lines indented, as
/// the rest of kvcat's text is there; in a file or a pipe each message stays one line.
class EscapedMessage : public spdlog::custom_flag_formatter {
  public:
    explicit EscapedMessage(std::optional<std::size_t> width) : width_(width) {}
    void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
        std::string shown = kvcat::escape_for_terminal(std::string_view(msg.payload.data(), msg.payload.size()));
        if (width_) {
            // The line starts "kvcat: LEVEL: ": wrapped with that prefix, which is then left out.
            auto level = spdlog::level::to_string_view(msg.level);
            std::string prefix = fmt::format("kvcat: {}: ", std::string_view(level.data(), level.size()));
            shown = kvcat::wrap_text(prefix + shown, *width_).substr(prefix.size());
        }
        dest.append(shown.data(), shown.data() + shown.size());
    }
    std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<EscapedMessage>(width_); }

  private:
    std::optional<std::size_t> width_;
};

}  // namespace

namespace kvcat::cmd {

int kvcat_main(int argc, char** argv) {
    // NO_COLOR (any value) turns off colour in the log on stderr too: https://no-color.org
    auto logger = spdlog::stderr_color_mt(
        "kvcat", std::getenv("NO_COLOR") != nullptr ? spdlog::color_mode::never : spdlog::color_mode::automatic);
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<EscapedMessage>('*', kvcat::stderr_terminal_width()).set_pattern("kvcat: %^%l%$: %*");
    logger->set_formatter(std::move(formatter));
    spdlog::set_default_logger(logger);

    CLI::App app{"kvcat: a checked catalog of LLM KV-cache bytes per token and speed at context"};
    app.set_version_flag("--version",
                         fmt::format("kvcat {} (catalog schema {})", KVCAT_VERSION, kvcat::kCatalogSchemaVersion));
    app.footer(
        "Examples:\n"
        "  kvcat lint                                   # check records/\n"
        "  kvcat query attention_variant=hybrid 'context_length>64k'\n"
        "  kvcat query kv_cache_dtype=fp8,bf16 accelerator=nvidia-rtx-4090 --format vertical\n"
        "  kvcat sql \"SELECT model, max(context_length) FROM kv_rows GROUP BY model\"\n"
        "  kvcat explain vllm-qwen35-35b                # a record by its name or the start of it\n"
        "  kvcat fit --model qwen3.5-27b --accelerator nvidia-rtx-3090 --weight-quant Q4_K --kv-dtype bf16\n"
        "  kvcat curve --model llama-3.1-8b --contexts 8k,128k\n"
        "  kvcat report --out report.html\n"
        "kvcat COMMAND --help shows a command's options and examples; man kvcat has them all.");
    app.require_subcommand(1);
    app.fallthrough();
    int verbosity = 0;
    bool quiet = false;
    app.add_flag("-v,--verbose", verbosity, "More detail on stderr (repeat for debug)");
    app.add_flag("-q,--quiet", quiet, "Only errors on stderr");
    app.parse_complete_callback([&] {
        if (quiet) {
            spdlog::set_level(spdlog::level::err);
        } else if (verbosity > 0) {
            spdlog::set_level(spdlog::level::debug);
        } else {
            spdlog::set_level(spdlog::level::info);
        }
    });

    int exit_code = kvcat::cmd::ok;
    kvcat::cmd::setup_lint(app, exit_code);
    kvcat::cmd::setup_build(app, exit_code);
    kvcat::cmd::setup_query(app, exit_code);
    kvcat::cmd::setup_sql(app, exit_code);
    kvcat::cmd::setup_explain(app, exit_code);
    kvcat::cmd::setup_import_config(app, exit_code);
    kvcat::cmd::setup_import_log(app, exit_code);
    kvcat::cmd::setup_import_bench(app, exit_code);
    kvcat::cmd::setup_new(app, exit_code);
    kvcat::cmd::setup_fit(app, exit_code);
    kvcat::cmd::setup_columns(app, exit_code);
    kvcat::cmd::setup_curve(app, exit_code);
    kvcat::cmd::setup_plan(app, exit_code);
    kvcat::cmd::setup_predict(app, exit_code);
    kvcat::cmd::setup_report(app, exit_code);
    kvcat::cmd::setup_complete(app, exit_code);

    // Each subcommand's body runs through run_command already; this one catches what is left,
    // an exception while parsing the command line, the same way.
    return kvcat::cmd::run_command([&] {
        try {
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            // Not for --help or --version (exit code 0): those print what was asked for.
            if (std::string typo =
                    e.get_exit_code() == 0 ? "" : kvcat::cmd::unknown_subcommand_message(app, argc, argv);
                !typo.empty()) {
                spdlog::error("{}", typo);
                return int{kvcat::cmd::failure};
            }
            if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
                if (std::string missing = kvcat::cmd::missing_required_message(app); !missing.empty()) {
                    spdlog::error("{}", missing);
                    return int{kvcat::cmd::failure};
                }
            }
            if (e.get_exit_code() == 0) {
                // Help on a terminal is broken at spaces to its width, which would cut words.
                std::ostringstream help, help_err;
                int code = app.exit(e, help, help_err);
                std::string text = help.str();
                std::cout << kvcat::fit_to_stdout(text) << std::flush;
                std::cerr << help_err.str();
                return code;
            }
            // CLI11 quotes what was typed; shown, not obeyed, line by line.
            std::ostringstream out, err;
            app.exit(e, out, err);
            std::cout << out.str();
            std::string text = err.str();
            for (std::size_t start = 0; start < text.size();) {
                std::size_t nl = text.find('\n', start);
                if (nl == std::string::npos) nl = text.size();
                std::cerr << kvcat::escape_for_terminal(std::string_view(text).substr(start, nl - start)) << '\n';
                start = nl + 1;
            }
            return int{kvcat::cmd::failure};
        }
        return exit_code;
    });
}

}  // namespace kvcat::cmd
