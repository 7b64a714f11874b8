// A speed at a context nobody measured, from the nearest measurements and the physics between.
//
// Time per token is what the predictor works in: a decoded token's seconds, a prompt token's
// seconds (one over the prompt speed, or the time to first token over the context). Within a
// curve it is close to a straight line in the context (each token reads the cache so far). In
// the order tried, an estimate comes from:
//   1. the curve of the same setup (model, card and count, engine, weights, cache dtype,
//      concurrency, speculation and offload), interpolated between the two nearest contexts, or
//      outside its contexts along the least-squares line through its points; when the setup
//      names a build and only another build was measured, that build's curve moved by what
//      separates the two builds' lines (time per token at no context, and added per token of
//      context) on the other models both were measured on;
//   2. decode only: the same model in another setup, at the share of its roofline it ran at that
//      context, applied to this setup's roofline (so a card with twice the bandwidth, or a
//      cache half the size, moves the figure as the bytes read per token say), the same card
//      preferred to another;
//   3. decode only: the median share of the roofline this engine reached on this vendor's cards.
// The interval comes from how far estimates of the same basis missed points held out of the
// catalog (holdout.h): it is as wide as the catalog has shown such an estimate to be wrong.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "predict/speed_points.h"

namespace kvcat {

enum class SpeedMeasure { decode, prefill, ttft };
std::string_view measure_name(SpeedMeasure m);  ///< "decode", "prefill", "ttft"

enum class SpeedBasis { curve_inside, curve_outside, other_build, same_card, other_card, engine_efficiency };
/// "curve-inside", "curve-outside", "other-build", "same-card", "other-card", "engine-efficiency".
std::string_view basis_name(SpeedBasis b);
/// What a basis means, in a few words, for the table and the page.
std::string_view basis_title(SpeedBasis b);

/// A prediction before its interval: the figure, how it was reached, and what it stood on.
struct RawEstimate {
    double value = 0;  ///< tokens/s for decode and prefill, ms for the time to first token
    SpeedBasis basis = SpeedBasis::curve_inside;
    std::vector<std::string> stood_on;  ///< the records whose points it used
    /// The least and greatest of the figures its records gave one by one: an interval is never
    /// narrower than the disagreement of what it stood on.
    double spread_low = 0;
    double spread_high = 0;
    /// Decode without speculation: the roofline, which no interval passes.
    std::optional<double> ceiling;
    std::string how;  ///< one sentence
};

/// Points a prediction may not use: the ones held out.
using HeldOut = std::function<bool(const SpeedPoint&)>;

/// The catalog's points grouped into curves, one per record and setup.
class SpeedPredictor {
  public:
    SpeedPredictor(std::vector<SpeedPoint> points, const SpeedPhysics& physics);

    /// The estimate at `context`, not using the points `held_out` names; nullopt when nothing
    /// in the catalog reaches this setup.
    std::optional<RawEstimate> estimate(SpeedMeasure measure, const SpeedSetup& setup, std::int64_t context,
                                        const HeldOut& held_out = {}) const;

    /// The first basis only: the curves of this very setup (another build's when one is named),
    /// nullopt when none reaches; cheap, as it reads those curves alone.
    std::optional<RawEstimate> estimate_on_curve(SpeedMeasure measure, const SpeedSetup& setup, std::int64_t context,
                                                 const HeldOut& held_out = {}) const {
        return context > 0 ? same_setup(measure, setup, context, held_out) : std::nullopt;
    }

    const std::vector<SpeedPoint>& points() const { return points_; }

    /// The median share of the roofline (seconds per token over the roofline's) of the curves of
    /// `engine` on `vendor`'s cards ("" for any engine or vendor), with or without speculation and
    /// with or without an offload: one median per curve, then the median of those; nullopt with
    /// fewer than three curves.
    std::optional<double> median_share(const std::string& engine, const std::string& vendor, bool speculative,
                                       bool offloaded, const HeldOut& held_out = {}) const;
    const SpeedPhysics& physics() const { return physics_; }

