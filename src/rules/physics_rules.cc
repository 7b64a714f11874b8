#include <fmt/format.h>

#include "dtype.h"
#include "kv_math.h"
#include "physics.h"
#include "rules/rules.h"

namespace kvcat::rules {

const Accelerator* accelerator_of(const RecordSet& set, const KvRow& row) {
    if (!row.accelerator) return nullptr;
    const Record* a = set.find(*row.accelerator);
    return (a && a->kind == RecordKind::accelerator && a->accelerator) ? &*a->accelerator : nullptr;
}

namespace {

/// Everything a physics check needs about one row, or nullopt when a figure is missing
/// (no accelerator, a weight format without an exact size, an incomplete model).
struct RowPhysics {
    const Model* model;
    const Accelerator* accelerator;
    WeightQuant quant;
    Rational kv_at_context;
};

std::optional<RowPhysics> physics_of(const RecordSet& set, const KvRow& row) {
    const Model* model = model_of(set, row);
    const Accelerator* accelerator = accelerator_of(set, row);
    if (!model || !accelerator || !row.weight_quant || !row.context_length) {
        return std::nullopt;
    }
    auto quant = find_weight_quant(*row.weight_quant);
    auto dtype = find_cache_dtype(row.kv_cache_dtype);
    if (!quant || !dtype) return std::nullopt;
    // The cache as the model record implies it: a row whose own figure is wrong is already an
    // error, and must not also be judged on that wrong figure.
    auto basis = model_basis(*model);
    if (!basis) return std::nullopt;
    Rational per_token = growing_elements_per_token(*basis) * dtype->bytes_per_element();
    Rational kv = kv_bytes_at_context(*model, per_token, *row.context_length, dtype->bytes_per_element());
    return RowPhysics{model, accelerator, *quant, kv};
}

}  // namespace

void tps_within_roofline(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv || !r.kv->measured_tps_at_ctx_exact) return;
    try {
        auto p = physics_of(set, *r.kv);
        if (!p) return;
        Roofline roof = decode_roofline(*p->model, *p->accelerator, p->quant, p->kv_at_context);
        if (*r.kv->measured_tps_at_ctx_exact > roof.ceiling_tps) {
            std::string how = fmt::format(
                "{} GB/s / ({} bytes of {} weights + {} bytes of KV at {} tokens + {} bytes of fixed state)",
                p->accelerator->memory_bandwidth_gb_s_exact->to_display(), group_thousands(roof.weights.floor()),
                p->quant.name, group_thousands(roof.kv.floor()), group_thousands(*r.kv->context_length),
                group_thousands(roof.fixed_state.floor()));
            out.push_back(diag::above_roofline(r.where("measured_tps_at_ctx"),
                                               r.kv->measured_tps_at_ctx_exact->to_display(),
                                               two_decimals(roof.ceiling_tps), how));
        }
    } catch (const OverflowError&) {
        out.push_back(diag::overflow(r.where("measured_tps_at_ctx"), "the bandwidth ceiling"));
    } catch (const PhysicsError&) {
        // The model or accelerator record lacks a figure; its own findings say which.
    }
}

void fits_in_memory(const Record& r, const RecordSet& set, std::vector<Diagnostic>& out) {
    if (!r.kv || r.kv->offload) return;
    try {
        auto p = physics_of(set, *r.kv);
        if (!p) return;
        Rational weights = resident_weight_bytes(*p->model, p->quant);
        Rational state = fixed_state_bytes(*p->model);
        Rational needed = weights + p->kv_at_context + state;
        Rational memory = memory_bytes(*p->accelerator);
        if (needed > memory) {
            std::string how = fmt::format("{} bytes of {} weights + {} bytes of KV at {} tokens + {} bytes of fixed state",
                                          group_thousands(weights.floor()), p->quant.name,
                                          group_thousands(p->kv_at_context.floor()),
                                          group_thousands(*r.kv->context_length), group_thousands(state.floor()));
            out.push_back(diag::exceeds_memory(r.where("context_length"), group_thousands(needed.floor()),
                                               group_thousands(memory.floor()), how));
        }
    } catch (const OverflowError&) {
        out.push_back(diag::overflow(r.where("context_length"), "the memory needed at this context"));
    } catch (const PhysicsError&) {
    }
}

}  // namespace kvcat::rules
