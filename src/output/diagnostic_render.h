// Output formats for lint findings: compiler-style text, GitHub workflow commands, JSON
// and SARIF 2.1.0.
//
// Every renderer is a pure function of the findings (and, for JSON and SARIF, a summary
// and a few facts about the run passed in), so each format is a rendering of the same
// list and is tested without running the lint. Where the output goes, whether it is a
// terminal and what the environment says are the caller's business (src/cmd/cmd_lint.cc).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "check/rule_registry.h"
#include "support/diagnostic.h"

namespace kvcat {

enum class DiagnosticFormat { text, github, json, sarif };

/// "text" -> DiagnosticFormat::text; nullopt for an unknown name.
std::optional<DiagnosticFormat> parse_diagnostic_format(std::string_view name);
std::span<const std::string_view> diagnostic_format_names();

/// Counts for the end of a run.
struct LintSummary {
    std::size_t files_checked = 0;
    std::size_t errors = 0;
    std::size_t warnings = 0;
    std::size_t notes = 0;
};

LintSummary summarize(std::span<const Diagnostic> diagnostics, std::size_t files_checked);

/// One finding a line, as format_text() prints it; with `color`, ANSI colours as gcc uses
/// them (bold location, red error, magenta warning, cyan note).
std::string render_text(std::span<const Diagnostic> diagnostics, bool color);

/// GitHub's workflow-command escaping (actions/toolkit): % \r \n in a message ...
std::string github_escape_data(std::string_view text);
/// ... and additionally , and : in a property value (file=, title=).
std::string github_escape_property(std::string_view text);

/// "::error file=F,line=L,col=C,title=RULE::message"; ::warning and ::notice for the other
/// severities. A finding about a whole file (line 0) has no line and col.
std::string format_github(const Diagnostic& d);
std::string render_github(std::span<const Diagnostic> diagnostics);

/// {"findings": [{file, line, column, severity, rule, message[, stated][, computed]}...],
///  "summary": {files_checked, errors, warnings, notes}}. Line and column are 1-based;
/// 0 means the finding is about the whole file.
std::string render_json(std::span<const Diagnostic> diagnostics, const LintSummary& summary);

struct SarifOptions {
    std::string tool_version;  ///< tool.driver.version
    /// Absolute paths under this folder are written relative to it; empty: leave them alone.
    std::string base_dir;
};

/// A file name as a SARIF artifactLocation.uri: a relative reference with forward slashes
/// and percent-encoding when the file is relative to (or under) base_dir, else a file:// URI.
std::string sarif_uri(std::string_view file, std::string_view base_dir);

/// SARIF 2.1.0: one run, tool.driver with every rule of all_rules() (so ruleIndex is a
/// finding's index in all_rules()), one result per finding.
std::string render_sarif(std::span<const Diagnostic> diagnostics, const SarifOptions& options);

}  // namespace kvcat
