#include "predict/speed_answer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "vocab/dtype.h"
#include "vocab/dtype_spelling.h"

namespace kvcat {

namespace {

double rounded(double v, int digits) {
    double scale = std::pow(10.0, digits);
    return std::round(v * scale) / scale;
}

std::string unit_of(SpeedMeasure m) {
    return m == SpeedMeasure::ttft ? "ms" : "tokens/s";
}

std::string prefix_of(SpeedMeasure m) {
    switch (m) {
        case SpeedMeasure::decode:
            return "decode_tps";
        case SpeedMeasure::prefill:
            return "prefill_tps";
        case SpeedMeasure::ttft:
            return "ttft_ms";
    }
    return "";
}

}  // namespace

double SpeedPart::low() const {
    return interval_of(estimate, width).first;
}

double SpeedPart::high() const {
    return interval_of(estimate, width).second;
}

const SpeedPart* SpeedAnswer::part(SpeedMeasure m) const {
    for (const auto& p : parts) {
        if (p.measure == m) return &p;
    }
    return nullptr;
}

SpeedAnswer predict_speed(const SpeedPredictor& predictor, const SpeedIntervals& intervals, const SpeedSetup& setup,
                          std::int64_t context) {
    SpeedAnswer a;
    a.setup = setup;
    a.context = context;
    if (auto floor = predictor.physics().floor_seconds(setup, context)) a.ceiling_tps = 1.0 / *floor;
    a.weights_how = predictor.physics().weights_how(setup);
    for (SpeedMeasure m : {SpeedMeasure::decode, SpeedMeasure::prefill, SpeedMeasure::ttft}) {
        auto e = predictor.estimate(m, setup, context);
        if (!e) continue;
        SpeedPart part;
        part.measure = m;
        part.width = intervals.width(m, e->basis);
        part.estimate = std::move(*e);
        a.parts.push_back(std::move(part));
    }
    return a;
}

CatalogSpeeds::CatalogSpeeds(const RecordSet& records)
    : physics_(records), predictor_(speed_points(records), physics_), intervals_(predictor_) {}

std::string CatalogSpeeds::engine_named(std::string_view given) const {
    return engine_spelled(given, predictor_.points());
}

nlohmann::json speed_model_json(const SpeedPredictor& predictor, const SpeedIntervals& intervals,
                                const RecordSet& records) {
    using nlohmann::json;
    json curves = json::array();
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    std::set<std::string> engines, vendors;
    json vendor_of = json::object();
    const SpeedPhysics& physics = predictor.physics();
    auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    for (const SpeedPoint& p : predictor.points()) {
        const SpeedSetup& s = p.setup;
        auto [it, added] = index.emplace(std::make_pair(p.record_id, s.key()), curves.size());
        if (added) {
            curves.push_back({{"model", s.model},
                              {"card", s.card_key()},
                              {"gpus", s.gpus},
                              {"engine", s.engine},
                              {"weights", s.weights},
                              {"kv", s.kv},
                              {"v_kv", s.v_kv},
                              {"concurrency", s.concurrency},
                              {"speculative", s.speculative},
                              {"offload", s.offload},
                              {"record", p.record_id},
                              {"points", json::array()}});
            engines.insert(s.engine);
        }
        std::optional<double> share;
        if (p.decode_tps) {
            if (auto f = physics.floor_seconds(s, p.context)) share = (1.0 / *p.decode_tps) / *f;
        }
        curves[it->second]["points"].push_back(json::array(
            {p.context, optional(p.decode_tps), optional(share), optional(p.prefill_tps), optional(p.ttft_ms)}));
    }
    for (const Record& r : records.records()) {
        if (r.kind != RecordKind::accelerator || !r.accelerator) continue;
        vendor_of[r.id] = r.accelerator->vendor;
        vendors.insert(r.accelerator->vendor);
    }
    json efficiency = json::object();
    if (auto all = predictor.median_share("", "", false, false)) efficiency[""] = *all;
    for (const auto& e : engines) {
        if (auto share = predictor.median_share(e, "", false, false)) efficiency[e] = *share;
        for (const auto& v : vendors) {
            if (auto share = predictor.median_share(e, v, false, false)) efficiency[e + "|" + v] = *share;
        }
    }
    json widths = json::object();
    for (SpeedMeasure m : {SpeedMeasure::decode, SpeedMeasure::prefill, SpeedMeasure::ttft}) {
        for (SpeedBasis b : {SpeedBasis::curve_inside, SpeedBasis::curve_outside, SpeedBasis::same_card,
                             SpeedBasis::other_card, SpeedBasis::engine_efficiency}) {
            IntervalWidth w = intervals.width(m, b);
            widths[std::string(measure_name(m))][std::string(basis_name(b))] = json::array({w.below, w.above});
        }
    }
    // The catalog's name of each cache dtype as each engine spells it, as a setup's key uses it.
    json dtype_names = json::object();
    for (const auto& e : engines) {
        for (const auto& d : cache_dtypes()) {
            std::string named = catalog_dtype(e, d.name);
            if (named != d.name) dtype_names[e][std::string(d.name)] = named;
        }
    }
    return {{"curves", curves},
            {"efficiency", efficiency},
            {"vendors", vendor_of},
            {"widths", widths},
            {"dtype_names", dtype_names}};
}

nlohmann::json speed_answer_json(const SpeedAnswer& a) {
    nlohmann::json j = {{"model", a.setup.model},
                        {"accelerator", a.setup.accelerator},
                        {"card", a.setup.card},
                        {"gpus", a.setup.gpus},
                        {"engine", a.setup.engine},
                        {"weight_quant", a.setup.weights},
                        {"kv_cache_dtype", a.setup.kv},
                        {"context_length", a.context},
                        {"concurrency", a.setup.concurrency},
                        {"speculative", a.setup.speculative},
                        {"predicted", true}};
    j["ceiling_tps"] = a.ceiling_tps ? nlohmann::json(rounded(*a.ceiling_tps, 2)) : nlohmann::json(nullptr);
    j["ceiling_weights"] = a.weights_how.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.weights_how);
    for (SpeedMeasure m : {SpeedMeasure::decode, SpeedMeasure::prefill, SpeedMeasure::ttft}) {
        std::string p = prefix_of(m);
        const SpeedPart* part = a.part(m);
        if (!part) {
            for (const char* tail : {"", "_low", "_high"}) j[p + tail] = nullptr;
            j[std::string(measure_name(m)) + "_basis"] = nullptr;
            continue;
        }
        j[p] = rounded(part->estimate.value, 2);
        j[p + "_low"] = rounded(part->low(), 2);
        j[p + "_high"] = rounded(part->high(), 2);
        j[std::string(measure_name(m)) + "_basis"] = basis_name(part->estimate.basis);
        j[std::string(measure_name(m)) + "_how"] = part->estimate.how;
        j[std::string(measure_name(m)) + "_stood_on"] = part->estimate.stood_on;
        j[std::string(measure_name(m)) + "_interval_misses"] = part->width.misses;
    }
    const SpeedPart* decode = a.part(SpeedMeasure::decode);
    j["basis"] = decode ? nlohmann::json(basis_name(decode->estimate.basis)) : nlohmann::json(nullptr);
    return j;
}

