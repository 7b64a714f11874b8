#include "predict/holdout.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

namespace kvcat {

namespace {

constexpr SpeedMeasure kMeasures[] = {SpeedMeasure::decode, SpeedMeasure::prefill, SpeedMeasure::ttft};
constexpr std::size_t kFewestMisses = 10;
constexpr double kTail = 0.05;
/// The points a command's intervals are learned from, per way of holding out: all of them up to
/// this many (the shipped catalog has about 1,500), an even stride of them beyond, so a single
/// prediction on a catalog of 100,000 points takes seconds, not minutes. `--holdout` takes all.
constexpr std::size_t kMostCalibrationPoints = 4000;

/// The q-th quantile of sorted values, interpolated between neighbours.
double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    double at = q * static_cast<double>(sorted.size() - 1);
    auto i = static_cast<std::size_t>(at);
    if (i + 1 >= sorted.size()) return sorted.back();
    return sorted[i] + (sorted[i + 1] - sorted[i]) * (at - static_cast<double>(i));
}

std::string pair_of(const SpeedPoint& p) {
    return p.setup.model + "|" + p.setup.card_key();
}

HeldOut held_out_for(HoldoutMode mode, const SpeedPoint& target) {
    switch (mode) {
        case HoldoutMode::point:
            return [&target](const SpeedPoint& q) { return &q == &target; };
        case HoldoutMode::curve:
            return [&target](const SpeedPoint& q) { return q.record_id == target.record_id; };
        case HoldoutMode::pair:
            return [&target](const SpeedPoint& q) {
                return q.setup.model == target.setup.model && q.setup.card_key() == target.setup.card_key();
            };
    }
    return {};
}

/// Raw cases: every measured figure predicted without the points `mode` holds out with it; with
/// `most` set, the points taken at an even stride so that at most that many are predicted.
std::vector<HoldoutCase> raw_cases(const SpeedPredictor& predictor, HoldoutMode mode, std::size_t most = 0) {
    std::vector<HoldoutCase> out;
    const auto& points = predictor.points();
    std::size_t stride = most == 0 || points.size() <= most ? 1 : (points.size() + most - 1) / most;
    for (std::size_t i = 0; i < points.size(); i += stride) {
        const SpeedPoint& p = points[i];
        HeldOut held_out = held_out_for(mode, p);
        for (SpeedMeasure m : kMeasures) {
            auto v = SpeedPredictor::measured(m, p);
            if (!v) continue;
            auto e = predictor.estimate(m, p.setup, p.context, held_out);
            if (!e) continue;
            HoldoutCase c;
            c.measure = m;
            c.estimate = std::move(*e);
            c.point = &p;
            c.measured = *v;
            out.push_back(std::move(c));
        }
    }
    return out;
}

void set_interval(HoldoutCase& c, const IntervalWidth& w) {
    std::tie(c.low, c.high) = interval_of(c.estimate, w);
}

nlohmann::json summary_json(const ErrorSummary& s) {
    return {{"n", s.n},
            {"median_abs_error", std::round(s.median_abs_error * 10000) / 10000},
            {"p90_abs_error", std::round(s.p90_abs_error * 10000) / 10000},
            {"coverage_80", std::round(s.coverage_80 * 10000) / 10000}};
}

}  // namespace

std::string_view holdout_name(HoldoutMode m) {
    switch (m) {
        case HoldoutMode::point:
            return "point";
        case HoldoutMode::curve:
            return "curve";
        case HoldoutMode::pair:
            return "pair";
    }
    return "";
}

std::optional<HoldoutMode> find_holdout(std::string_view name) {
    for (HoldoutMode m : {HoldoutMode::point, HoldoutMode::curve, HoldoutMode::pair}) {
        if (holdout_name(m) == name) return m;
    }
    return std::nullopt;
}

double HoldoutCase::log_error() const {
    return std::log(estimate.value / measured);
}

double HoldoutCase::abs_error() const {
    return std::fabs(estimate.value - measured) / measured;
}

IntervalWidth interval_width(std::vector<double> log_errors) {
    IntervalWidth w;
    w.misses = log_errors.size();
    if (log_errors.empty()) return w;
    std::sort(log_errors.begin(), log_errors.end());
    // measured = predicted / exp(log_error): the largest errors bound the interval from below.
    w.below = std::exp(-std::max(quantile(log_errors, 1 - kTail), 0.0));
    w.above = std::exp(-std::min(quantile(log_errors, kTail), 0.0));
    return w;
}

std::pair<double, double> interval_of(const RawEstimate& e, const IntervalWidth& w) {
    double low = std::min(e.value * w.below, e.spread_low);
    double high = std::max(e.value * w.above, e.spread_high);
    if (e.ceiling) high = std::min(high, std::max(*e.ceiling, e.value));
    return {low, high};
}

