// The predicted columns of `kvcat query --predicted`: the catalog answers the query, then each
// row's predicted decode speed, its 80% interval, basis and records are filled in by row id from
// the records (predict/row_predictions.h). They are never catalog columns, so a prediction can
// never be read back as a measurement.
#pragma once

#include <string>
#include <vector>

#include "support/table.h"

namespace kvcat::cmd {

/// The columns a query shows, and the ones the catalog is asked for.
struct PredictedColumns {
    std::vector<std::string> shown;  ///< in the order shown, predicted ones included
    std::vector<std::string> asked;  ///< the catalog's columns among them, plus id when not shown
    bool any = false;                ///< some column shown is predicted
};

/// From --columns as given (empty: the default) and --predicted: naming a predicted column asks
/// for it; --predicted alone shows the default predicted view, or adds every predicted column
/// to the columns given.
PredictedColumns plan_predicted_columns(const std::vector<std::string>& given, bool predicted);

/// The catalog's answer with the predicted columns filled in from the records under `records`,
/// in the order `plan.shown` names. Throws std::runtime_error when `records` is not a folder.
Table with_predicted_columns(const Table& answer, const PredictedColumns& plan, const std::string& records);

}  // namespace kvcat::cmd
