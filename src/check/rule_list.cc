#include "check/rule_list.h"

#include "check/rule_registry.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kvcat {

namespace {

constexpr std::array<std::string_view, 4> kFormats = {"text", "json", "markdown", "ids"};

/// id, severity and stage in aligned columns (measured first), then the summary.
std::string render_text(std::span<const RuleInfo> rules) {
    std::size_t id_width = 0;
    std::size_t severity_width = 0;
    for (const auto& r : rules) {
        id_width = std::max(id_width, r.id.size());
        severity_width = std::max(severity_width, to_string(r.severity).size());
    }
    std::string out;
    for (const auto& r : rules) {
        out += fmt::format("{:<{}}  {:<{}}  {:<6}  {}\n", r.id, id_width, to_string(r.severity), severity_width,
                           to_string(r.stage), plain_summary(r));
    }
    return out;
}

std::string render_json(std::span<const RuleInfo> rules) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& r : rules) {
        nlohmann::ordered_json rule;
        rule["id"] = r.id;
        rule["severity"] = to_string(r.severity);
        rule["stage"] = to_string(r.stage);
        rule["description"] = r.summary;
        list.push_back(std::move(rule));
    }
    nlohmann::ordered_json out;
    out["rules"] = std::move(list);
    return out.dump(2) + "\n";
}

/// A cell of a Markdown table: a '|' in it would end the cell.
std::string cell(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

std::string render_markdown(std::span<const RuleInfo> rules) {
    std::string out = "| rule | severity | checked | what it checks |\n|---|---|---|---|\n";
    for (const auto& r : rules) {
        out +=
            fmt::format("| `{}` | {} | {} | {} |\n", r.id, to_string(r.severity), to_string(r.stage), cell(r.summary));
    }
    return out;
}

}  // namespace

std::optional<RuleListFormat> parse_rule_list_format(std::string_view name) {
    for (std::size_t i = 0; i < kFormats.size(); ++i) {
        if (kFormats[i] == name) return static_cast<RuleListFormat>(i);
    }
    return std::nullopt;
}

std::span<const std::string_view> rule_list_format_names() {
    return kFormats;
}

std::string render_rule_list(std::span<const RuleInfo> rules, RuleListFormat format) {
    switch (format) {
        case RuleListFormat::text:
            return render_text(rules);
        case RuleListFormat::json:
            return render_json(rules);
        case RuleListFormat::markdown:
            return render_markdown(rules);
        case RuleListFormat::ids: {
            std::string out;
            for (const auto& r : rules) out += fmt::format("{}\n", r.id);
            return out;
        }
    }
    return {};
}

}  // namespace kvcat
