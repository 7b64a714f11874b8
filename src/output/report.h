// The report: the catalog as charts and a table, described as data.
//
// report_content() turns the catalog's rows, its sources and (where the catalog has one)
// its quality table, together with the model and accelerator records, into one JSON
// document: a Vega-Lite spec per chart with its data inline, and the rows for a table.
// The byte figures are kvcat's own (curve.h, kv_math.h, physics.h), so a curve bends
// where a sliding window fills and a hybrid carries its fixed state. Columns are read
// by name: a chart whose columns or table the catalog lacks is left out and says so in
// `notes`, so the report works with older and newer catalogs alike. The page that
// draws this document is report_page.h.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/record_set.h"
#include "support/table.h"

namespace kvcat {

struct ReportInput {
    Table rows;             ///< kv_rows, every column the catalog has (filtered or not)
    bool filtered = false;  ///< rows were filtered: draw only their models and accelerators
    std::map<std::string, std::vector<std::string>> sources;  ///< record id -> source names, in order
    std::map<std::string, std::string> source_urls;           ///< record id -> its first source's address
    std::optional<Table> quality;                             ///< the catalog's quality table, when it has one
    const RecordSet* records = nullptr;                       ///< models and accelerators
    /// The href of a record file as the rows name it ("records/kv-efficiency/x.yaml").
    std::function<std::string(const std::string& file)> link;
    std::string title = "kvcat report";
    std::string generated_by;  ///< "kvcat 0.1.0", shown in the page's header
};

/// {"title", "summary", "charts": [{"id", "title", "description", "spec", "datasets"}],
///  "table": {"columns", "rows", "links"}, "planner": report_planner.h, "notes": [...]}. Each chart's datasets are the
/// rows its marks are drawn from, by dataset name (the CSV downloads and the browser test
/// read them); every mark is named so it can be found in the drawn page.
nlohmann::json report_content(const ReportInput& input);

/// Powers of two from 1k up to `top` (and `top` itself), with `extra` points inside the
/// range (a sliding window, where a curve bends); sorted, no duplicates.
std::vector<std::int64_t> context_grid(std::int64_t top, const std::vector<std::int64_t>& extra);

}  // namespace kvcat
