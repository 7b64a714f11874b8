#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog.h"
#include "cmd/catalog_access.h"
#include "cmd/commands.h"
#include "lint.h"

namespace kvcat::cmd {

int lint_and_build(const std::string& db, const std::vector<std::string>& path_texts, bool print_warnings) {
    std::vector<std::filesystem::path> paths(path_texts.begin(), path_texts.end());
    LintResult result;
    try {
        result = lint_paths(paths);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    bool errors = has_errors(result.diagnostics);
    for (const auto& d : result.diagnostics) {
        if (d.severity == Severity::error || print_warnings) std::cerr << format_text(d) << '\n';
    }
    if (errors) {
        spdlog::error("the records have errors; {} was not written", db);
        return ExitCode::findings;
    }
    try {
        BuildStats stats = build_catalog(result.records, db);
        spdlog::info("wrote {}: {} model{}, {} accelerator{}, {} kv-efficiency row{}", db, stats.models,
                     stats.models == 1 ? "" : "s", stats.accelerators, stats.accelerators == 1 ? "" : "s",
                     stats.rows, stats.rows == 1 ? "" : "s");
    } catch (const std::exception& e) {
        spdlog::error("cannot write {}: {}; the previous catalog is unchanged", db, e.what());
        return ExitCode::failure;
    }
    return ExitCode::ok;
}

int ensure_fresh_catalog(const std::string& db, const std::string& records) {
    std::optional<std::string> stale;
    try {
        stale = catalog_staleness(db, records);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
    if (!stale) return ExitCode::ok;
    std::error_code ec;
    if (!std::filesystem::is_directory(records, ec)) {
        if (std::filesystem::exists(db, ec)) {
            spdlog::warn("{}; no {} folder to rebuild it from, so it is used as it is", *stale, records);
            return ExitCode::ok;
        }
        spdlog::error("{} does not exist and there is no {} folder to build it from", db, records);
        return ExitCode::failure;
    }
    spdlog::info("building the catalog: {}", *stale);
    return lint_and_build(db, {records}, false);
}

namespace {

struct BuildOptions {
    std::string db = "kvcat.db";
    std::vector<std::string> paths;
};

}  // namespace

void setup_build(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<BuildOptions>();
    CLI::App* sub = app.add_subcommand("build", "Lint the records, then write the SQLite catalog atomically");
    sub->add_option("--db", options->db, "The catalog file to write")->capture_default_str();
    sub->add_option("paths", options->paths, "Record folders (default: records/)");
    sub->footer(
        "Examples:\n"
        "  kvcat build\n"
        "  kvcat build --db /tmp/catalog.db records\n"
        "With any lint error nothing is written and the exit status is 1.");
    sub->callback([options, &exit_code] {
        std::vector<std::string> paths = options->paths;
        if (paths.empty()) paths.emplace_back("records");
        exit_code = lint_and_build(options->db, paths, true);
    });
}

}  // namespace kvcat::cmd
