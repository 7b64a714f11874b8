// `kvcat lint --list-rules`: the rule registry as text, JSON, a Markdown table (README's
// rule table is this output) or bare ids (the bash completion reads them).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "check/rule_registry.h"
#include "support/diagnostic.h"

namespace kvcat {

enum class RuleListFormat { text, json, markdown, ids };

/// "markdown" -> RuleListFormat::markdown; nullopt for a name --list-rules does not print.
std::optional<RuleListFormat> parse_rule_list_format(std::string_view name);
std::span<const std::string_view> rule_list_format_names();

/// The rules, one a line or row, in the registry's order.
std::string render_rule_list(std::span<const RuleInfo> rules, RuleListFormat format);

}  // namespace kvcat
