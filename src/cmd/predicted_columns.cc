#include "cmd/predicted_columns.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalog/catalog.h"
#include "check/lint.h"
#include "predict/row_predictions.h"
#include "predict/speed_answer.h"

namespace kvcat::cmd {

namespace {

bool is_predicted(const std::string& name) {
    return find_predicted_column(name) != nullptr;
}

/// One predicted cell of a row; null when nothing reaches the row.
Cell predicted_cell(const std::string& column, const RowPrediction* p) {
    if (!p) return Cell{};
    if (column == "predicted_tps_at_ctx") return p->decode_tps;
    if (column == "predicted_tps_low") return p->low;
    if (column == "predicted_tps_high") return p->high;
    if (column == "predicted_basis") return std::string(basis_name(p->basis));
    if (column == "predicted_from") {
        // An engine's median share stands on no record in particular.
        return p->stood_on.empty() ? Cell{} : Cell{fmt::format("{}", fmt::join(p->stood_on, ", "))};
    }
    return Cell{};
}

}  // namespace

PredictedColumns plan_predicted_columns(const std::vector<std::string>& given, bool predicted) {
    PredictedColumns plan;
    plan.shown = given;
    if (plan.shown.empty() && predicted) {
        for (auto name : default_predicted_view()) plan.shown.emplace_back(name);
    } else if (predicted && std::none_of(plan.shown.begin(), plan.shown.end(), is_predicted)) {
        for (const auto& c : predicted_columns()) plan.shown.emplace_back(c.name);
    }
    plan.any = std::any_of(plan.shown.begin(), plan.shown.end(), is_predicted);
    if (!plan.any) {
        plan.asked = given;
        return plan;
    }
    for (const auto& name : plan.shown) {
        if (!is_predicted(name)) plan.asked.push_back(name);
    }
    // The row's id finds its prediction, whether or not it is shown.
    if (std::find(plan.asked.begin(), plan.asked.end(), "id") == plan.asked.end()) plan.asked.emplace_back("id");
    return plan;
}

Table with_predicted_columns(const Table& answer, const PredictedColumns& plan, const std::string& records) {
    std::error_code ec;
    if (!std::filesystem::is_directory(records, ec)) {
        throw std::runtime_error(fmt::format(
            "the predicted columns are worked out from the records, and there is no records folder at {} (give "
            "--records DIR)",
            records));
    }
    LintResult lint = lint_paths({records}, judging_none());
    CatalogSpeeds speeds(lint.records);
    std::map<std::string, RowPrediction> predicted =
        row_predictions(speeds.predictor(), speeds.intervals(), lint.records);

    auto column_of = [&answer](const std::string& name) {
        auto at = std::find(answer.columns.begin(), answer.columns.end(), name);
        return at == answer.columns.end() ? answer.columns.size()
                                          : static_cast<std::size_t>(at - answer.columns.begin());
    };
    std::size_t id_column = column_of("id");
    std::vector<std::size_t> source;  // each shown column's place in the answer; past its end for a predicted one
    for (const auto& name : plan.shown) source.push_back(is_predicted(name) ? answer.columns.size() : column_of(name));
    Table out;
    out.columns = plan.shown;
    for (const auto& row : answer.rows) {
        const RowPrediction* p = nullptr;
        if (id_column < row.size()) {
            if (const auto* id = std::get_if<std::string>(&row[id_column])) {
                if (auto hit = predicted.find(*id); hit != predicted.end()) p = &hit->second;
            }
        }
        std::vector<Cell> cells;
        cells.reserve(plan.shown.size());
        for (std::size_t i = 0; i < plan.shown.size(); ++i) {
            cells.push_back(source[i] < row.size() ? row[source[i]] : predicted_cell(plan.shown[i], p));
        }
        out.rows.push_back(std::move(cells));
    }
    return out;
}

}  // namespace kvcat::cmd
