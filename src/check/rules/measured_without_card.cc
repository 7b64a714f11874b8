// measured-without-card: a measured speed or time is a figure of one machine. A row that holds
// one and names no accelerator cannot be found by `query accelerator=...`, and the roofline and
// memory rules cannot judge it; the source may well leave the card unsaid (an A100 without its
// memory or form, an RTX PRO 6000 without its edition), and then the row says so, and why, in
// `unstated.accelerator`; a run on several cards also names the card as the source does in
// `accelerator_named` (the family, "RTX PRO 6000 Blackwell"), which `query` shows as its card.
// Saying both (a card and that the source names none) is a contradiction.
#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/records.h"

namespace kvcat::rules {

namespace {

bool measured(const MeasurementPoint& p) {
    return p.tps || p.total_tps || p.prefill_tps || p.ttft_ms;
}

/// Whether the record gives a reason under `key` (unstated.accelerator, unstated.gpus).
bool says_why(const Record& r, const char* key) {
    const YamlNode* why = r.node(key);
    return why && why->is_scalar() && !why->value.empty() && why->value != "null";
}

/// The record's points that hold a measured speed or time.
std::size_t measured_points(const Record& r) {
    std::size_t n = 0;
    for (const auto& p : r.kv->points) n += measured(p) ? 1 : 0;
    return n;
}

void measured_without_card(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    bool said = says_why(r, "unstated.accelerator");
    if (r.kv->accelerator) {
        if (said) {
            out.push_back(diag::finding(
                "measured-without-card", r.where("unstated.accelerator"),
                fmt::format("unstated.accelerator says the source names no card, but accelerator is {}; keep one",
                            *r.kv->accelerator)));
        }
        if (r.kv->accelerator_named) {
            out.push_back(diag::finding(
                "measured-without-card", r.where("accelerator_named"),
                fmt::format("accelerator_named is for a card no one record applies to, but accelerator is {}; keep "
                            "one",
                            *r.kv->accelerator)));
        }
        return;
    }
    std::size_t n = measured_points(r);
    if (n == 0) return;
    if (said && !r.kv->accelerator_named && r.kv->gpus > 1) {
        out.push_back(diag::finding(
            "measured-without-card", r.where("unstated.accelerator"),
            fmt::format("the row holds {} measured point{} on {} cards and says why no accelerator record applies, "
                        "but not which card ran; name it as the source does in accelerator_named",
                        n, n == 1 ? "" : "s", r.kv->gpus)));
        return;
    }
    if (said) return;
    out.push_back(diag::finding(
        "measured-without-card", r.where_key("accelerator"),
        fmt::format("the row holds {} measured point{} but names no card; give the accelerator the run used, or say "
                    "under unstated.accelerator what the source leaves out",
                    n, n == 1 ? "" : "s")));
}

/// A card count is a figure of the run as much as the card is: a row that leaves `gpus` out
/// would read as one card, and the roofline and memory rules would judge it as one.
void measured_without_card_count(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    bool said = says_why(r, "unstated.gpus");
    if (r.kv->gpus_stated) {
        if (said) {
            out.push_back(
                diag::finding("measured-without-card-count", r.where("unstated.gpus"),
                              fmt::format("unstated.gpus says the source gives no card count, but gpus is {}; keep one",
                                          r.kv->gpus)));
        }
        return;
    }
    std::size_t n = measured_points(r);
    if (n == 0 || said) return;
    out.push_back(diag::finding(
        "measured-without-card-count", r.where_key("accelerator"),
        fmt::format("the row holds {} measured point{} but no card count; give gpus as the source states it (1 for "
                    "one card), or say under unstated.gpus why it cannot",
                    n, n == 1 ? "" : "s")));
}

}  // namespace

KVCAT_RULES(measured_without_card) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"measured-without-card", Severity::error,
                 "a row with a measured speed or time names no `accelerator` and no `unstated.accelerator` (on several "
                 "cards, with its `accelerator_named`), or names both",
                 RuleStage::record, measured_without_card},
        RuleInfo{"measured-without-card-count", Severity::error,
                 "a row with a measured speed or time writes no `gpus` and no `unstated.gpus`, or writes both",
                 RuleStage::record, measured_without_card_count},
    };
    return kRules;
}

}  // namespace kvcat::rules
