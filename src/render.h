// Output formats for result tables. A renderer knows nothing of where rows came from.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "table.h"

namespace kvcat {

enum class TableFormat { table, csv, tsv, json, ndjson, markdown };

/// "table" -> TableFormat::table; nullopt for an unknown name.
std::optional<TableFormat> parse_table_format(std::string_view name);
std::span<const std::string_view> table_format_names();

struct RenderOptions {
    /// Fit the `table` format to this many columns by cutting the widest text columns with
    /// an ellipsis (never numbers, never wrapping). Unset: never cut, as when stdout is a
    /// file or a pipe, where every byte of a value must survive. Other formats ignore it.
    std::optional<std::size_t> max_width;
};

/// Renders the whole table; `table` aligns columns and right-aligns numbers, NULL shows as "-".
std::string render_table(const Table& table, TableFormat format, const RenderOptions& options = {});

/// A cell as plain text: "" for NULL, shortest round-trip form for a real.
std::string cell_text(const Cell& cell);

}  // namespace kvcat
