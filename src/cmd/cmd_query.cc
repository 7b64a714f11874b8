#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog.h"
#include "cmd/catalog_access.h"
#include "cmd/commands.h"
#include "cmd/table_output.h"
#include "filter.h"
#include "render.h"
#include "terminal.h"

namespace kvcat::cmd {

namespace {

struct QueryOptions {
    std::string db = "kvcat.db";
    std::string records = "records";
    std::string format = "table";
    std::vector<std::string> filters;
    std::string columns_text;
    std::string sort;
    bool descending = false;
    bool strict = false;
};

std::vector<std::string> split_columns(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size() && !text.empty()) {
        std::size_t comma = text.find(',', start);
        std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!part.empty()) out.push_back(part);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

int run_query(const QueryOptions& options) {
    QuerySpec spec;
    try {
        for (const auto& f : options.filters) spec.filters.push_back(parse_filter(f));
        spec.columns = split_columns(options.columns_text);
        spec.sort_column = options.sort;
        spec.descending = options.descending;
        BoundSql bound = build_query_sql(spec);
        auto format = parse_table_format(options.format);
        int code = ExitCode::ok;
        auto table = read_fresh_catalog(
            options.db, options.records, [&] { return run_read_only(options.db, bound.sql, bound.parameters); }, code,
            options.strict);
        if (!table) return code;
        std::cout << render_table(*table, *format, stdout_render_options());
        return ExitCode::ok;
    } catch (const FilterError& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return ExitCode::failure;
    }
}

}  // namespace

void setup_query(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<QueryOptions>();
    CLI::App* sub = app.add_subcommand("query", "Filter the catalog's kv-efficiency rows");
    sub->add_option("--db", options->db, "The catalog file")->capture_default_str();
    sub->add_option("--records", options->records, "Where to rebuild the catalog from when it is stale")
        ->capture_default_str();
    std::vector<std::string> formats;
    for (auto f : table_format_names()) formats.emplace_back(f);
    sub->add_option("--format", options->format, "Output format")
        ->check(CLI::IsMember(formats))
        ->capture_default_str();
    // A plain string, split here: a list option would swallow the filters that follow it.
    sub->add_option("--columns", options->columns_text, "Columns to show, comma-separated");
    sub->add_option("--sort", options->sort, "Sort by this column (default: id)");
    sub->add_flag("--desc", options->descending, "Sort descending");
    sub->add_flag("--strict", options->strict,
                  "Fail (exit 1) rather than answer from the last good catalog when records have errors");
    sub->add_option("filters", options->filters, "column OP value, OP one of = != > >= < <= ~ (glob); ANDed");
    sub->footer(
        "Numbers take k and M suffixes in powers of two: 64k = 65536, 1M = 1048576.\n"
        "Examples:\n"
        "  kvcat query attention_variant=hybrid 'context_length>64k'\n"
        "  kvcat query 'model~models/qwen*' --format csv\n"
        "  kvcat query kv_cache_dtype=bf16 --columns id,kv_bytes_per_token --sort kv_bytes_per_token --desc\n"
        "A missing or stale catalog is rebuilt from --records first. When records have errors the catalog as\n"
        "last built answers and stderr says which files kept it behind; one built from another folder is\n"
        "never rebuilt (exit 2).");
    sub->callback([options, &exit_code] { exit_code = run_query(*options); });
}

}  // namespace kvcat::cmd
