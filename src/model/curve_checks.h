// The arithmetic of the curve checks (src/check/rules/curve_rules.cc), apart from any record so it
// can be tested on its own. Speeds and times are measured decimals, so they are doubles; the
// cache bytes come from kv_math exactly and are turned into a double only for the ratio.
//
// The model behind every check: a decode step reads the active weights and the request's
// cache, so its time grows in step with the bytes of cache, which grow linearly with context
// (a sliding window's bytes stop at the window). Time per token, 1 / speed, is therefore a
// straight line in context between any two points of one run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kvcat {

/// How far a decode speed may rise from one context to the next before it is a finding.
struct RiseTolerance {
    double tokens_per_s = 0;
    std::string why;  ///< "the stated stddevs (0.4 + 0.3)" or "5% of 36.4 t/s"
};

/// The stated stddevs of the two points added up when either is stated; otherwise 5% of the
/// earlier speed, above the run-to-run scatter of the catalog's curves that print a stddev
/// (under 3% of the speed), so a rise beyond it is more than noise.
RiseTolerance rise_tolerance(double before_tps, std::optional<double> before_stddev,
                             std::optional<double> after_stddev);

/// The decode speed the straight line of time per token between (c0, s0) and (c1, s1) gives
/// at context c; nullopt when c0 == c1 or a speed is not positive.
std::optional<double> interpolated_tps(std::int64_t c0, double s0, std::int64_t c1, double s1, std::int64_t c);

/// How far a point's time per token is from the expected one, as a fraction of the expected:
/// positive when the point is slower.
double off_line_fraction(double expected_tps, double actual_tps);

/// A point more than this fraction off its curve's line is a finding: far above the scatter
/// of a run (a few percent) and of the line's own error over a span of doubling contexts.
inline constexpr double kOffCurveTolerance = 0.25;

/// What a TTFT should be, given the prefill it contains, when it is not.
struct TtftVerdict {
    double prefill_ms = 0;  ///< prompt / prefill speed
    double low_ms = 0;      ///< the shortest TTFT that still contains that prefill
    double high_ms = 0;     ///< the longest the prefill and a first step explain
    std::string why;
};

/// A TTFT at concurrency 1 holds the prompt's prefill and one decode step (plus tokenising and
/// the network). Shorter than 90% of the prefill it contains (10% for the rounding of both
/// figures) means the prompt was not all computed; longer than 1.5 times it plus 500 ms means
/// something else waited (a queue, a cold start): the first step and overheads of every
/// shipped run at context 0 are under 300 ms. nullopt when the TTFT fits, or prompt is 0.
std::optional<TtftVerdict> judge_ttft(std::int64_t prompt_tokens, double prefill_tps, double ttft_ms);

/// The cache-read bandwidth a fall in decode speed implies.
struct CacheRead {
    double gb_s = 0;      ///< 10^9 bytes per second
    double fraction = 0;  ///< of one card's bandwidth
    bool engine_bound = false;
};

/// Under this fraction of one card's bandwidth, the time a deeper context adds per token is
/// spent elsewhere than in reading its cache (one card: the least any split of the cache can
/// read it at, so the check never calls a run engine-bound that a split would explain).
inline constexpr double kEngineBoundFraction = 0.10;

/// The bytes of cache a deeper point adds, over the time per token it adds (1 / deep - 1 /
/// shallow): the bandwidth at which that cache is read. nullopt when the speed does not fall
/// or no cache is added.
std::optional<CacheRead> implied_cache_read(double added_bytes, double shallow_tps, double deep_tps, double card_gb_s);

}  // namespace kvcat