std::string speed_answer_text(const SpeedAnswer& a) {
    std::string out =
        fmt::format("{} on {}{} with {}, {} weights, {} cache, at {} tokens{}:\n", a.setup.model, a.setup.card,
                    a.setup.gpus > 1 ? fmt::format(" x {}", a.setup.gpus) : "", a.setup.engine,
                    a.setup.weights.empty() ? "unsaid" : a.setup.weights, a.setup.kv_text(), group_thousands(a.context),
                    a.setup.concurrency > 1 ? fmt::format(", {} requests", a.setup.concurrency) : "");
    for (const SpeedPart& p : a.parts) {
        out += fmt::format("  predicted {:<8} {:>10.2f} {}  (80% interval {:.2f} to {:.2f})\n", measure_name(p.measure),
                           p.estimate.value, unit_of(p.measure), p.low(), p.high());
        out += fmt::format("    basis {}: {}; {}\n", basis_name(p.estimate.basis), basis_title(p.estimate.basis),
                           p.estimate.how);
    }
    if (a.parts.empty()) out += "  no prediction: no measured point reaches this setup\n";
    if (a.ceiling_tps) {
        out += fmt::format(
            "  decode ceiling {:.2f} tokens/s (memory bandwidth / bytes read per token; {}): a bound, "
            "not a prediction\n",
            *a.ceiling_tps, a.weights_how);
    }
    return out;
}

}  // namespace kvcat
