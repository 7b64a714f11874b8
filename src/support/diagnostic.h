// Findings of the lint, as data.
//
// A Diagnostic names a stable rule id, a severity, the position of the offending
// value and a message, and carries the stated and computed figures as fields so
// that every output format is a rendering of the same list. Each rule's message is
// built by one named factory in namespace diag, in the stage that judges the rule:
// src/load/load_findings.h for the loader's, src/check/findings.h for the lint's.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvcat {

enum class Severity { error, warning, note };

std::string_view to_string(Severity s);

/// A place in a file; line and column are 1-based, 0 means "the whole file".
struct Position {
    std::string file;
    int line = 0;
    int column = 0;
};

struct Diagnostic {
    std::string rule;
    Severity severity = Severity::error;
    Position pos;
    std::string message;
    std::optional<std::string> stated;    ///< the figure as the record states it
    std::optional<std::string> computed;  ///< the figure kvcat computed
    /// For a finding about one point of a record: the text a lint_ignore names, whole, to
    /// acknowledge this one finding (and no other of the same rule).
    std::optional<std::string> claim;
};

/// "file:line:col: error: [rule] message", as compilers print it.
std::string format_text(const Diagnostic& d);

/// Sorts by file, line, column, then rule, so output is stable across runs.
void sort_diagnostics(std::vector<Diagnostic>& diagnostics);

bool has_errors(std::span<const Diagnostic> diagnostics);

}  // namespace kvcat
