#include "support/diagnostic.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "support/hidden_text.h"

namespace kvcat {

std::string_view to_string(Severity s) {
    switch (s) {
        case Severity::error:
            return "error";
        case Severity::warning:
            return "warning";
        case Severity::note:
            return "note";
    }
    return "error";
}

std::string format_text(const Diagnostic& d) {
    // A file name or a quoted value is shown, never obeyed: a newline or an escape sequence in
    // it would forge or hide a finding line (hidden_text.h).
    std::string where = escape_for_terminal(d.pos.file);
    if (d.pos.line > 0) {
        where += fmt::format(":{}:{}", d.pos.line, std::max(d.pos.column, 1));
    }
    return fmt::format("{}: {}: [{}] {}", where, to_string(d.severity), d.rule, escape_for_terminal(d.message));
}

void sort_diagnostics(std::vector<Diagnostic>& diagnostics) {
    std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.pos.file, a.pos.line, a.pos.column, a.rule) <
               std::tie(b.pos.file, b.pos.line, b.pos.column, b.rule);
    });
}

bool has_errors(std::span<const Diagnostic> diagnostics) {
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::error; });
}

}  // namespace kvcat
