// The rules a record file meets while it is read (src/load/yaml_loader.cc, src/load/schema.cc,
// src/load/records.cc and the walk of the records root): they have no record check of their
// own. Their ids and summaries are the loader's (src/load/load_findings.cc); each is an error.
#include <vector>

#include "check/rules/rules.h"
#include "load/load_findings.h"

namespace kvcat::rules {

KVCAT_RULES(loader_rules) {
    static const std::vector<RuleInfo> kRules = [] {
        std::vector<RuleInfo> out;
        for (const LoaderRule& r : loader_rules()) {
            out.push_back(RuleInfo{r.id, Severity::error, r.summary, RuleStage::loader});
        }
        return out;
    }();
    return kRules;
}

}  // namespace kvcat::rules
