// Curve checks: a record's points judged against each other. A decode curve is the points of
// one concurrency that give one request's decode speed, in order of context. Reading more
// cache per token can only slow a step down, so a curve that rises, a point far off the line
// between its neighbours, a TTFT shorter than the prefill it contains, or a fall that the
// bytes added cannot explain, is something a reviewer should look at: a transcription slip, a
// cached prefix, a different build, or an engine whose kernels, not its memory, set the pace.
// These are warnings and notes, never errors: a source can print such a curve, and the
// record then acknowledges the finding with lint_ignore naming its claim (the `claim` each
// finding carries, matched whole) and a reason.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "model/curve_checks.h"
#include "model/kv_math.h"
#include "vocab/dtype.h"

namespace kvcat::rules {

namespace {

/// One request's decode speed at one context, with where the record writes it.
struct CurvePoint {
    const MeasurementPoint* point;
    double tps;
};

/// The decode curves of a row, one per concurrency, each in order of context.
std::map<std::int64_t, std::vector<CurvePoint>> decode_curves(const KvRow& row) {
    std::map<std::int64_t, std::vector<CurvePoint>> curves;
    for (const auto& p : row.points) {
        if (p.tps && *p.tps > 0) curves[p.concurrency].push_back(CurvePoint{&p, *p.tps});
    }
    for (auto& [c, points] : curves) {
        std::stable_sort(points.begin(), points.end(), [](const CurvePoint& a, const CurvePoint& b) {
            return a.point->context_length < b.point->context_length;
        });
    }
    return curves;
}

/// "8.5 t/s at 16384": how a finding names the point it is about, for lint_ignore's claim.
std::string point_claim(const CurvePoint& p) {
    return fmt::format("{} t/s at {}", fmt::format("{}", p.tps), p.point->context_length);
}

}  // namespace

void decode_rises_with_context(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    // With speculative decoding a step emits as many tokens as the target accepts, and the
    // acceptance follows the text at each depth, so a deeper point may well be faster.
    if (r.kv->speculative_decoding && !r.kv->speculative_decoding->empty()) return;
    for (const auto& [concurrency, curve] : decode_curves(*r.kv)) {
        for (std::size_t i = 1; i < curve.size(); ++i) {
            const CurvePoint& before = curve[i - 1];
            const CurvePoint& after = curve[i];
            if (after.point->context_length == before.point->context_length) continue;
            RiseTolerance tol = rise_tolerance(before.tps, before.point->tps_stddev, after.point->tps_stddev);
            if (after.tps <= before.tps + tol.tokens_per_s) continue;
            std::string message = fmt::format(
                "decode speed rises with context: {} t/s at {} tokens after {} t/s at {} (concurrency {}), more "
                "than {}; a longer context reads more cache per token and cannot be faster. Look at both cells in "
                "the source: a slip of transcription, two runs of different builds or settings, or a source that "
                "printed it so (then acknowledge it with lint_ignore and this claim)",
                after.tps, after.point->context_length, before.tps, before.point->context_length, concurrency, tol.why);
            Diagnostic d = diag::finding("decode-rises-with-context", r.where(after.point->key("measured_tps_at_ctx")),
                                         std::move(message));
            d.stated = fmt::format("{}", after.tps);
            d.computed = fmt::format("at most {:.2f}", before.tps + tol.tokens_per_s);
            out.push_back(
                diag::with_claim(std::move(d), fmt::format("{} after {}", point_claim(after), point_claim(before))));
        }
    }
}

void decode_off_curve(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    for (const auto& [concurrency, curve] : decode_curves(*r.kv)) {
        // Each interior point against the line between its neighbours. One bad point also
        // bends its neighbours' lines, so only a point further off than both neighbours is
        // reported: the outlier, not the points beside it.
        std::vector<std::optional<double>> expected(curve.size());
        std::vector<double> off(curve.size(), 0.0);
        for (std::size_t i = 1; i + 1 < curve.size(); ++i) {
            expected[i] =
                interpolated_tps(curve[i - 1].point->context_length, curve[i - 1].tps,
                                 curve[i + 1].point->context_length, curve[i + 1].tps, curve[i].point->context_length);
            if (expected[i]) off[i] = off_line_fraction(*expected[i], curve[i].tps);
        }
        for (std::size_t i = 1; i + 1 < curve.size(); ++i) {
            const CurvePoint& left = curve[i - 1];
            const CurvePoint& mid = curve[i];
            const CurvePoint& right = curve[i + 1];
            if (!expected[i] || std::abs(off[i]) <= kOffCurveTolerance) continue;
            if (std::abs(off[i]) < std::abs(off[i - 1]) || std::abs(off[i]) < std::abs(off[i + 1])) continue;
            double offset = off[i];
            // A speed near zero takes more time than a double holds: said in words, not as "inf%".
            std::string how_far =
                std::isfinite(offset) ? fmt::format("{:.0f}%", std::abs(offset) * 100) : std::string("immeasurably");
            std::string message = fmt::format(
                "{} t/s at {} tokens is out of line with its own curve: the line between {} t/s at {} and {} t/s at "
                "{} (time per token grows in step with the cache read) puts it near {:.1f} t/s: it takes {} {} "
                "time per token than that line, beyond the {:.0f}% a run's scatter explains. Look at this cell in the "
                "source and at the "
                "run behind it (another build, a cache that spilled, a different prompt)",
                mid.tps, mid.point->context_length, left.tps, left.point->context_length, right.tps,
                right.point->context_length, *expected[i], how_far, offset > 0 ? "more" : "less",
                kOffCurveTolerance * 100);
            Diagnostic d =
                diag::finding("decode-off-curve", r.where(mid.point->key("measured_tps_at_ctx")), std::move(message));
            d.stated = fmt::format("{}", mid.tps);
            d.computed = fmt::format("{:.1f}", *expected[i]);
            out.push_back(diag::with_claim(std::move(d), point_claim(mid)));
            (void)concurrency;
        }
    }
}

void ttft_prefill_mismatch(const Record& r, const RecordSet& /*refs*/, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    for (const auto& p : r.kv->points) {
        if (p.concurrency != 1 || !p.ttft_ms || !p.prefill_tps || p.prefix_cached.value_or(false)) continue;
        std::int64_t prompt = p.prompt_tokens.value_or(p.context_length);
        auto verdict = judge_ttft(prompt, *p.prefill_tps, *p.ttft_ms);
        if (!verdict) continue;
        std::string message = fmt::format(
            "a TTFT of {} ms at concurrency 1 does not fit a prefill of {} tokens at {} t/s, which takes {:.0f} ms: "
            "{}. Look at whether the prompt was cached (then state prefix_cached: true), whether the two figures "
            "come from runs of different prompts, and the units of both",
            *p.ttft_ms, prompt, *p.prefill_tps, verdict->prefill_ms, verdict->why);
        Diagnostic d =
            diag::finding("ttft-prefill-mismatch", r.where(p.key("measured_ttft_ms_at_ctx")), std::move(message));
        d.stated = fmt::format("{}", *p.ttft_ms);
        d.computed = fmt::format("{:.0f} to {:.0f}", verdict->low_ms, verdict->high_ms);
        out.push_back(diag::with_claim(std::move(d), fmt::format("TTFT {} ms at {}", *p.ttft_ms, p.context_length)));
    }
}

void engine_bound_at_depth(const Record& r, const RecordSet& refs, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    // With weights or cache in host memory the step waits on the host's bus, not the card's,
    // so one card's bandwidth is no yardstick for it.
    if (r.kv->offload) return;
    const Model* model = model_of(refs, *r.kv);
    const Accelerator* accelerator = accelerator_of(refs, *r.kv);
    if (!model || !accelerator || !accelerator->memory_bandwidth_gb_s_exact) return;
    auto bpe = element_bytes(r.kv->kv_cache_dtype, r.kv->v_cache_dtype);
    auto basis = model_basis(*model);
    if (!bpe || !basis) return;
    Rational per_token = growing_bytes_per_token(*basis, *bpe);
    for (const auto& [concurrency, curve] : decode_curves(*r.kv)) {
        if (concurrency != 1 || curve.size() < 2) continue;
        const CurvePoint& shallow = curve.front();
        const CurvePoint& deep = curve.back();
        Rational added = kv_bytes_at_context(*model, per_token, deep.point->context_length, *bpe) -
                         kv_bytes_at_context(*model, per_token, shallow.point->context_length, *bpe);
        double card_gb_s = accelerator->memory_bandwidth_gb_s_exact->to_double();
        auto read = implied_cache_read(added.to_double(), shallow.tps, deep.tps, card_gb_s);
        if (!read || !read->engine_bound) continue;
        std::string message = fmt::format(
            "engine-bound at this depth: decode falls from {} t/s at {} tokens to {} t/s at {}, so the {} more "
            "bytes of cache it reads per token come at {:.1f} GB/s, {:.1f}% of one card's {} GB/s (under the "
            "{:.0f}% that marks a step whose time goes elsewhere than the cache read). The curve measures the "
            "engine's attention at depth, not the cost of its cache; look at the attention backend and kernels "
            "before reading a KV-cost from it",
            shallow.tps, shallow.point->context_length, deep.tps, deep.point->context_length,
            group_thousands(added.floor()), read->gb_s, read->fraction * 100,
            accelerator->memory_bandwidth_gb_s_exact->to_display(), kEngineBoundFraction * 100);
        Diagnostic d =
            diag::finding("engine-bound-at-depth", r.where(deep.point->key("measured_tps_at_ctx")), std::move(message));
        d.stated = fmt::format("{:.1f} GB/s", read->gb_s);
        d.computed = fmt::format("{} GB/s", accelerator->memory_bandwidth_gb_s_exact->to_display());
        out.push_back(diag::with_claim(std::move(d), point_claim(deep)));
    }
}

KVCAT_RULES(curve_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"decode-rises-with-context", Severity::warning,
                 "one request's decode speed rises from one context to the next by more than the stated stddevs "
                 "(or 5% when none is stated); quotes both points. Not applied to speculative decoding, whose speed "
                 "follows the draft's acceptance",
                 RuleStage::record, decode_rises_with_context, true},
        RuleInfo{"decode-off-curve", Severity::warning,
                 "a decode point whose time per token is more than 25% off the straight line between its two "
                 "neighbours on the same curve",
                 RuleStage::record, decode_off_curve, true},
        RuleInfo{"ttft-prefill-mismatch", Severity::warning,
                 "a TTFT at concurrency 1 shorter than 90% of prompt / prefill speed, or longer than 1.5 times it "
                 "plus 500 ms, when both are given and no cached prefix is stated",
                 RuleStage::record, ttft_prefill_mismatch, true},
        RuleInfo{"engine-bound-at-depth", Severity::note,
                 "the cache a curve adds from its shallowest to its deepest point is read at under 10% of one "
                 "card's bandwidth, judged by the fall in decode speed: the engine, not the cache, sets the pace. Not "
                 "applied to a row with an offload",
                 RuleStage::record, engine_bound_at_depth, true},
    };
    return kRules;
}

}  // namespace kvcat::rules
