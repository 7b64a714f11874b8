// measured-without-card: a measured speed or time is a figure of one machine. A row that holds
// one and names no accelerator cannot be found by `query accelerator=...`, and the roofline and
// memory rules cannot judge it; the source may well leave the card unsaid (an A100 without its
// memory or form, an RTX PRO 6000 without its edition), and then the row says so, and why, in
// `unstated.accelerator`. Saying both (a card and that the source names none) is a contradiction.
#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/records.h"

namespace kvcat::rules {

namespace {

bool measured(const MeasurementPoint& p) {
    return p.tps || p.total_tps || p.prefill_tps || p.ttft_ms;
}

void measured_without_card(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    const YamlNode* unstated = r.node("unstated.accelerator");
    bool said = unstated && unstated->is_scalar() && !unstated->value.empty() && unstated->value != "null";
    if (r.kv->accelerator) {
        if (said) {
            out.push_back(diag::finding(
                "measured-without-card", r.where("unstated.accelerator"),
                fmt::format("unstated.accelerator says the source names no card, but accelerator is {}; keep one",
                            *r.kv->accelerator)));
        }
        return;
    }
    std::size_t n = 0;
    for (const auto& p : r.kv->points) n += measured(p) ? 1 : 0;
    if (n == 0 || said) return;
    out.push_back(diag::finding(
        "measured-without-card", r.where_key("accelerator"),
        fmt::format("the row holds {} measured point{} but names no card; give the accelerator the run used, or say "
                    "under unstated.accelerator what the source leaves out",
                    n, n == 1 ? "" : "s")));
}

}  // namespace

KVCAT_RULES(measured_without_card) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"measured-without-card", Severity::error,
                 "a row with a measured speed or time names no `accelerator` and no `unstated.accelerator`, or names "
                 "both",
                 RuleStage::record, measured_without_card},
    };
    return kRules;
}

}  // namespace kvcat::rules
