#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>

#include "check/lint.h"
#include "check/record_ref.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "output/explain.h"
#include "output/terminal.h"
#include "output/wrap.h"

namespace kvcat::cmd {

namespace {

struct ExplainOptions {
    std::string target;
    Common common;
};

int run_explain(const ExplainOptions& options) {
    namespace fs = std::filesystem;
    std::error_code ec;
    bool is_file = fs::is_regular_file(options.target, ec);
    fs::path scope = is_file ? records_root_for(options.target) : fs::path(options.common.records);
    // A file is named too, so that one the walk cannot reach (under a link to a folder) is
    // still judged: a file outside the root is then a file-outside-root finding, never read.
    std::vector<fs::path> paths = {scope};
    if (is_file) paths.emplace_back(options.target);
    LintResult lint = lint_paths(paths);
    const Record* record = find_record(lint, options.target);
    if (!record && !is_file) {
        // A record id may be cut short: its name without the folder, or a prefix only it has.
        RecordRef ref = resolve_record(lint.records, options.target, std::nullopt);
        if (!ref.record) {
            spdlog::error("{}: {}", scope.string(), ref.error);  // the folder first: the error may end in a question
            return ExitCode::failure;
        }
        record = ref.record;
    }
    if (!record) {
        spdlog::error("no record '{}' under {}", options.target, scope.string());
        return ExitCode::failure;
    }
    auto explanation = explain_record(lint, *record);
    if (options.common.format == "json") {
        std::cout << explanation.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        std::string text = render_explanation_text(explanation);
        // On a terminal, broken at spaces to its width: the terminal would cut words.
        std::cout << fit_to_stdout(text);
    }
    return ExitCode::ok;
}

}  // namespace

void setup_explain(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ExplainOptions>();
    CLI::App* sub = app.add_subcommand("explain", "Show what the lint checked in one record, and what it could not");
    sub->add_option("record", options->target, "A record id or a record file")->required();
    add_records_option(*sub, options->common, RecordsUse::read);
    add_format_option(*sub, options->common, FormatFamily::document);
    sub->footer(
        "Examples:\n"
        "  kvcat explain kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k\n"
        "  kvcat explain vllm-qwen35-35b      # a name, or its start, when only one record has it\n"
        "  kvcat explain records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml --format json");
    set_command_body(*sub, exit_code, [options] { return run_explain(*options); });
}

}  // namespace kvcat::cmd
