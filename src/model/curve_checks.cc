#include "model/curve_checks.h"

#include <cmath>

#include <fmt/format.h>

namespace kvcat {

RiseTolerance rise_tolerance(double before_tps, std::optional<double> before_stddev,
                             std::optional<double> after_stddev) {
    if (before_stddev || after_stddev) {
        double a = before_stddev.value_or(0);
        double b = after_stddev.value_or(0);
        return RiseTolerance{a + b, fmt::format("the stated stddevs ({} + {})", a, b)};
    }
    return RiseTolerance{before_tps * 0.05, fmt::format("5% of {} t/s", before_tps)};
}

std::optional<double> interpolated_tps(std::int64_t c0, double s0, std::int64_t c1, double s1, std::int64_t c) {
    if (c0 == c1 || s0 <= 0 || s1 <= 0) return std::nullopt;
    double t0 = 1.0 / s0;
    double t1 = 1.0 / s1;
    double at = static_cast<double>(c - c0) / static_cast<double>(c1 - c0);
    double t = t0 + (t1 - t0) * at;
    // A speed so small that its time per token passes what a double holds (1e-320 t/s) draws
    // no line: "inf%" and "-nan t/s" are no answer.
    if (!std::isfinite(t) || t <= 0 || !std::isfinite(1.0 / t)) return std::nullopt;
    return 1.0 / t;
}

double off_line_fraction(double expected_tps, double actual_tps) {
    return expected_tps / actual_tps - 1.0;
}

std::optional<TtftVerdict> judge_ttft(std::int64_t prompt_tokens, double prefill_tps, double ttft_ms) {
    if (prompt_tokens <= 0 || prefill_tps <= 0) return std::nullopt;
    TtftVerdict v;
    v.prefill_ms = static_cast<double>(prompt_tokens) / prefill_tps * 1000.0;
    v.low_ms = v.prefill_ms * 0.9;
    v.high_ms = v.prefill_ms * 1.5 + 500.0;
    if (ttft_ms < v.low_ms) {
        v.why =
            "shorter than the prefill it contains, as if part of the prompt was cached or the prefill speed "
            "belongs to another prompt";
        return v;
    }
    if (ttft_ms > v.high_ms) {
        v.why =
            "longer than that prefill and a first step explain, as if the request waited (a queue, a cold "
            "start) or the prefill speed belongs to another prompt";
        return v;
    }
    return std::nullopt;
}

std::optional<CacheRead> implied_cache_read(double added_bytes, double shallow_tps, double deep_tps, double card_gb_s) {
    if (added_bytes <= 0 || shallow_tps <= 0 || deep_tps <= 0 || deep_tps >= shallow_tps || card_gb_s <= 0) {
        return std::nullopt;
    }
    double added_seconds = 1.0 / deep_tps - 1.0 / shallow_tps;
    if (!std::isfinite(added_seconds)) return std::nullopt;
    CacheRead r;
    r.gb_s = added_bytes / added_seconds / 1e9;
    r.fraction = r.gb_s / card_gb_s;
    r.engine_bound = r.fraction < kEngineBoundFraction;
    return r;
}

}  // namespace kvcat
