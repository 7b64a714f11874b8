#include "predict/speed_predictor.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

namespace kvcat {

namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double geometric_mean(const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += std::log(x);
    return std::exp(sum / static_cast<double>(v.size()));
}

/// Points of one curve as (context, seconds), contexts distinct (repeats averaged), sorted.
using Line = std::vector<std::pair<double, double>>;

/// `kept` (a curve's line with every point counted) when `held` is false; else the line `work`
/// gives without the held-out points, kept in `own`.
template <class Work>
const Line& unless_held_out(const Line& kept, bool held, Line& own, Work&& work) {
    if (!held) return kept;
    own = work();
    return own;
}

Line merged(Line line) {
    std::sort(line.begin(), line.end());
    Line out;
    std::size_t i = 0;
    while (i < line.size()) {
        std::size_t j = i;
        double sum = 0;
        for (; j < line.size() && line[j].first == line[i].first; ++j) sum += line[j].second;
        out.emplace_back(line[i].first, sum / static_cast<double>(j - i));
        i = j;
    }
    return out;
}

/// The value at x between the two nearest points; nullopt outside the line's span.
std::optional<double> interpolate(const Line& line, double x) {
    if (line.empty() || x < line.front().first || x > line.back().first) return std::nullopt;
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
        const auto& [x0, y0] = line[i];
        const auto& [x1, y1] = line[i + 1];
        if (x >= x0 && x <= x1) return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    }
    return line.front().second;  // a line of one point, asked at that point
}

/// The least-squares line through a line's points: (value at no context, slope); nullopt with
/// fewer than two contexts.
std::optional<std::pair<double, double>> least_squares(const Line& line) {
    if (line.size() < 2) return std::nullopt;
    double n = static_cast<double>(line.size());
    double mx = 0, my = 0;
    for (const auto& [px, py] : line) {
        mx += px / n;
        my += py / n;
    }
    double sxx = 0, sxy = 0;
    for (const auto& [px, py] : line) {
        sxx += (px - mx) * (px - mx);
        sxy += (px - mx) * (py - my);
    }
    if (!(sxx > 0)) return std::nullopt;
    double slope = sxy / sxx;
    return std::make_pair(my - slope * mx, slope);
}

/// The value at x outside the line's span: along the least-squares line through every point when
/// it rises with the context, else the nearest end's value.
double extrapolate(const Line& line, double x) {
    const auto& nearest = x < line.front().first ? line.front() : line.back();
    auto fit = least_squares(line);
    if (!fit || !(fit->second > 0)) return nearest.second;
    // Through the nearest end, at the fitted slope: the end is measured; the slope is the curve's.
    return nearest.second + fit->second * (x - nearest.first);
}

/// Sets the estimate's value (the geometric mean) and spread from each source's seconds per token.
void set_from_seconds(RawEstimate& e, SpeedMeasure measure, const std::vector<double>& seconds, std::int64_t context) {
    e.value = value_of_seconds(measure, geometric_mean(seconds), context);
    auto [least, most] = std::minmax_element(seconds.begin(), seconds.end());
    double a = value_of_seconds(measure, *least, context), b = value_of_seconds(measure, *most, context);
    e.spread_low = std::min(a, b);
    e.spread_high = std::max(a, b);
}

std::string records_text(const std::vector<std::string>& ids) {
    std::string out;
    for (std::size_t i = 0; i < ids.size() && i < 3; ++i) out += (i ? ", " : "") + ids[i];
    if (ids.size() > 3) out += fmt::format(" and {} more", ids.size() - 3);
    return out;
}

}  // namespace

std::string_view measure_name(SpeedMeasure m) {
    switch (m) {
        case SpeedMeasure::decode:
            return "decode";
        case SpeedMeasure::prefill:
            return "prefill";
        case SpeedMeasure::ttft:
            return "ttft";
    }
    return "";
}

