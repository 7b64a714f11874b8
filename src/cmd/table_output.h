// How the commands that print tables (query, sql, curve, columns) shape them for stdout:
// fitted and readable on a terminal, exact in a pipe.
#pragma once

#include "catalog/catalog.h"
#include "output/render.h"
#include "output/terminal.h"

namespace kvcat::cmd {

/// Render options for stdout: the terminal's width and readable values when it is one,
/// with each kv_rows column's unit (so byte columns show GiB and MiB). `more_columns_hint`
/// names the options that show what a narrow window left out; `formula_guard` is false
/// under --no-formula-guard.
inline RenderOptions stdout_render_options(std::string_view more_columns_hint = "--columns or --format vertical",
                                           bool formula_guard = true) {
    RenderOptions options;
    options.formula_guard = formula_guard;
    options.more_columns_hint = more_columns_hint;
    options.max_width = stdout_terminal_width();
    options.readable = stdout_is_terminal();
    options.unit_of = [](std::string_view column) {
        const ColumnInfo* info = find_column(column);
        return info ? info->unit : std::string_view{};
    };
    return options;
}

}  // namespace kvcat::cmd