std::vector<HoldoutCase> holdout_cases(const SpeedPredictor& predictor, HoldoutMode mode) {
    std::vector<HoldoutCase> cases = raw_cases(predictor, mode);
    // Each case's interval from the misses of its basis on other pairs only.
    std::map<std::pair<SpeedMeasure, SpeedBasis>, std::vector<std::size_t>> by_basis;
    std::map<SpeedMeasure, std::vector<std::size_t>> by_measure;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        by_basis[{cases[i].measure, cases[i].estimate.basis}].push_back(i);
        by_measure[cases[i].measure].push_back(i);
    }
    std::vector<double> errors(cases.size());
    std::vector<std::string> pairs(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        errors[i] = cases[i].log_error();
        pairs[i] = pair_of(*cases[i].point);
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
        auto others = [&](const std::vector<std::size_t>& pool) {
            std::vector<double> v;
            for (std::size_t j : pool) {
                if (pairs[j] != pairs[i]) v.push_back(errors[j]);
            }
            return v;
        };
        std::vector<double> v = others(by_basis[{cases[i].measure, cases[i].estimate.basis}]);
        if (v.size() < kFewestMisses) v = others(by_measure[cases[i].measure]);
        set_interval(cases[i], interval_width(std::move(v)));
    }
    return cases;
}

SpeedIntervals::SpeedIntervals(const SpeedPredictor& predictor) {
    for (HoldoutMode mode : {HoldoutMode::point, HoldoutMode::curve, HoldoutMode::pair}) {
        for (const HoldoutCase& c : raw_cases(predictor, mode, kMostCalibrationPoints)) {
            misses_[{c.measure, c.estimate.basis}].push_back(c.log_error());
            all_[c.measure].push_back(c.log_error());
        }
    }
}

IntervalWidth SpeedIntervals::width(SpeedMeasure measure, SpeedBasis basis) const {
    auto it = misses_.find({measure, basis});
    if (it != misses_.end() && it->second.size() >= kFewestMisses) return interval_width(it->second);
    auto all = all_.find(measure);
    return interval_width(all == all_.end() ? std::vector<double>{} : all->second);
}

ErrorSummary summarize(std::span<const HoldoutCase* const> cases) {
    ErrorSummary s;
    s.n = cases.size();
    if (cases.empty()) return s;
    std::vector<double> errors;
    std::size_t covered = 0;
    for (const HoldoutCase* c : cases) {
        errors.push_back(c->abs_error());
        if (c->covered()) ++covered;
    }
    std::sort(errors.begin(), errors.end());
    s.median_abs_error = quantile(errors, 0.5);
    s.p90_abs_error = quantile(errors, 0.9);
    s.coverage_80 = static_cast<double>(covered) / static_cast<double>(cases.size());
    return s;
}

nlohmann::json holdout_json(const std::vector<HoldoutCase>& cases) {
    nlohmann::json out = nlohmann::json::object();
    for (SpeedMeasure m : kMeasures) {
        std::vector<const HoldoutCase*> all;
        std::map<std::string, std::vector<const HoldoutCase*>> by_basis, by_engine;
        for (const HoldoutCase& c : cases) {
            if (c.measure != m) continue;
            all.push_back(&c);
            by_basis[std::string(basis_name(c.estimate.basis))].push_back(&c);
            by_engine[c.point->setup.engine].push_back(&c);
        }
        nlohmann::json entry = summary_json(summarize(all));
        entry["by_basis"] = nlohmann::json::object();
        for (const auto& [name, v] : by_basis) entry["by_basis"][name] = summary_json(summarize(v));
        entry["by_engine"] = nlohmann::json::object();
        for (const auto& [name, v] : by_engine) entry["by_engine"][name] = summary_json(summarize(v));
        out[std::string(measure_name(m))] = std::move(entry);
    }
    return out;
}

std::string holdout_csv(HoldoutMode mode, const std::vector<HoldoutCase>& cases, bool header) {
    std::string out = header ? "held_out,measure,record_id,context_length,concurrency,engine,basis,predicted,measured,"
                               "low,high,abs_error,covered,stood_on\n"
                             : "";
    for (const HoldoutCase& c : cases) {
        std::string stood_on;
        for (const auto& id : c.estimate.stood_on) stood_on += (stood_on.empty() ? "" : " ") + id;
        out += fmt::format("{},{},{},{},{},{},{},{:.4g},{:.4g},{:.4g},{:.4g},{:.4f},{},{}\n", holdout_name(mode),
                           measure_name(c.measure), c.point->record_id, c.point->context, c.point->setup.concurrency,
                           c.point->setup.engine, basis_name(c.estimate.basis), c.estimate.value, c.measured, c.low,
                           c.high, c.abs_error(), c.covered() ? 1 : 0, stood_on);
    }
    return out;
}

std::string holdout_markdown(HoldoutMode mode, const std::vector<HoldoutCase>& cases) {
    nlohmann::json j = holdout_json(cases);
    std::string out = fmt::format("| held out: {} | cases | median error | 90th percentile | 80% interval held |\n",
                                  holdout_name(mode));
    out += "|---|---:|---:|---:|---:|\n";
    auto row = [&](const std::string& label, const nlohmann::json& s) {
        out += fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {:.1f}% |\n", label, s["n"].get<std::size_t>(),
                           s["median_abs_error"].get<double>() * 100, s["p90_abs_error"].get<double>() * 100,
                           s["coverage_80"].get<double>() * 100);
    };
    for (SpeedMeasure m : kMeasures) {
        const nlohmann::json& e = j[std::string(measure_name(m))];
        if (e["n"].get<std::size_t>() == 0) continue;
        row(fmt::format("**{}, all**", measure_name(m)), e);
        for (const auto& [name, s] : e["by_basis"].items()) row(fmt::format("{}: basis {}", measure_name(m), name), s);
        for (const auto& [name, s] : e["by_engine"].items())
            row(fmt::format("{}: engine {}", measure_name(m), name), s);
    }
    return out;
}

}  // namespace kvcat
