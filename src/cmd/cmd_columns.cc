// kvcat columns: what `kvcat query` can filter, sort and show (its rows, --allocations or
// --quality), from query_columns() rather than the catalog, so it answers before any catalog
// exists.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include "catalog/catalog.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/table_output.h"
#include "output/render.h"
#include "output/terminal.h"
#include "output/wrap.h"

namespace kvcat::cmd {

namespace {

struct ColumnsOptions {
    Common common;
    bool allocations = false;
    bool quality = false;
    QueryTable table() const {
        return allocations ? QueryTable::allocations : quality ? QueryTable::quality : QueryTable::kv_rows;
    }
};

/// What a query can show: the table's columns, and for the kv-efficiency rows the predicted
/// ones `query --predicted` adds, marked predicted in the derived column.
struct Listed {
    const ColumnInfo* info;
    bool predicted;
    std::string_view derived() const { return predicted ? "predicted" : info->derived ? "yes" : "no"; }
};

std::vector<Listed> listed_columns(QueryTable table) {
    std::vector<Listed> out;
    for (const auto& c : query_columns(table)) out.push_back({&c, false});
    if (table == QueryTable::kv_rows) {
        for (const auto& c : predicted_columns()) out.push_back({&c, true});
    }
    return out;
}

Table columns_table(QueryTable table) {
    Table t;
    t.columns = {"name", "type", "unit", "derived", "description"};
    for (const Listed& l : listed_columns(table)) {
        const ColumnInfo& c = *l.info;
        // No unit is NULL: "-" in a table, null in JSON, an empty field in CSV.
        Cell unit = c.unit.empty() ? Cell{} : Cell{std::string(c.unit)};
        t.rows.push_back(
            {std::string(c.name), std::string(c.type), unit, std::string(l.derived()), std::string(c.description)});
    }
    return t;
}

/// On a terminal too narrow for the table: each column on a line with its type and unit, its
/// description under it, broken at spaces, so that no description is cut.
std::string columns_list(std::size_t width, QueryTable table) {
    std::string out;
    for (const Listed& l : listed_columns(table)) {
        const ColumnInfo& c = *l.info;
        out += fmt::format("{}  ({}{}{})\n", c.name, c.type, c.unit.empty() ? "" : ", " + std::string(c.unit),
                           l.predicted ? ", predicted"
                           : c.derived ? ", derived"
                                       : "");
        out += wrap_text("    " + std::string(c.description), width, 0) + "\n";
    }
    return out;
}

int run_columns(const ColumnsOptions& options) {
    auto format = *parse_table_format(options.common.format);
    RenderOptions render = stdout_render_options("--format vertical", !options.common.no_formula_guard);
    Table table = columns_table(options.table());
    std::string wide = render_table(table, format, RenderOptions{});
    std::size_t widest = 0;
    for (std::size_t at = 0; at < wide.size();) {
        std::size_t nl = wide.find('\n', at);
        if (nl == std::string::npos) nl = wide.size();
        widest = std::max(widest, nl - at);
        at = nl + 1;
    }
    if (format == TableFormat::table && render.max_width && widest > *render.max_width) {
        std::cout << columns_list(*render.max_width, options.table());
    } else {
        std::cout << render_table(table, format, render);
    }
    std::cout.flush();
    if (!std::cout) {
        spdlog::error("cannot write to stdout");
        return ExitCode::failure;
    }
    return ExitCode::ok;
}

}  // namespace

void setup_columns(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<ColumnsOptions>();
    CLI::App* sub = app.add_subcommand("columns", "List the columns query can filter, sort and show, with units");
    add_format_option(*sub, options->common, FormatFamily::table);
    sub->add_flag("--allocations", options->allocations, "The columns of query --allocations");
    sub->add_flag("--quality", options->quality, "The columns of query --quality")->excludes("--allocations");
    sub->footer(
        "derived = yes marks a figure kvcat computed rather than one a source stated.\n"
        "Examples:\n"
        "  kvcat columns\n"
        "  kvcat columns --format csv\n"
        "  kvcat columns --quality\n"
        "  kvcat query --columns id,kv_bytes_per_token,roofline_tps 'context_length>=64k'");
    set_command_body(*sub, exit_code, [options] { return run_columns(*options); });
}

}  // namespace kvcat::cmd