std::string_view basis_name(SpeedBasis b) {
    switch (b) {
        case SpeedBasis::curve_inside:
            return "curve-inside";
        case SpeedBasis::curve_outside:
            return "curve-outside";
        case SpeedBasis::other_build:
            return "other-build";
        case SpeedBasis::same_card:
            return "same-card";
        case SpeedBasis::other_card:
            return "other-card";
        case SpeedBasis::engine_efficiency:
            return "engine-efficiency";
    }
    return "";
}

std::string_view basis_title(SpeedBasis b) {
    switch (b) {
        case SpeedBasis::curve_inside:
            return "the same setup's curve, between two measured contexts";
        case SpeedBasis::curve_outside:
            return "the same setup's curve, beyond its measured contexts";
        case SpeedBasis::other_build:
            return "the same setup in another build of the engine, moved as the two builds differ elsewhere";
        case SpeedBasis::same_card:
            return "the same model and card in another setup, scaled by the bytes read";
        case SpeedBasis::other_card:
            return "the same model on another card, scaled by the bytes read and bandwidth";
        case SpeedBasis::engine_efficiency:
            return "the engine's median share of the roofline on this vendor's cards";
    }
    return "";
}

double seconds_per_token(SpeedMeasure measure, double value, std::int64_t context) {
    if (measure == SpeedMeasure::ttft) return value / 1000.0 / static_cast<double>(context);
    return 1.0 / value;
}

double value_of_seconds(SpeedMeasure measure, double seconds, std::int64_t context) {
    if (measure == SpeedMeasure::ttft) return seconds * 1000.0 * static_cast<double>(context);
    return 1.0 / seconds;
}

std::optional<double> SpeedPredictor::measured(SpeedMeasure measure, const SpeedPoint& p) {
    switch (measure) {
        case SpeedMeasure::decode:
            return p.decode_tps;
        case SpeedMeasure::prefill:
            return p.prefill_tps;
        case SpeedMeasure::ttft:
            return p.ttft_ms;
    }
    return std::nullopt;
}

SpeedPredictor::SpeedPredictor(std::vector<SpeedPoint> points, const SpeedPhysics& physics)
    : points_(std::move(points)), physics_(physics) {
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    for (const SpeedPoint& p : points_) {
        std::string key = p.setup.key();
        auto [it, added] = index.emplace(std::make_pair(p.record_id, key), curves_.size());
        if (added) {
            curves_of_model_.emplace(p.setup.model, it->second);
            curves_of_key_.emplace(key, it->second);
            curves_of_engine_.emplace(p.setup.engine, it->second);
            curves_.push_back(Curve{&p.setup, p.record_id, std::move(key), "", {}, std::nullopt, {}, {}, {}});
        }
        curves_[it->second].points.push_back(&p);
    }
    floors_.reserve(points_.size());
    for (const SpeedPoint& p : points_) floors_.push_back(physics_.floor_seconds(p.setup, p.context));
    for (Curve& c : curves_) {
        c.vendor = physics_.vendor(*c.setup);
        c.share = curve_share(c, {});
        c.shares = share_line(c, {});
        for (SpeedMeasure m : {SpeedMeasure::decode, SpeedMeasure::prefill, SpeedMeasure::ttft}) {
            auto i = static_cast<std::size_t>(m);
            c.seconds[i] = seconds_line(m, c, {});
            c.line[i] = least_squares(c.seconds[i]);
        }
    }
}

bool SpeedPredictor::holds_out_any(const Curve& c, const HeldOut& held_out) {
    return held_out && std::any_of(c.points.begin(), c.points.end(), [&](const SpeedPoint* p) { return held_out(*p); });
}

std::optional<double> SpeedPredictor::curve_share(const Curve& c, const HeldOut& held_out) const {
    std::vector<double> shares;
    for (const SpeedPoint* p : c.points) {
        if (!p->decode_tps || (held_out && held_out(*p))) continue;
        if (auto f = floor_of(p)) shares.push_back((1.0 / *p->decode_tps) / *f);
    }
    if (shares.empty()) return std::nullopt;
    return median_of(shares);
}

