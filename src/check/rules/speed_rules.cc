// A pasted speed judged against the rest of the catalog: each measured decode point is predicted
// with its whole record left out, from the other records of the same setup (kvcat predict's
// curve-inside basis: between two contexts they measured), and a figure more than twice or less
// than half what every one of them gives is a warning naming both. decode-off-curve judges a point against its
// own record's neighbours; this rule judges a record against the others, which is where a slip
// in a new record shows (a total taken for one request's speed, a cell from the wrong row). A
// run rule: it needs every record's points, which the lint keeps (not the rows) as it reads.
#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "predict/speed_predictor.h"

namespace kvcat::rules {

namespace {

/// How far from the prediction a point must lie, as a factor either way. Held out point by point,
/// the shipped records' predictions from their own curves miss by 12% at the 90th percentile
/// (docs/prediction.md), so twice or half is far beyond a run's scatter; a fixed factor also
/// keeps the check linear in the rows, with no intervals to learn.
constexpr double kFar = 2.0;

std::string contexts_of(const SpeedPredictor& predictor, const std::vector<std::string>& records) {
    std::vector<std::int64_t> contexts;
    for (const SpeedPoint& p : predictor.points()) {
        if (std::find(records.begin(), records.end(), p.record_id) != records.end()) contexts.push_back(p.context);
    }
    std::sort(contexts.begin(), contexts.end());
    contexts.erase(std::unique(contexts.begin(), contexts.end()), contexts.end());
    if (contexts.empty()) return "";
    return fmt::format(" (measured from {} to {} tokens)", group_thousands(contexts.front()),
                       group_thousands(contexts.back()));
}

Diagnostic far_finding(const SpeedPredictor& predictor, const SpeedPoint& p, const RawEstimate& e, const Position& at) {
    std::string stood_on;
    for (const auto& id : e.stood_on) stood_on += (stood_on.empty() ? "" : ", ") + id;
    bool per_request = p.decode_key == "measured_tps_at_ctx";
    std::string figure = per_request
                             ? fmt::format("{:.4g} t/s", *p.decode_tps)
                             : fmt::format("{:.4g} t/s a request ({} requests)", *p.decode_tps, p.setup.concurrency);
    std::string message = fmt::format(
        "{} at {} tokens is {} what any other record of this setup gives there: they predict {:.4g} t/s, "
        "interpolated on {}{}. Check the cell against the source (one request's speed or the total, the row, the "
        "unit), or say in "
        "lint_ignore what makes this run differ",
        figure, group_thousands(p.context), *p.decode_tps > e.value ? "more than twice" : "less than half", e.value,
        stood_on, contexts_of(predictor, e.stood_on));
    Diagnostic d = diag::finding("decode-far-from-prediction", at, std::move(message));
    d.stated = fmt::format("{:.4g}", *p.decode_tps);
    d.computed = fmt::format("{:.4g}", e.value);
    std::string claim = fmt::format("{:.4g} t/s at {}", *p.decode_tps, p.context);
    if (p.setup.concurrency > 1) claim += fmt::format(" with {} requests", p.setup.concurrency);
    return diag::with_claim(std::move(d), std::move(claim));
}

}  // namespace

RowSpeeds row_speeds(const Record& r, const RecordSet& refs) {
    RowSpeeds row;
    row.file = r.file;
    row.points = speed_points_of(r, refs);
    for (const SpeedPoint& p : row.points) row.decode_at.push_back(r.where(p.key_path + p.decode_key));
    if (r.kv) {
        for (const LintIgnore& ig : r.kv->lint_ignore) {
            const RuleInfo* rule = find_rule_info(ig.rule);
            if (!rule || rule->stage != RuleStage::run) continue;  // the record's own checks judge the rest
            row.ignores.push_back(ig);
            row.ignore_at.push_back(r.source ? r.source->position(ig.mark) : Position{r.file, 0, 0});
        }
    }
    return row;
}

void decode_far_from_prediction(std::vector<RowSpeeds> rows, const RecordSet& refs, std::vector<Diagnostic>& out,
                                std::vector<Diagnostic>& ignored) {
    std::vector<SpeedPoint> points;
    std::vector<std::pair<std::size_t, std::size_t>> origin;  // (row, point of the row)
    std::size_t count = 0;
    for (const RowSpeeds& row : rows) count += row.points.size();
    points.reserve(count);
    origin.reserve(count);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        for (std::size_t j = 0; j < rows[i].points.size(); ++j) {
            points.push_back(std::move(rows[i].points[j]));
            origin.emplace_back(i, j);
        }
    }
    SpeedPhysics physics(refs);
    SpeedPredictor predictor(std::move(points), physics);
    std::set<std::pair<std::size_t, std::size_t>> used;
    std::set<std::size_t> judged;  // rows with a point this run could predict from other records
    for (std::size_t n = 0; n < predictor.points().size(); ++n) {
        const SpeedPoint& p = predictor.points()[n];
        if (!p.decode_tps) continue;
        auto e = predictor.estimate_on_curve(SpeedMeasure::decode, p.setup, p.context,
                                             [&p](const SpeedPoint& q) { return q.record_id == p.record_id; });
        if (!e || e->basis != SpeedBasis::curve_inside) continue;
        judged.insert(origin[n].first);
        // Far from every other record at once: where they disagree among themselves, the point is
        // judged against the nearest of them.
        double least = std::min(e->value, e->spread_low), most = std::max(e->value, e->spread_high);
        if (*p.decode_tps >= least / kFar && *p.decode_tps <= most * kFar) continue;
        const auto [row_index, point_index] = origin[n];
        const RowSpeeds& row = rows[row_index];
        Diagnostic d = far_finding(predictor, p, *e, row.decode_at[point_index]);
        auto k = claim_acknowledgement(row.ignores, d);
        if (!k) {
            out.push_back(std::move(d));
            continue;
        }
        used.emplace(row_index, *k);
        d.severity = Severity::note;
        d.message += fmt::format(" (acknowledged: {})", row.ignores[*k].reason);
        ignored.push_back(std::move(d));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        for (std::size_t k = 0; k < rows[i].ignores.size(); ++k) {
            const LintIgnore& ig = rows[i].ignores[k];
            // Unjudged (a lint of one file, a setup no other record shares): nothing to say yet.
            if (used.count({i, k}) || !judged.count(i)) continue;
            out.push_back(diag::ignore_problem(
                rows[i].ignore_at[k],
                ig.claim.empty() || ig.reason.empty()
                    ? fmt::format("lint_ignore for '{}' needs the claim it acknowledges (claim: \"...\") and a reason",
                                  ig.rule)
                    : fmt::format("lint_ignore for the {} claim \"{}\" acknowledges nothing: no finding of this "
                                  "record claims exactly that",
                                  ig.rule, squeezed_claim(ig.claim))));
        }
    }
}

KVCAT_RULES(speed_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"decode-far-from-prediction", Severity::warning,
                 "a decode point more than twice or less than half what every other record of its setup gives "
                 "between two contexts it measured (`kvcat predict`'s curve); judged against the whole records "
                 "root",
                 RuleStage::run, nullptr, true},
    };
    return kRules;
}

}  // namespace kvcat::rules