    /// The measured figure of a point in the measure's unit; nullopt when the point lacks it.
    static std::optional<double> measured(SpeedMeasure measure, const SpeedPoint& p);

  private:
    struct Curve {
        const SpeedSetup* setup = nullptr;
        std::string record_id;
        std::string key;                        ///< setup->key(), worked out once
        std::string vendor;                     ///< its card's vendor; "" when unknown
        std::vector<const SpeedPoint*> points;  ///< in record order
        std::optional<double> share;            ///< the median share of its roofline, every point counted
        /// Per measure (decode, prefill, ttft), every point counted, worked out once: its seconds
        /// line (seconds_line) and that line's least squares (line_of). A prediction that holds
        /// none of the curve's points out reads these; one that holds some out works its own.
        std::array<std::vector<std::pair<double, double>>, 3> seconds;
        std::array<std::optional<std::pair<double, double>>, 3> line;
        /// Its decode points as (context, seconds over the roofline's), every point counted (share_line).
        std::vector<std::pair<double, double>> shares;
    };
    /// Whether `held_out` names any point of the curve.
    static bool holds_out_any(const Curve& c, const HeldOut& held_out);
    /// A point's seconds per token at its roofline, worked out once per point.
    std::optional<double> floor_of(const SpeedPoint* p) const {
        return floors_[static_cast<std::size_t>(p - points_.data())];
    }
    /// The median share of a curve's points that are not held out.
    std::optional<double> curve_share(const Curve& c, const HeldOut& held_out) const;
    /// A curve's decode points not held out as (context, seconds per token over the roofline's),
    /// repeated contexts averaged, in order of context.
    std::vector<std::pair<double, double>> share_line(const Curve& c, const HeldOut& held_out) const;
    struct CurveValue {
        double seconds = 0;  ///< per token
        bool inside = false;
    };
    /// A curve's points not held out as (context, seconds per token), repeated contexts averaged,
    /// in order of context.
    std::vector<std::pair<double, double>> seconds_line(SpeedMeasure measure, const Curve& c,
                                                        const HeldOut& held_out) const;
    /// The least-squares line of a curve: seconds per token at no context, and added per token.
    std::optional<std::pair<double, double>> line_of(SpeedMeasure measure, const Curve& c,
                                                     const HeldOut& held_out) const;
    /// What moves a line of build `from` to build `to` of the setup's engine: the median ratio
    /// of the two lines' terms over the other setups both builds were measured in.
    struct BuildShift {
        double at_zero = 1;
        double per_token = 1;
        std::size_t setups = 0;
    };
    /// `own_key`: the setup's key(), which the caller has made.
    BuildShift build_shift(SpeedMeasure measure, const SpeedSetup& setup, std::string_view own_key,
                           const std::string& from, const HeldOut& held_out) const;
    std::optional<CurveValue> on_curve(SpeedMeasure measure, const Curve& c, std::int64_t context,
                                       const HeldOut& held_out) const;
    std::optional<RawEstimate> same_setup(SpeedMeasure measure, const SpeedSetup& setup, std::int64_t context,
                                          const HeldOut& held_out) const;
    std::optional<RawEstimate> scaled(const SpeedSetup& setup, std::int64_t context, const HeldOut& held_out) const;
    std::optional<RawEstimate> efficiency(const SpeedSetup& setup, std::int64_t context, const HeldOut& held_out) const;

    std::vector<SpeedPoint> points_;
    const SpeedPhysics& physics_;
    std::vector<std::optional<double>> floors_;  ///< per point
    std::vector<Curve> curves_;
    std::multimap<std::string, std::size_t> curves_of_model_;
    std::multimap<std::string, std::size_t> curves_of_key_;
    std::multimap<std::string, std::size_t> curves_of_engine_;  ///< in curve order, for build_shift
};

/// Seconds per token of a measured figure, and back: decode and prefill are one over the speed,
/// the time to first token is spread over the context's tokens.
double seconds_per_token(SpeedMeasure measure, double value, std::int64_t context);
double value_of_seconds(SpeedMeasure measure, double seconds, std::int64_t context);

}  // namespace kvcat
