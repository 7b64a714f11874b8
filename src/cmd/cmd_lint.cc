#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cmd/commands.h"
#include "lint.h"

namespace kvcat::cmd {

namespace {

struct LintOptions {
    std::vector<std::string> paths;
};

int run_lint(const LintOptions& options) {
    std::vector<std::filesystem::path> paths(options.paths.begin(), options.paths.end());
    if (paths.empty()) paths.emplace_back("records");
    LintResult result;
    try {
        result = lint_paths(paths);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    for (const auto& s : result.skipped) {
        spdlog::debug("{}: not a .yaml file; skipped", s);
    }
    for (const auto& d : result.ignored) {
        spdlog::debug("{}", format_text(d));
    }
    std::size_t errors = 0, warnings = 0;
    for (const auto& d : result.diagnostics) {
        std::cout << format_text(d) << '\n';
        (d.severity == Severity::error ? errors : warnings) += 1;
    }
    std::cout.flush();
    spdlog::info("{} record file{} checked: {} error{}, {} warning{}", result.files.size(),
                 result.files.size() == 1 ? "" : "s", errors, errors == 1 ? "" : "s", warnings,
                 warnings == 1 ? "" : "s");
    return errors > 0 ? ExitCode::findings : ExitCode::ok;
}

}  // namespace

void setup_lint(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<LintOptions>();
    CLI::App* sub = app.add_subcommand("lint", "Check records: schema, references and every byte figure");
    sub->add_option("paths", options->paths, "Record files or folders (default: records/)");
    sub->footer(
        "Examples:\n"
        "  kvcat lint\n"
        "  kvcat lint records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml\n"
        "Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage or I/O failure.");
    sub->callback([options, &exit_code] { exit_code = run_lint(*options); });
}

}  // namespace kvcat::cmd
