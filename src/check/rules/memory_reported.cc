// memory-reported-bytes: an accelerator's driver-reported memory is what fit, curve, the planner
// and the memory rules take as the card's size, so the bytes a record states must be the figure
// the tool printed times its unit. A slip here (a MiB read as MB, a digit dropped) moves every
// verdict on that card.
#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/load_findings.h"
#include "model/physics.h"

namespace kvcat::rules {

void memory_reported_bytes(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.accelerator || !r.accelerator->memory_reported) return;
    const ReportedMemory& m = *r.accelerator->memory_reported;
    auto unit = memory_unit_bytes(m.unit);
    if (!unit) return;  // the schema names the unit that is not one
    Rational whole;
    try {
        whole = Rational((m.value * *unit).floor());
    } catch (const OverflowError&) {
        out.push_back(diag::overflow(r.where("memory_reported.value"), "the reported memory in bytes"));
        return;
    }
    if (whole == Rational(m.bytes)) return;
    Diagnostic d = diag::finding(
        "memory-reported-bytes", r.where("memory_reported.bytes"),
        fmt::format("{} {} x {} bytes = {} bytes (rounded down to a whole byte), but memory_reported.bytes is {}",
                    m.value.to_display(), m.unit, unit->to_display(), group_thousands(whole.num()),
                    group_thousands(m.bytes)));
    d.stated = group_thousands(m.bytes);
    d.computed = group_thousands(whole.num());
    out.push_back(std::move(d));
}

KVCAT_RULES(memory_reported) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"memory-reported-bytes", Severity::error,
                 "an accelerator's `memory_reported.bytes` is not its printed `value` x `unit` (B, MiB, GiB or MB), "
                 "rounded down to a whole byte",
                 RuleStage::record, memory_reported_bytes},
    };
    return kRules;
}

}  // namespace kvcat::rules