std::vector<std::pair<double, double>> SpeedPredictor::share_line(const Curve& c, const HeldOut& held_out) const {
    Line line;
    for (const SpeedPoint* p : c.points) {
        if (!p->decode_tps || (held_out && held_out(*p))) continue;
        auto f = floor_of(p);
        if (f) line.emplace_back(static_cast<double>(p->context), (1.0 / *p->decode_tps) / *f);
    }
    return merged(std::move(line));
}

std::vector<std::pair<double, double>> SpeedPredictor::seconds_line(SpeedMeasure measure, const Curve& c,
                                                                    const HeldOut& held_out) const {
    Line line;
    for (const SpeedPoint* p : c.points) {
        auto v = measured(measure, *p);
        if (!v || (held_out && held_out(*p))) continue;
        line.emplace_back(static_cast<double>(p->context), seconds_per_token(measure, *v, p->context));
    }
    return merged(std::move(line));
}

std::optional<SpeedPredictor::CurveValue> SpeedPredictor::on_curve(SpeedMeasure measure, const Curve& c,
                                                                   std::int64_t context,
                                                                   const HeldOut& held_out) const {
    Line own;
    const Line& line = unless_held_out(c.seconds[static_cast<std::size_t>(measure)], holds_out_any(c, held_out), own,
                                       [&] { return seconds_line(measure, c, held_out); });
    if (line.empty()) return std::nullopt;
    double x = static_cast<double>(context);
    if (auto inside = interpolate(line, x)) return CurveValue{*inside, true};
    double seconds = extrapolate(line, x);
    if (!(seconds > 0)) return std::nullopt;
    return CurveValue{seconds, false};
}

std::optional<std::pair<double, double>> SpeedPredictor::line_of(SpeedMeasure measure, const Curve& c,
                                                                 const HeldOut& held_out) const {
    if (!holds_out_any(c, held_out)) return c.line[static_cast<std::size_t>(measure)];
    return least_squares(seconds_line(measure, c, held_out));
}

SpeedPredictor::BuildShift SpeedPredictor::build_shift(SpeedMeasure measure, const SpeedSetup& setup,
                                                       std::string_view own_key, const std::string& from,
                                                       const HeldOut& held_out) const {
    // Setups other than this one measured in both builds: their key (a view of the curve's own,
    // which lives as long as the predictor), and each build's line.
    std::map<std::string_view,
             std::pair<std::optional<std::pair<double, double>>, std::optional<std::pair<double, double>>>>
        both;
    auto [first, last] = curves_of_engine_.equal_range(setup.engine);
    for (auto it = first; it != last; ++it) {
        const Curve& c = curves_[it->second];
        const SpeedSetup& s = *c.setup;
        if (c.key == own_key) continue;
        if (s.engine_version != from && s.engine_version != setup.engine_version) continue;
        auto line = line_of(measure, c, held_out);
        if (!line || !(line->first > 0) || !(line->second > 0)) continue;
        auto& slot = both[c.key];
        (s.engine_version == from ? slot.first : slot.second) = line;
    }
    std::vector<double> at_zero, per_token;
    for (const auto& [key, lines] : both) {
        if (!lines.first || !lines.second) continue;
        at_zero.push_back(lines.second->first / lines.first->first);
        per_token.push_back(lines.second->second / lines.first->second);
    }
    BuildShift shift;
    shift.setups = at_zero.size();
    if (shift.setups == 0) return shift;
    shift.at_zero = median_of(at_zero);
    shift.per_token = median_of(per_token);
    return shift;
}

