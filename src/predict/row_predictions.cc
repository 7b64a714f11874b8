#include "predict/row_predictions.h"

#include <utility>

namespace kvcat {

std::map<std::string, RowPrediction> row_predictions(const SpeedPredictor& predictor, const SpeedIntervals& intervals,
                                                     const RecordSet& records) {
    // A measured row's prediction is its case in the point-by-point holdout, interval and all.
    std::vector<HoldoutCase> cases = holdout_cases(predictor, HoldoutMode::point);
    std::map<std::pair<std::string, std::string>, const HoldoutCase*> held;
    for (const HoldoutCase& c : cases) {
        if (c.measure == SpeedMeasure::decode) held[{c.point->record_id, c.point->key_path}] = &c;
    }
    std::map<std::string, RowPrediction> out;
    for (const Record& r : records.records()) {
        if (r.kind != RecordKind::kv_efficiency || !r.kv) continue;
        for (const MeasurementPoint& p : r.kv->points) {
            if (p.context_length <= 0) continue;
            RowPrediction row;
            if (auto h = held.find({r.id, p.path}); h != held.end()) {
                const HoldoutCase& c = *h->second;
                row = {c.estimate.value, c.low, c.high, c.estimate.basis, c.estimate.stood_on, true};
            } else {
                // Not a measured decode point: nothing of it is in the predictor to leave out.
                auto e = predictor.estimate(SpeedMeasure::decode, speed_setup_of(records, *r.kv, p.concurrency),
                                            p.context_length);
                if (!e) continue;
                auto [low, high] = interval_of(*e, intervals.width(SpeedMeasure::decode, e->basis));
                row = {e->value, low, high, e->basis, e->stood_on, false};
            }
            out.emplace(point_row_id(r.id, p), std::move(row));
        }
    }
    return out;
}

}  // namespace kvcat
