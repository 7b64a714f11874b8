#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check/lint.h"
#include "check/rule_list.h"
#include "check/rule_registry.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "load/data_dirs.h"
#include "output/diagnostic_render.h"
#include "output/terminal.h"
#include "output/wrap.h"
#include "support/suggest.h"

namespace kvcat::cmd {

namespace {

struct LintCommandOptions {
    std::vector<std::string> paths;
    Common common;  ///< its format empty: github under GitHub Actions, else text
    std::string color = "auto";
    std::vector<std::string> rules;
    bool strict = false;
    bool quiet = false;
    bool list_rules = false;
    bool notes = false;  ///< --notes: list what was not judged, which the summary counts either way
};

/// --list-rules: the registry in the format asked for (text unless said), no lint.
int list_rules(const std::string& format) {
    auto chosen = parse_rule_list_format(format.empty() ? "text" : format);
    if (!chosen) {
        spdlog::error("--list-rules prints text, json, markdown or ids, not {}", format);
        return ExitCode::failure;
    }
    std::cout << render_rule_list(all_rules(), *chosen);
    std::cout.flush();
    return std::cout ? ExitCode::ok : ExitCode::failure;
}

/// The format asked for, or the one the environment implies: GitHub Actions sets
/// GITHUB_ACTIONS=true, and there workflow commands become annotations on the pull request.
DiagnosticFormat choose_format(const std::string& asked) {
    if (!asked.empty()) return *parse_diagnostic_format(asked);
    const char* actions = std::getenv("GITHUB_ACTIONS");
    return actions != nullptr && std::string_view(actions) == "true" ? DiagnosticFormat::github
                                                                     : DiagnosticFormat::text;
}

/// Every rule named by --rule must exist; a typo gets a did-you-mean rather than a silent
/// run that reports nothing.
bool check_rule_names(const std::vector<std::string>& names) {
    std::vector<std::string_view> ids;
    for (const auto& r : all_rules()) ids.push_back(r.id);
    bool ok = true;
    for (const auto& name : names) {
        if (std::find(ids.begin(), ids.end(), name) != ids.end()) continue;
        std::string hint = closest_match(name, ids);
        spdlog::error("--rule {}: no such rule{}", name, hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint));
        ok = false;
    }
    return ok;
}

int run_lint(const LintCommandOptions& options, bool quiet) {
    if (options.list_rules) return list_rules(options.common.format);
    if (!check_rule_names(options.rules)) return ExitCode::failure;
    if (!options.common.format.empty() && !parse_diagnostic_format(options.common.format)) {
        spdlog::error("--format {} is for --list-rules; findings are text, github, json or sarif",
                      options.common.format);
        return ExitCode::failure;
    }
    DiagnosticFormat format = choose_format(options.common.format);
    std::vector<std::filesystem::path> paths(options.paths.begin(), options.paths.end());
    if (paths.empty()) paths.emplace_back(default_records_dir());  // records/ here, else the installed ones
    // Rows are checked and dropped: the lint's memory stays flat however many there are.
    kvcat::LintOptions engine;
    engine.keep_rows = false;
    LintResult result = lint_paths(paths, engine);
    for (const auto& s : result.skipped) {
        spdlog::debug("{}: not a .yaml file; skipped", s);
    }
    for (const auto& s : result.linked_folders) {
        spdlog::debug(
            "{}: a link to a folder inside the records root; not followed (its records are read where they "
            "are)",
            s);
    }
    for (const auto& d : result.ignored) {
        spdlog::debug("{}", format_text(d));
    }
    std::vector<Diagnostic> findings;
    std::set<std::string, std::less<>> wanted(options.rules.begin(), options.rules.end());
    for (auto& d : result.diagnostics) {
        if (!wanted.empty() && !wanted.contains(d.rule)) continue;
        findings.push_back(std::move(d));
    }
    // What was not judged (not-judged notes) is counted always, and listed after the findings
    // when asked for (--notes, or --rule not-judged): the shipped records hold a score of them,
    // each a limit of kvcat's or of a log, which no change to a record can clear.
    std::size_t not_judged = 0;
    bool list_notes = options.notes || wanted.contains("not-judged");
    for (auto& d : result.notes) {
        if (!wanted.empty() && !wanted.contains(d.rule)) continue;
        ++not_judged;
        if (list_notes) findings.push_back(std::move(d));
    }
    LintSummary summary = summarize(findings, result.files.size());
    // --quiet drops warnings and notes from the text a person reads, not from the summary or
    // the exit status, and never from a format a program reads (json, sarif): code scanning
    // must see the warnings however the workflow spells its command.
    bool machine = format == DiagnosticFormat::json || format == DiagnosticFormat::sarif;
    std::vector<Diagnostic> shown;
    for (const auto& d : findings) {
        if (!quiet || machine || d.severity == Severity::error) shown.push_back(d);
    }

    switch (format) {
        case DiagnosticFormat::text:
            std::cout << fit_to_stdout(render_text(shown, stdout_wants_color(*parse_color_mode(options.color))));
            break;
        case DiagnosticFormat::github:
            std::cout << render_github(shown);
            break;
        case DiagnosticFormat::json:
            std::cout << render_json(shown, summary);
            break;
        case DiagnosticFormat::sarif: {
            std::error_code ec;
            std::string cwd = std::filesystem::current_path(ec).string();
            std::cout << render_sarif(shown, SarifOptions{KVCAT_VERSION, ec ? std::string() : cwd});
            break;
        }
    }
    std::cout.flush();
    if (!std::cout) {
        spdlog::error("cannot write the findings to stdout");
        return ExitCode::failure;
    }
    // The figures not judged count, but never fail the lint.
    std::string notes = not_judged == 0
                            ? ""
                            : fmt::format(", {} figure{} not judged{}", not_judged, not_judged == 1 ? "" : "s",
                                          list_notes ? "" : " (--notes lists them)");
    spdlog::info("{} record file{} checked: {} error{}, {} warning{}{}", summary.files_checked,
                 summary.files_checked == 1 ? "" : "s", summary.errors, summary.errors == 1 ? "" : "s",
                 summary.warnings, summary.warnings == 1 ? "" : "s", notes);
    bool failed = summary.errors > 0 || (options.strict && summary.warnings > 0);
    return failed ? ExitCode::findings : ExitCode::ok;
}

}  // namespace

