// The rule registry: every rule declared by a file of src/check/rules/, in one stable list.
//
// Each file of src/check/rules/ defines KVCAT_RULES(<its name>), a function returning its rules'
// descriptors. CMake writes rule_files.inc from cmake/rule_files.cmake, one
// KVCAT_RULE_FILE(<name>) per listed file, so a new rule is a new file and its line in that
// list (tools/new-rule writes both): the registry calls every file's function by name, and
// a listed file that lacks it fails to link.
#include "check/rule_registry.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "check/rules/rules.h"
#include "support/diagnostic.h"

namespace kvcat {

namespace rules {
#define KVCAT_RULE_FILE(stem) KVCAT_RULES(stem);
#include "rule_files.inc"
#undef KVCAT_RULE_FILE
}  // namespace rules

namespace {

std::vector<RuleInfo> collect() {
    using Declared = std::span<const RuleInfo> (*)();
    const Declared files[] = {
#define KVCAT_RULE_FILE(stem) rules::rules_in_##stem,
#include "rule_files.inc"
#undef KVCAT_RULE_FILE
    };
    std::vector<RuleInfo> all;
    for (Declared file : files) {
        for (const RuleInfo& rule : file()) all.push_back(rule);
    }
    std::sort(all.begin(), all.end(),
              [](const RuleInfo& a, const RuleInfo& b) { return std::tie(a.stage, a.id) < std::tie(b.stage, b.id); });
    // A descriptor that contradicts itself is a programming error, found by the first run.
    for (std::size_t i = 0; i < all.size(); ++i) {
        const RuleInfo& r = all[i];
        for (std::size_t j = 0; j < i; ++j) {
            if (all[j].id == r.id) throw std::logic_error(fmt::format("rule '{}' is registered twice", r.id));
        }
        if ((r.stage == RuleStage::record) != (r.check != nullptr)) {
            throw std::logic_error(fmt::format("rule '{}': a record rule has a check, and only a record rule", r.id));
        }
    }
    return all;
}

const std::vector<RuleInfo>& registry() {
    static const std::vector<RuleInfo> rules = collect();
    return rules;
}

}  // namespace

std::string_view to_string(RuleStage s) {
    switch (s) {
        case RuleStage::loader:
            return "loader";
        case RuleStage::record:
            return "record";
        case RuleStage::run:
            return "run";
    }
    return "record";
}

std::span<const RuleInfo> all_rules() {
    return registry();
}

const RuleInfo* find_rule_info(std::string_view id) {
    for (const RuleInfo& r : registry()) {
        if (r.id == id) return &r;
    }
    return nullptr;
}

std::string plain_summary(const RuleInfo& rule) {
    std::string out;
    for (char c : rule.summary) {
        if (c != '`') out += c;
    }
    return out;
}

}  // namespace kvcat
