// The rules the lint run reports itself (src/check/lint.cc), across the stages: a figure too large
// for 64 bits wherever it is met, and lint_ignore entries, judged against the findings they
// would silence.
#include "check/rules/rules.h"

namespace kvcat::rules {

KVCAT_RULES(run_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"arith-overflow", Severity::error, "a product or a number that does not fit in 64 bits",
                 RuleStage::run},
        RuleInfo{"lint-ignore", Severity::warning,
                 "a `lint_ignore` entry without a reason, for an error rule, or that silences nothing", RuleStage::run},
    };
    return kRules;
}

}  // namespace kvcat::rules
