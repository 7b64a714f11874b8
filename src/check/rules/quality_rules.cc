// Quality results: what a record states about its cache dtype's quality, alone or against a baseline run.
#include <algorithm>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"

namespace kvcat::rules {

namespace {

/// Digits after the decimal point in a number as written: "94.1" -> 1, "95" -> 0.
int decimals_written(std::string_view text) {
    auto dot = text.find('.');
    if (dot == std::string_view::npos) return 0;
    auto end = text.find_first_of("eE", dot);
    return static_cast<int>((end == std::string_view::npos ? text.size() : end) - dot - 1);
}

/// A whole number scaled by 10^digits, shown as a decimal with that many digits.
std::string scaled_display(std::int64_t scaled, int digits) {
    if (digits == 0) return std::to_string(scaled);
    std::int64_t unit = 1;
    for (int i = 0; i < digits; ++i) unit *= 10;
    std::string sign = scaled < 0 ? "-" : "";
    std::int64_t a = scaled < 0 ? -scaled : scaled;
    return fmt::format("{}{}.{:0{}d}", sign, a / unit, a % unit, digits);
}

}  // namespace

void quality_recovery(const Record& r, const RecordSet&, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    for (const auto& q : r.kv->quality) {
        if (!q.recovery_percent || !q.value_exact || !q.baseline_value_exact || q.baseline_value_exact->is_zero()) {
            continue;
        }
        const YamlNode* stated = r.node(q.key("recovery_percent"));
        if (!stated) continue;
        int digits = std::min(decimals_written(stated->value), 6);
        Rational computed = *q.value_exact * Rational(100) / *q.baseline_value_exact;
        // The stated figure holds when it is the computed one rounded to the digits it was written with.
        if (computed.round_scaled(digits) == q.recovery_percent->round_scaled(digits)) continue;
        out.push_back(diag::quality_recovery(
            r.where(q.key("recovery_percent")), stated->value, scaled_display(computed.round_scaled(digits), digits),
            fmt::format("{} / {} x 100", r.node(q.key("value"))->value, r.node(q.key("baseline_value"))->value)));
    }
}

void quality_baseline(const Record& r, const RecordSet&, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    for (const auto& q : r.kv->quality) {
        const bool has_figure = q.baseline_value || q.recovery_percent || q.relative_to_baseline;
        if (!q.baseline_kv_cache_dtype.empty() && !has_figure) {
            out.push_back(diag::quality_baseline(
                r.where(q.key("baseline_kv_cache_dtype")), q.baseline_kv_cache_dtype,
                fmt::format("the entry names a baseline run at {} but gives no figure of it: leave "
                            "baseline_kv_cache_dtype out for a plain score of this cache, say relative_to_baseline: "
                            "true when the value is measured against that run, or give the run's own score as "
                            "baseline_value",
                            q.baseline_kv_cache_dtype)));
        } else if (q.baseline_kv_cache_dtype.empty() && has_figure) {
            const char* field = q.relative_to_baseline ? "relative_to_baseline"
                                : q.baseline_value     ? "baseline_value"
                                                       : "recovery_percent";
            out.push_back(diag::quality_baseline(
                r.where(q.key(field)), r.node(q.key(field)) ? r.node(q.key(field))->value : "",
                fmt::format("{} compares with a baseline run, but baseline_kv_cache_dtype does not say which cache "
                            "dtype that run used",
                            field)));
        }
    }
}

KVCAT_RULES(quality_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"quality-recovery", Severity::error,
                 "a quality entry's `recovery_percent` is not value / baseline_value x 100 at the precision it is "
                 "written with",
                 RuleStage::record, quality_recovery},
        RuleInfo{"quality-baseline", Severity::error,
                 "a quality entry names a baseline cache dtype but no figure of that run (a plain score names none), "
                 "or gives a baseline figure without the dtype of its run",
                 RuleStage::record, quality_baseline},
    };
    return kRules;
}

}  // namespace kvcat::rules
