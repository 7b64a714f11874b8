#include "predict/speed_points.h"

#include <iterator>

#include <fmt/format.h>

#include "load/point_meaning.h"
#include "model/curve.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "predict/nominal_weights.h"
#include "support/suggest.h"
#include "vocab/dtype.h"
#include "vocab/dtype_spelling.h"

namespace kvcat {

namespace {

const Accelerator* accelerator_named_by(const RecordSet& records, const std::string& id) {
    if (id.empty()) return nullptr;
    const Record* r = records.find(id);
    return (r && r->kind == RecordKind::accelerator && r->accelerator) ? &*r->accelerator : nullptr;
}

const Model* model_named_by(const RecordSet& records, const std::string& id) {
    const Record* r = records.find(id);
    return (r && r->kind == RecordKind::model && r->model) ? &*r->model : nullptr;
}

}  // namespace

SpeedSetup speed_setup_of(const RecordSet& records, const KvRow& k, std::int64_t concurrency) {
    SpeedSetup s;
    s.model = k.model;
    s.accelerator = k.accelerator.value_or("");
    const Accelerator* a = accelerator_named_by(records, s.accelerator);
    s.card = a ? a->name : k.accelerator_named.value_or(s.accelerator);
    s.gpus = k.gpus;
    s.engine = k.engine;
    s.engine_version = k.engine_version.value_or("");
    s.weights = k.weight_quant.value_or("");
    s.weight_bytes = k.weight_bytes;
    // The catalog's names (vLLM's fp8 is fp8_e4m3), so a setup is one key however it is spelt.
    s.kv = catalog_dtype(k.engine, k.kv_cache_dtype);
    std::string v = k.v_cache_dtype ? catalog_dtype(k.engine, *k.v_cache_dtype) : "";
    s.v_kv = v == s.kv ? "" : v;
    s.concurrency = concurrency;
    auto spec = speculative_text(k);
    s.speculative = spec && *spec != "off";
    s.offload = k.offload.value_or("");
    return s;
}

namespace {

/// The active weights' bytes: the stated size scaled by active over total parameters, an exact
/// format, or the nominal size of a block format or mix.
std::optional<Rational> active_weights(const Model& m, const SpeedSetup& s) {
    auto exact =
        row_weights(m, s.weights.empty() ? std::nullopt : std::optional<std::string>(s.weights), s.weight_bytes);
    if (exact) return exact->active;
    auto nominal = nominal_weights(s.weights);
    if (!nominal || !m.active_params_b_exact) return std::nullopt;
    return *m.active_params_b_exact * Rational(1'000'000'000) * nominal->bytes_per_weight;
}

}  // namespace

std::string SpeedSetup::key() const {
    return fmt::format("{}|{}|{}|{}|{}|{}/{}|{}|{}|{}", model, card_key(), gpus, engine, weights, kv, v_kv, concurrency,
                       speculative ? "spec" : "", offload);
}

std::string SpeedSetup::kv_text() const {
    return v_kv.empty() ? kv : fmt::format("K {} / V {}", kv, v_kv);
}

std::vector<SpeedPoint> speed_points_of(const Record& r, const RecordSet& refs) {
    std::vector<SpeedPoint> out;
    if (r.kind != RecordKind::kv_efficiency || !r.kv || is_derived(*r.kv)) return out;
    out.reserve(r.kv->points.size());
    for (const MeasurementPoint& p : r.kv->points) {
        PointSpeeds speeds = point_speeds(*r.kv, p);
        SpeedPoint s;
        s.setup = speed_setup_of(refs, *r.kv, p.concurrency);
        s.record_id = r.id;
        s.key_path = p.path;
        s.context = p.context_length;
        s.decode_tps = speeds.measured_tps;
        s.decode_key = "measured_tps_at_ctx";
        if (!s.decode_tps && speeds.measured_total_tps && p.concurrency > 0) {
            s.decode_tps = *speeds.measured_total_tps / static_cast<double>(p.concurrency);
            s.decode_key = "measured_total_tps_at_ctx";
        }
        s.prefill_tps = speeds.measured_prefill_tps;
        s.ttft_ms = speeds.measured_ttft_ms;
        auto positive = [](std::optional<double>& v) {
            if (v && !(*v > 0)) v.reset();
        };
        positive(s.decode_tps);
        positive(s.prefill_tps);
        positive(s.ttft_ms);
        if (s.context <= 0 || (!s.decode_tps && !s.prefill_tps && !s.ttft_ms)) continue;
        out.push_back(std::move(s));
    }
    return out;
}

std::string engine_spelled(std::string_view given, const std::vector<SpeedPoint>& points) {
    for (const SpeedPoint& p : points) {
        if (equal_ignoring_case(p.setup.engine, given)) return p.setup.engine;
    }
    return "";
}

std::vector<SpeedPoint> speed_points(const RecordSet& records) {
    std::vector<SpeedPoint> out;
    for (const Record& r : records.records()) {
        auto mine = speed_points_of(r, records);
        out.insert(out.end(), std::make_move_iterator(mine.begin()), std::make_move_iterator(mine.end()));
    }
    return out;
}

std::optional<double> SpeedPhysics::floor_seconds(const SpeedSetup& s, std::int64_t context) const {
    auto at = std::make_pair(s.key() + fmt::format("|{}", s.weight_bytes.value_or(0)), context);
    if (auto hit = cache_.find(at); hit != cache_.end()) return hit->second;
    std::optional<double> seconds;
    const Model* m = model_named_by(records_, s.model);
    const Accelerator* a = accelerator_named_by(records_, s.accelerator);
    auto bpe = element_bytes(s.kv, s.v_kv.empty() ? std::nullopt : std::optional<std::string>(s.v_kv));
    if (m && a && a->memory_bandwidth_gb_s_exact && bpe) {
        try {
            auto weights = active_weights(*m, s);
            if (weights) {
                Roofline roof = batch_roofline(*a, *weights, kv_cache_bytes(*m, *bpe, context), fixed_state_bytes(*m),
                                               s.concurrency, s.gpus);
                if (!roof.ceiling_tps.is_zero()) seconds = 1.0 / roof.ceiling_tps.to_double();
            }
        } catch (const std::exception&) {
            // A figure missing or too large: no floor, and the prediction says why it has none.
        }
    }
    cache_.emplace(at, seconds);
    return seconds;
}

std::string SpeedPhysics::weights_how(const SpeedSetup& s) const {
    if (s.weight_bytes) return fmt::format("weight_bytes, {}", group_thousands(*s.weight_bytes));
    auto nominal = nominal_weights(s.weights);
    return nominal ? nominal->how : "";
}

std::string SpeedPhysics::vendor(const SpeedSetup& s) const {
    const Accelerator* a = accelerator_named_by(records_, s.accelerator);
    return a ? a->vendor : "";
}

}  // namespace kvcat
