// Proof by holding out: each point, each whole curve and each card-and-model pair left out of
// the catalog in turn and predicted from the rest, and the intervals those misses give.
//
// A held-out case's interval is calibrated on the misses of other cases only (of the same
// basis, held out the same way, from other card-and-model pairs), so the coverage a table
// prints is the coverage a new point would see, not the fit of the intervals to themselves.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "predict/speed_predictor.h"

namespace kvcat {

enum class HoldoutMode { point, curve, pair };
std::string_view holdout_name(HoldoutMode m);  ///< "point", "curve", "pair"
std::optional<HoldoutMode> find_holdout(std::string_view name);

struct HoldoutCase {
    SpeedMeasure measure = SpeedMeasure::decode;
    RawEstimate estimate;
    const SpeedPoint* point = nullptr;
    double measured = 0;
    double low = 0;  ///< the 80% interval, calibrated on other pairs' misses
    double high = 0;
    /// ln(predicted / measured): what an interval is built from.
    double log_error() const;
    /// |predicted - measured| / measured.
    double abs_error() const;
    bool covered() const { return measured >= low && measured <= high; }
};

/// Every measured figure predicted with its own point, curve or pair left out, with its interval.
std::vector<HoldoutCase> holdout_cases(const SpeedPredictor& predictor, HoldoutMode mode);

/// The 80% interval of a value from the misses of its basis: the 10th and 90th percentile of
/// ln(predicted / measured), widened to hold the value itself.
struct IntervalWidth {
    double below = 1;        ///< low = value x below
    double above = 1;        ///< high = value x above
    std::size_t misses = 0;  ///< how many held-out misses it was taken from
};
IntervalWidth interval_width(std::vector<double> log_errors);

/// An estimate's 80% interval, (low, high): its value times its basis' width, never narrower
/// than the spread of what it stood on, and for decode without speculation never above the
/// roofline. Both the held-out table and every answer take it from here.
std::pair<double, double> interval_of(const RawEstimate& e, const IntervalWidth& w);

/// Interval widths per measure and basis, learned from the held-out misses of every mode (of at
/// most 4,000 points each, at an even stride, on a larger catalog).
class SpeedIntervals {
  public:
    explicit SpeedIntervals(const SpeedPredictor& predictor);
    /// With fewer than ten misses of its basis, the misses of every basis of the measure.
    IntervalWidth width(SpeedMeasure measure, SpeedBasis basis) const;

  private:
    std::map<std::pair<SpeedMeasure, SpeedBasis>, std::vector<double>> misses_;
    std::map<SpeedMeasure, std::vector<double>> all_;
};

struct ErrorSummary {
    std::size_t n = 0;
    double median_abs_error = 0;
    double p90_abs_error = 0;
    double coverage_80 = 0;  ///< the share of cases whose interval held the measured value
};
ErrorSummary summarize(std::span<const HoldoutCase* const> cases);

/// {"decode": {"n", "median_abs_error", "p90_abs_error", "coverage_80", "by_basis": {...},
/// "by_engine": {...}}, "prefill": ..., "ttft": ...} for one mode's cases.
nlohmann::json holdout_json(const std::vector<HoldoutCase>& cases);

/// One CSV line per case (with a header): what was held out, predicted, measured and stood on.
std::string holdout_csv(HoldoutMode mode, const std::vector<HoldoutCase>& cases, bool header);

/// The same as a Markdown table, one row per measure, basis and engine.
std::string holdout_markdown(HoldoutMode mode, const std::vector<HoldoutCase>& cases);

}  // namespace kvcat
