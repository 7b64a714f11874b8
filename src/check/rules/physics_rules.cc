#include <fmt/format.h>

#include "check/findings.h"
#include "check/rules/rules.h"
#include "load/load_findings.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "vocab/dtype.h"

namespace kvcat::rules {

const Accelerator* accelerator_of(const RecordSet& set, const KvRow& row) {
    if (!row.accelerator) return nullptr;
    const Record* a = set.find(*row.accelerator);
    return (a && a->kind == RecordKind::accelerator && a->accelerator) ? &*a->accelerator : nullptr;
}

namespace {

/// Everything a physics check needs about one point of a row, or nullopt when a figure is
/// missing (no accelerator, an incomplete model). Weights of no exact size count as none.
struct PointPhysics {
    const Model* model;
    const Accelerator* accelerator;
    RowWeights weights;
    Rational kv_at_context;  ///< one request's cache at the point's context
    Rational fixed_state;    ///< one request's state
};

std::optional<PointPhysics> physics_of(const RecordSet& set, const KvRow& row, const MeasurementPoint& point) {
    const Model* model = model_of(set, row);
    const Accelerator* accelerator = accelerator_of(set, row);
    if (!model || !accelerator) return std::nullopt;
    auto weights = row_weights(*model, row.weight_quant, row.weight_bytes);
    if (!weights) {
        // A mixed recipe (Q4_K_M), MXFP4 or a format kvcat cannot size: the weights are counted as
        // none, so the cache and the state alone bound the speed and the memory. A looser bound,
        // but a true one; before, both rules passed such a row in silence (99,999 t/s on an RTX 4090).
        weights = RowWeights{
            Rational(0), Rational(0),
            fmt::format("weights ({}: no exact size, counted as none)", row.weight_quant.value_or("no format named"))};
    }
    auto bpe = element_bytes(row.kv_cache_dtype, row.v_cache_dtype);
    if (!bpe) return std::nullopt;
    // The cache as the model record implies it: a row whose own figure is wrong is already an
    // error, and must not also be judged on that wrong figure.
    auto basis = model_basis(*model);
    if (!basis) return std::nullopt;
    Rational per_token = growing_bytes_per_token(*basis, *bpe);
    Rational kv = kv_bytes_at_context(*model, per_token, point.context_length, *bpe);
    // The state in the dtypes the row's engine used, when it says.
    return PointPhysics{model, accelerator, *weights, kv, fixed_state_bytes(*model, row)};
}

/// The per-request terms of a sum at this point (physics.h).
std::string per_request_terms(const PointPhysics& p, const MeasurementPoint& point) {
    return kvcat::per_request_terms(p.kv_at_context, p.fixed_state, point.context_length, point.concurrency);
}

}  // namespace

void tps_above_roofline(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv) return;
    // With speculative decoding a step can emit several tokens a request (each accepted draft
    // token), so one token per read of the weights and the cache bounds nothing.
    if (r.kv->speculative_decoding && !r.kv->speculative_decoding->empty()) return;
    for (const auto& point : r.kv->points) {
        if (!point.tps_exact && !point.total_tps_exact) continue;
        try {
            auto p = physics_of(set, *r.kv, point);
            if (!p) return;
            Roofline roof = batch_roofline(*p->accelerator, p->weights.active, p->kv_at_context, p->fixed_state,
                                           point.concurrency, r.kv->gpus);
            // Requests decoding together share each step: their total is at most concurrency x
            // what each can reach.
            Rational total_ceiling = roof.ceiling_tps * Rational(point.concurrency);
            if (point.total_tps_exact && *point.total_tps_exact > total_ceiling) {
                std::string how =
                    fmt::format("{} requests x {}", point.concurrency,
                                roofline_how(*p->accelerator, roof, p->weights.label, p->kv_at_context, p->fixed_state,
                                             point.context_length, point.concurrency, r.kv->gpus));
                out.push_back(diag::above_roofline(r.where(point.key("measured_total_tps_at_ctx")),
                                                   point.total_tps_exact->to_display(), two_decimals(total_ceiling),
                                                   how, "measured_total_tps_at_ctx"));
            }
            if (point.tps_exact && *point.tps_exact > roof.ceiling_tps) {
                std::string how = roofline_how(*p->accelerator, roof, p->weights.label, p->kv_at_context,
                                               p->fixed_state, point.context_length, point.concurrency, r.kv->gpus);
                out.push_back(diag::above_roofline(r.where(point.key("measured_tps_at_ctx")),
                                                   point.tps_exact->to_display(), two_decimals(roof.ceiling_tps), how));
            }
        } catch (const OverflowError&) {
            out.push_back(diag::overflow(r.where(point.key("measured_tps_at_ctx")), "the bandwidth ceiling"));
        } catch (const PhysicsError&) {
            return;  // the model or accelerator record lacks a figure; its own findings say which
        }
    }
}

void exceeds_memory(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv || r.kv->offload) return;
    for (const auto& point : r.kv->points) {
        try {
            auto p = physics_of(set, *r.kv, point);
            if (!p) return;
            Rational n(point.concurrency);
            Rational needed = p->weights.resident + (p->kv_at_context + p->fixed_state) * n;
            // The cards' memories add up: the weights and the cache are split over them.
            Rational memory = memory_bytes(*p->accelerator) * Rational(r.kv->gpus);
            if (needed > memory) {
                std::string how = fmt::format("{} bytes of {} + {}", group_thousands(p->weights.resident.floor()),
                                              p->weights.label, per_request_terms(*p, point));
                if (r.kv->gpus > 1) {
                    how += fmt::format(", against {} cards of {} bytes each", r.kv->gpus,
                                       group_thousands(memory_bytes(*p->accelerator).floor()));
                }
                constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
                out.push_back(diag::exceeds_memory(r.where(point.key("context_length")),
                                                   group_thousands(needed.floor()), group_thousands(memory.floor()),
                                                   how, needed.to_double() / kGiB, memory.to_double() / kGiB));
            }
        } catch (const OverflowError&) {
            out.push_back(diag::overflow(r.where(point.key("context_length")), "the memory needed at this context"));
        } catch (const PhysicsError&) {
            return;
        }
    }
}

KVCAT_RULES(physics_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"tps-above-roofline", Severity::error,
                 "`measured_tps_at_ctx` above memory bandwidth / (active weights + concurrency x (KV at the context + "
                 "fixed state)), or `measured_total_tps_at_ctx` above concurrency times that; judged per point, the "
                 "ceiling is printed. Weights of no exact size (Q4_K_M, MXFP4) count as none, so the cache bounds "
                 "alone; not applied to speculative decoding, which emits several tokens a step",
                 RuleStage::record, tps_above_roofline},
        RuleInfo{
            "exceeds-memory", Severity::warning,
            "weights + KV at the context + fixed state exceed the accelerator's memory and no `offload` is stated; "
            "weights of no exact size count as none",
            RuleStage::record, exceeds_memory},
    };
    return kRules;
}

}  // namespace kvcat::rules