void setup_lint(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<LintCommandOptions>();
    CLI::App* sub = app.add_subcommand("lint", "Check records: schema, references and every byte figure");
    sub->add_option("paths", options->paths, "Record files or folders (default: records/)");
    add_format_option(*sub, options->common, FormatFamily::diagnostics);
    sub->add_option("--color", options->color,
                    "Colour the text format: auto (a terminal, and NO_COLOR unset), always or never")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
    // One value per --rule, so the paths after it stay paths.
    sub->add_option("--rule", options->rules, "Report only this rule (repeat, or separate with commas)")
        ->allow_extra_args(false)
        ->delimiter(',');
    sub->add_flag("--strict", options->strict, "Warnings fail too (exit status 1)");
    sub->add_flag(
        "-q,--quiet", options->quiet,
        "Print only errors in text and github output (the same as kvcat -q lint); json and sarif keep every finding");
    sub->add_flag("--notes", options->notes,
                  "Also list each figure the lint did not judge (not-judged notes: a buffer kvcat gives no rule for, "
                  "a line printed without its types); the summary counts them either way");
    sub->add_flag("--list-rules", options->list_rules,
                  "List every rule (id, severity, stage, what it checks); lint nothing");
    sub->footer(
        "Examples:\n"
        "  kvcat lint\n"
        "  kvcat lint records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml\n"
        "  kvcat lint --strict --format github\n"
        "  kvcat lint --notes records/allocations/\n"
        "  kvcat lint --format sarif > kvcat.sarif\n"
        "  kvcat lint --rule kv-basis-product,prose-arithmetic --format json\n"
        "  kvcat lint --list-rules --format markdown\n"
        "Exit status: 0 no errors (warnings allowed), 1 errors found (or warnings with --strict),\n"
        "2 usage or I/O failure.");
    set_command_body(*sub, exit_code, [options, &app] {
        // -q means the same before or after "lint": only errors, on stdout and on stderr.
        // The top-level -q has already set the log level (its callback runs first).
        const CLI::Option* top_quiet = app.get_option_no_throw("--quiet");
        bool quiet = options->quiet || (top_quiet != nullptr && top_quiet->count() > 0);
        if (options->quiet) spdlog::set_level(spdlog::level::err);
        return run_lint(*options, quiet);
    });
}

}  // namespace kvcat::cmd
