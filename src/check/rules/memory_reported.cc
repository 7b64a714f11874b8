// memory-reported-bytes: an accelerator's driver-reported memory is what fit, curve, the planner
// and the memory rules take as the card's size, and its runtime total what vLLM and SGLang take
// their share of, so the bytes a record states must be the figure the tool printed times its unit.
// A slip here (a MiB read as MB, a digit dropped) moves every verdict on that card.
#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/load_findings.h"
#include "model/physics.h"

namespace kvcat::rules {

namespace {

/// One printed total's bytes against its value x unit; `key` names the mapping.
void check_total_bytes(const Record& r, const ReportedMemory& m, std::string_view key, std::vector<Diagnostic>& out) {
    auto unit = memory_unit_bytes(m.unit);
    if (!unit) return;  // the schema names the unit that is not one
    Rational whole;
    try {
        whole = Rational((m.value * *unit).floor());
    } catch (const OverflowError&) {
        out.push_back(diag::overflow(r.where(fmt::format("{}.value", key)), "the reported memory in bytes"));
        return;
    }
    if (whole == Rational(m.bytes)) return;
    Diagnostic d =
        diag::finding("memory-reported-bytes", r.where(fmt::format("{}.bytes", key)),
                      fmt::format("{} {} x {} bytes = {} bytes (rounded down to a whole byte), but {}.bytes is {}",
                                  m.value.to_display(), m.unit, unit->to_display(), group_thousands(whole.num()), key,
                                  group_thousands(m.bytes)));
    d.stated = group_thousands(m.bytes);
    d.computed = group_thousands(whole.num());
    out.push_back(std::move(d));
}

}  // namespace

void memory_reported_bytes(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.accelerator) return;
    if (r.accelerator->memory_reported) check_total_bytes(r, *r.accelerator->memory_reported, "memory_reported", out);
    if (r.accelerator->memory_runtime_total) {
        check_total_bytes(r, *r.accelerator->memory_runtime_total, "memory_runtime_total", out);
    }
}

KVCAT_RULES(memory_reported) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{
            "memory-reported-bytes", Severity::error,
            "an accelerator's `memory_reported.bytes` or `memory_runtime_total.bytes` is not its printed `value` x "
            "`unit` (B, MiB, GiB or MB), "
            "rounded down to a whole byte",
            RuleStage::record, memory_reported_bytes},
    };
    return kRules;
}

}  // namespace kvcat::rules
