// The rule registry: every lint rule's descriptor (its id, severity, one line of what it
// checks, the stage it runs at and, for a record rule, its check), collected from the files of
// src/check/rules/ in one stable list that the lint, --list-rules, SARIF and the README read.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace kvcat {

struct Record;
class RecordSet;

/// Where a rule is judged: while a file is read (its YAML and schema), on one record against
/// the records it names, or by the run itself (across records, or about other findings).
enum class RuleStage { loader, record, run };

std::string_view to_string(RuleStage s);

/// A record rule's check: judges one record against the records it may name (`refs`) and
/// appends findings. No check does I/O, so the lint runs them on many records at a time.
using RecordCheck = void (*)(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out);

/// One lint rule, as its file in src/check/rules/ declares it: everything else about the rule
/// (the lint's loop, a finding's severity, SARIF, --list-rules, completion, the README
/// table) is read from here.
struct RuleInfo {
    std::string_view id;
    Severity severity;
    std::string_view summary;  ///< one line; `code` in backticks where the README shows it so
    RuleStage stage = RuleStage::record;
    RecordCheck check = nullptr;  ///< set for record rules, and only for them
    /// True when each finding carries a claim (Diagnostic::claim): a lint_ignore then names the
    /// claim it acknowledges, and silences that finding only.
    bool names_claims = false;
};

/// Every rule of the registry (src/check/rule_registry.cc): loader rules, record rules, then the
/// run's own, each group by id, so every listing and the order record checks run in is stable.
std::span<const RuleInfo> all_rules();

/// The rule with this id, or nullptr.
const RuleInfo* find_rule_info(std::string_view id);

/// A rule's summary as plain text: its backticks dropped.
std::string plain_summary(const RuleInfo& rule);

}  // namespace kvcat
