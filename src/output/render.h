// Output formats for result tables. A renderer knows nothing of where rows came from.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "support/table.h"

namespace kvcat {

/// `vertical` prints one field per line, a block per row (psql's expanded mode).
enum class TableFormat { table, csv, tsv, json, ndjson, markdown, vertical };

/// "table" -> TableFormat::table; nullopt for an unknown name.
std::optional<TableFormat> parse_table_format(std::string_view name);
std::span<const std::string_view> table_format_names();

struct RenderOptions {
    /// Fit the `table` format to this many columns by cutting the widest text columns with
    /// an ellipsis (never numbers, never wrapping). Unset: never cut, as when stdout is a
    /// file or a pipe, where every byte of a value must survive. Other formats ignore it.
    std::optional<std::size_t> max_width;
    /// Shape values for reading, in `table` and `vertical` only: a prefix every cell of a
    /// text column shares is dropped ("kv-efficiency/"), reals show 4 significant digits,
    /// byte counts a binary unit (GiB, MiB). Off in a pipe, where values must stay exact.
    bool readable = false;
    /// The unit of a column by its name ("bytes", "bytes/token", "" when none); unset: none.
    std::function<std::string_view(std::string_view column)> unit_of;
    /// How to see the columns a narrow window left out, for the note under the table.
    std::string_view more_columns_hint = "--columns or --format vertical";
    /// The columns to leave out first when the window is too narrow, by name, the first to go
    /// first; the columns not named go after them, from the right. When set, the note under
    /// the table names the columns left out in the order they went.
    std::vector<std::string_view> drop_order;
    /// Columns that, when left out to fit the window, still get a line under the table saying
    /// the values their rows hold and how many rows hold each ("model: qwen3.5-397b-a17b in 44
    /// rows, qwen3.6-35b-a3b in 3"): what a reader needs to place every row, when the ids that
    /// carry it are cut.
    std::vector<std::string_view> summarize_when_dropped;
    /// The columns were named by the reader (query --columns): a column is left out only when
    /// the others cannot be cut any narrower, ids cut even where two may then look alike
    /// (csv, json or --format vertical show them whole).
    bool asked_columns = false;
    /// Called before each row in every pass over the rows; it may throw to stop the
    /// rendering (a command's time limit), and the exception leaves render_table.
    std::function<void()> each_row;
    /// CSV and TSV: a text cell (or column name) that begins with =, +, -, @, a tab or a
    /// carriage return is written after a ' so that a spreadsheet reads it as text, not as a
    /// formula (OWASP, "CSV Injection"). Numbers are never changed. Off: cells as stored.
    bool formula_guard = true;
    /// The most bytes the rendered text may reach (checked before each row); past it,
    /// render_table throws RenderTooLarge. 0: no limit.
    std::size_t max_bytes = 0;
};

/// The rendered answer would pass RenderOptions::max_bytes.
struct RenderTooLarge : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// `text` with a leading ' when it begins with a character a spreadsheet takes as the start
/// of a formula (=, +, -, @, tab, carriage return); else unchanged.
std::string formula_guarded(std::string text);

/// Renders the whole table; `table` aligns columns and right-aligns numbers, NULL shows as "-".
std::string render_table(const Table& table, TableFormat format, const RenderOptions& options = {});

/// A byte count in binary units at 4 significant digits: 2281701376 -> "2.125 GiB",
/// 10240 -> "10 KiB", 512 -> "512 B".
std::string human_bytes(double bytes);

/// A cell as plain text: "" for NULL, shortest round-trip form for a real.
std::string cell_text(const Cell& cell);

}  // namespace kvcat
