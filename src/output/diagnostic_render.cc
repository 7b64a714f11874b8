#include "output/diagnostic_render.h"

#include <algorithm>
#include <array>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "check/rule_registry.h"
#include "support/hidden_text.h"

namespace kvcat {

namespace {

using ordered_json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 4> kDiagnosticFormats = {"text", "github", "json", "sarif"};

constexpr std::string_view kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";

/// format_text() prints column 1 for a positioned finding without a column; every format
/// says the same so that one finding has one address.
int shown_column(const Diagnostic& d) {
    return std::max(d.pos.column, 1);
}

std::string dump(const ordered_json& j) {
    // Record text is checked for UTF-8 by the loader, but a file name need not be: replace
    // rather than throw, so a strange name cannot lose every other finding.
    return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

/// SARIF's result levels name kvcat's three severities as kvcat does: error, warning, note.
std::string_view sarif_level(Severity s) {
    return to_string(s);
}

std::optional<std::size_t> rule_index(std::string_view rule) {
    auto rules = all_rules();
    for (std::size_t i = 0; i < rules.size(); ++i) {
        if (rules[i].id == rule) return i;
    }
    return std::nullopt;
}

std::string percent_encode_path(std::string_view path) {
    std::string out;
    for (unsigned char c : path) {
        bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '.' || c == '_' || c == '~' || c == '/';
        if (keep) {
            out += static_cast<char>(c);
        } else {
            out += fmt::format("%{:02X}", c);
        }
    }
    return out;
}

}  // namespace

std::optional<DiagnosticFormat> parse_diagnostic_format(std::string_view name) {
    for (std::size_t i = 0; i < kDiagnosticFormats.size(); ++i) {
        if (kDiagnosticFormats[i] == name) return static_cast<DiagnosticFormat>(i);
    }
    return std::nullopt;
}

std::span<const std::string_view> diagnostic_format_names() {
    return kDiagnosticFormats;
}

LintSummary summarize(std::span<const Diagnostic> diagnostics, std::size_t files_checked) {
    LintSummary s;
    s.files_checked = files_checked;
    for (const auto& d : diagnostics) {
        switch (d.severity) {
            case Severity::error:
                ++s.errors;
                break;
            case Severity::warning:
                ++s.warnings;
                break;
            case Severity::note:
                ++s.notes;
                break;
        }
    }
    return s;
}

std::string render_text(std::span<const Diagnostic> diagnostics, bool color) {
    std::string out;
    for (const auto& d : diagnostics) {
        if (!color) {
            out += format_text(d);
            out += '\n';
            continue;
        }
        std::string where = escape_for_terminal(d.pos.file);
        if (d.pos.line > 0) where += fmt::format(":{}:{}", d.pos.line, shown_column(d));
        std::string_view severity_color = d.severity == Severity::error     ? "\x1b[1;31m"
                                          : d.severity == Severity::warning ? "\x1b[1;35m"
                                                                            : "\x1b[1;36m";
        out += fmt::format("\x1b[1m{}:\x1b[0m {}{}:\x1b[0m [\x1b[1m{}\x1b[0m] {}\n", where, severity_color,
                           to_string(d.severity), d.rule, escape_for_terminal(d.message));
    }
    return out;
}

std::string github_escape_data(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '%':
                out += "%25";
                break;
            case '\r':
                out += "%0D";
                break;
            case '\n':
                out += "%0A";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string github_escape_property(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : github_escape_data(text)) {
        switch (c) {
            case ':':
                out += "%3A";
                break;
            case ',':
                out += "%2C";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string format_github(const Diagnostic& d) {
    std::string_view command = d.severity == Severity::error     ? "error"
                               : d.severity == Severity::warning ? "warning"
                                                                 : "notice";
    std::string properties = "file=" + github_escape_property(d.pos.file);
    if (d.pos.line > 0) properties += fmt::format(",line={},col={}", d.pos.line, shown_column(d));
    properties += ",title=" + github_escape_property(d.rule);
    return fmt::format("::{} {}::{}", command, properties, github_escape_data(d.message));
}

std::string render_github(std::span<const Diagnostic> diagnostics) {
    std::string out;
    for (const auto& d : diagnostics) {
        out += format_github(d);
        out += '\n';
    }
    return out;
}

std::string render_json(std::span<const Diagnostic> diagnostics, const LintSummary& summary) {
    ordered_json findings = ordered_json::array();
    for (const auto& d : diagnostics) {
        ordered_json f;
        f["file"] = d.pos.file;
        f["line"] = d.pos.line > 0 ? d.pos.line : 0;
        f["column"] = d.pos.line > 0 ? shown_column(d) : 0;
        f["severity"] = to_string(d.severity);
        f["rule"] = d.rule;
        f["message"] = d.message;
        if (d.stated) f["stated"] = *d.stated;
        if (d.computed) f["computed"] = *d.computed;
        findings.push_back(std::move(f));
    }
    ordered_json out;
    out["findings"] = std::move(findings);
    out["summary"] = {{"files_checked", summary.files_checked},
                      {"errors", summary.errors},
                      {"warnings", summary.warnings},
                      {"notes", summary.notes}};
    return dump(out);
}

std::string sarif_uri(std::string_view file, std::string_view base_dir) {
    namespace fs = std::filesystem;
    fs::path path = fs::path(file).lexically_normal();
    if (path.is_absolute() && !base_dir.empty()) {
        fs::path relative = path.lexically_relative(fs::path(base_dir).lexically_normal());
        if (!relative.empty() && *relative.begin() != "..") path = relative;
    } else if (path.is_relative() && !path.empty() && *path.begin() == ".." && !base_dir.empty()) {
        // Above the base: only an absolute URI says where that is.
        path = (fs::path(base_dir) / path).lexically_normal();
    }
    std::string generic = path.generic_string();
    if (path.is_absolute()) return "file://" + percent_encode_path(generic);
    return percent_encode_path(generic);
}

std::string render_sarif(std::span<const Diagnostic> diagnostics, const SarifOptions& options) {
    ordered_json rules = ordered_json::array();
    for (const auto& r : all_rules()) {
        ordered_json rule;
        rule["id"] = r.id;
        rule["shortDescription"] = {{"text", plain_summary(r)}, {"markdown", r.summary}};
        rule["defaultConfiguration"] = {{"level", sarif_level(r.severity)}};
        rules.push_back(std::move(rule));
    }
    ordered_json results = ordered_json::array();
    for (const auto& d : diagnostics) {
        ordered_json result;
        result["ruleId"] = d.rule;
        if (auto index = rule_index(d.rule)) result["ruleIndex"] = *index;
        result["level"] = sarif_level(d.severity);
        result["message"] = {{"text", d.message}};
        ordered_json physical;
        physical["artifactLocation"] = {{"uri", sarif_uri(d.pos.file, options.base_dir)}};
        if (d.pos.line > 0) physical["region"] = {{"startLine", d.pos.line}, {"startColumn", shown_column(d)}};
        ordered_json location;
        location["physicalLocation"] = std::move(physical);
        result["locations"] = ordered_json::array();
        result["locations"].push_back(std::move(location));
        if (d.stated || d.computed) {
            ordered_json properties = ordered_json::object();
            if (d.stated) properties["stated"] = *d.stated;
            if (d.computed) properties["computed"] = *d.computed;
            result["properties"] = std::move(properties);
        }
        results.push_back(std::move(result));
    }
    ordered_json driver;
    driver["name"] = "kvcat";
    if (!options.tool_version.empty()) driver["version"] = options.tool_version;
    driver["rules"] = std::move(rules);
    ordered_json run;
    run["tool"] = {{"driver", std::move(driver)}};
    run["results"] = std::move(results);
    ordered_json log;
    log["$schema"] = kSarifSchema;
    log["version"] = "2.1.0";
    log["runs"] = ordered_json::array();
    log["runs"].push_back(std::move(run));
    return dump(log);
}

}  // namespace kvcat