std::optional<RawEstimate> SpeedPredictor::same_setup(SpeedMeasure measure, const SpeedSetup& setup,
                                                      std::int64_t context, const HeldOut& held_out) const {
    std::vector<std::pair<const Curve*, CurveValue>> found;
    const std::string key = setup.key();
    auto [from, to] = curves_of_key_.equal_range(key);
    for (auto it = from; it != to; ++it) {
        const Curve& c = curves_[it->second];
        if (auto v = on_curve(measure, c, context, held_out)) found.emplace_back(&c, *v);
    }
    if (found.empty()) return std::nullopt;
    // A build the setup names is its own curve; another build's stands in only when it is missing.
    const std::string& build = setup.engine_version;
    bool same_build =
        std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.first->setup->engine_version == build; });
    bool other_build = !build.empty() && !same_build;
    bool any_inside = std::any_of(found.begin(), found.end(), [&](const auto& f) {
        return f.second.inside && (!same_build || f.first->setup->engine_version == build);
    });
    std::vector<double> seconds;
    std::vector<std::string> notes;
    RawEstimate e;
    for (const auto& [c, v] : found) {
        if (same_build && c->setup->engine_version != build) continue;
        if (v.inside != any_inside) continue;
        double at = v.seconds;
        if (other_build) {
            BuildShift shift = build_shift(measure, setup, key, c->setup->engine_version, held_out);
            auto line = line_of(measure, *c, held_out);
            if (shift.setups > 0 && line) {
                double moved = at + (shift.at_zero - 1) * line->first +
                               (shift.per_token - 1) * line->second * static_cast<double>(context);
                if (moved > 0) at = moved;
                notes.push_back(fmt::format("{} moved to {} as {} other setup{} show", c->setup->engine_version, build,
                                            shift.setups, shift.setups == 1 ? "" : "s"));
            }
        }
        seconds.push_back(at);
        e.stood_on.push_back(c->record_id);
    }
    e.basis =
        other_build ? SpeedBasis::other_build : (any_inside ? SpeedBasis::curve_inside : SpeedBasis::curve_outside);
    set_from_seconds(e, measure, seconds, context);
    e.how = fmt::format("{} on the measured curve of {}{}",
                        any_inside ? "interpolated between the two nearest contexts" : "extended beyond its contexts",
                        records_text(e.stood_on), notes.empty() ? "" : " (" + notes.front() + ")");
    return e;
}

std::optional<RawEstimate> SpeedPredictor::scaled(const SpeedSetup& setup, std::int64_t context,
                                                  const HeldOut& held_out) const {
    auto floor = physics_.floor_seconds(setup, context);
    if (!floor) return std::nullopt;
    std::string key = setup.key();
    using Rank = std::tuple<int, int, int, int, int>;
    std::map<Rank, std::vector<std::pair<double, std::string>>> by_rank;
    auto [from, to] = curves_of_model_.equal_range(setup.model);
    for (auto it = from; it != to; ++it) {
        const Curve& c = curves_[it->second];
        const SpeedSetup& s = *c.setup;
        // A run with part of the model off the card is paced by its host as much as its card: it
        // stands in only for another offloaded run on the same card and count (the same rig).
        bool offloaded = !s.offload.empty() || !setup.offload.empty();
        bool same_rig = s.card_key() == setup.card_key() && s.gpus == setup.gpus;
        if (c.key == key || s.speculative != setup.speculative ||
            (offloaded && (s.offload.empty() != setup.offload.empty() || !same_rig)))
            continue;
        // (context, seconds over the roofline's seconds): worked out at the start unless a point of
        // the curve is held out.
        Line own;
        const Line& line =
            unless_held_out(c.shares, holds_out_any(c, held_out), own, [&] { return share_line(c, held_out); });
        if (line.empty()) continue;
        double x = static_cast<double>(context);
        double share = interpolate(line, x).value_or(x < line.front().first ? line.front().second : line.back().second);
        Rank rank{same_rig ? 0 : 1, s.concurrency == setup.concurrency ? 0 : 1, s.engine == setup.engine ? 0 : 1,
                  s.weights == setup.weights ? 0 : 1, s.kv == setup.kv && s.v_kv == setup.v_kv ? 0 : 1};
        by_rank[rank].emplace_back(share, c.record_id);
    }
    if (by_rank.empty()) return std::nullopt;
    const auto& [rank, best] = *by_rank.begin();
    std::vector<double> shares;
    RawEstimate e;
    for (const auto& [share, id] : best) {
        shares.push_back(share);
        e.stood_on.push_back(id);
    }
    double slower = geometric_mean(shares);
    e.basis = std::get<0>(rank) == 0 ? SpeedBasis::same_card : SpeedBasis::other_card;
    std::vector<double> seconds;
    for (double share : shares) seconds.push_back(share * *floor);
    set_from_seconds(e, SpeedMeasure::decode, seconds, context);
    e.how = fmt::format(
        "the roofline here ({:.2f} tokens/s) x {:.3f}, the share of its roofline {} reached at this "
        "context",
        1.0 / *floor, 1.0 / slower, records_text(e.stood_on));
    return e;
}

