// The decode speed the rest of the catalog predicts for each of its own rows.
//
// A row that measured a decode speed is predicted with its own point held out: the figure is
// the one the point-by-point table in docs/prediction.md scores, so a reader can set the two
// side by side. Any other row (a KV-only row, a derived one, a row of prefill alone) is
// predicted from every measured point, as `kvcat predict` would answer for its setup.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "predict/holdout.h"

namespace kvcat {

struct RowPrediction {
    double decode_tps = 0;  ///< one request's decode speed
    double low = 0;         ///< the 80% interval
    double high = 0;
    SpeedBasis basis = SpeedBasis::curve_inside;
    std::vector<std::string> stood_on;  ///< the records it used
    bool held_out = false;              ///< the row's own measured point was left out
};

/// By row id (point_row_id): every kv-efficiency row at a context above zero that some basis
/// reaches; a row nothing reaches is absent.
std::map<std::string, RowPrediction> row_predictions(const SpeedPredictor& predictor, const SpeedIntervals& intervals,
                                                     const RecordSet& records);

}  // namespace kvcat
