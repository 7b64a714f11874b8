// kvcat columns: what `kvcat query` can filter, sort and show, from kv_row_columns()
// rather than the catalog, so it answers before any catalog exists.
#include <iostream>

#include <spdlog/spdlog.h>

#include "catalog.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/table_output.h"
#include "render.h"
#include "terminal.h"

namespace kvcat::cmd {

namespace {

struct ColumnsOptions {
    Common common;
};

Table columns_table() {
    Table t;
    t.columns = {"name", "type", "unit", "derived", "description"};
    for (const auto& c : kv_row_columns()) {
        // No unit is NULL: "-" in a table, null in JSON, an empty field in CSV.
        Cell unit = c.unit.empty() ? Cell{} : Cell{std::string(c.unit)};
        t.rows.push_back({std::string(c.name), std::string(c.type), unit, std::string(c.derived ? "yes" : "no"),
                          std::string(c.description)});
    }
    return t;
}

int run_columns(const ColumnsOptions& options) {
    std::cout << render_table(columns_table(), *parse_table_format(options.common.format),
                              stdout_render_options("--format vertical", !options.common.no_formula_guard));
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
    sub->footer(
        "derived = yes marks a figure kvcat computed rather than one a source stated.\n"
        "Examples:\n"
        "  kvcat columns\n"
        "  kvcat columns --format csv\n"
        "  kvcat query --columns id,kv_bytes_per_token,roofline_tps 'context_length>=64k'");
    set_command_body(*sub, exit_code, [options] { return run_columns(*options); });
}

}  // namespace kvcat::cmd