std::optional<double> SpeedPredictor::median_share(const std::string& engine, const std::string& vendor,
                                                   bool speculative, bool offloaded, const HeldOut& held_out) const {
    // The median of each curve first, so a 64-point sweep counts as one curve.
    std::vector<double> medians;
    for (const Curve& c : curves_) {
        if (c.setup->speculative != speculative || c.setup->offload.empty() == offloaded) continue;
        if (!engine.empty() && c.setup->engine != engine) continue;
        if (!vendor.empty() && c.vendor != vendor) continue;
        // The share worked out at the start stands unless a point of the curve is held out.
        auto share = holds_out_any(c, held_out) ? curve_share(c, held_out) : c.share;
        if (share) medians.push_back(*share);
    }
    if (medians.size() < 3) return std::nullopt;
    return median_of(medians);
}

std::optional<RawEstimate> SpeedPredictor::efficiency(const SpeedSetup& setup, std::int64_t context,
                                                      const HeldOut& held_out) const {
    auto floor = physics_.floor_seconds(setup, context);
    if (!floor) return std::nullopt;
    std::string vendor = physics_.vendor(setup);
    std::string over = fmt::format("{} on {} cards", setup.engine, vendor);
    bool offloaded = !setup.offload.empty();
    auto share =
        vendor.empty() ? std::nullopt : median_share(setup.engine, vendor, setup.speculative, offloaded, held_out);
    if (!share) {
        share = median_share(setup.engine, "", setup.speculative, offloaded, held_out);
        over = setup.engine;
    }
    if (!share) {
        share = median_share("", "", setup.speculative, offloaded, held_out);
        over = "every engine";
    }
    if (offloaded) over += ", with part of the model off the card";
    if (!share) return std::nullopt;
    RawEstimate e;
    e.basis = SpeedBasis::engine_efficiency;
    e.value = 1.0 / (*share * *floor);
    e.spread_low = e.spread_high = e.value;
    e.how = fmt::format(
        "the roofline here ({:.2f} tokens/s) x {:.3f}, the median share of the roofline of the measured "
        "curves of {}",
        1.0 / *floor, 1.0 / *share, over);
    return e;
}

std::optional<RawEstimate> SpeedPredictor::estimate(SpeedMeasure measure, const SpeedSetup& setup, std::int64_t context,
                                                    const HeldOut& held_out) const {
    if (context <= 0) return std::nullopt;
    auto e = same_setup(measure, setup, context, held_out);
    if (!e && measure == SpeedMeasure::decode) e = scaled(setup, context, held_out);
    if (!e && measure == SpeedMeasure::decode) e = efficiency(setup, context, held_out);
    if (e && measure == SpeedMeasure::decode && !setup.speculative) {
        if (auto floor = physics_.floor_seconds(setup, context)) e->ceiling = 1.0 / *floor;
    }
    return e;
}

}  // namespace kvcat
