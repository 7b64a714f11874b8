#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "catalog/catalog.h"
#include "catalog/filter.h"
#include "cmd/catalog_access.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/predicted_columns.h"
#include "cmd/query_hints.h"
#include "cmd/table_output.h"
#include "output/render.h"
#include "output/terminal.h"
#include "support/suggest.h"

namespace kvcat::cmd {

namespace {

struct QueryOptions {
    Common common;
    std::vector<std::string> filters;
    std::string columns_text;
    std::string sort;
    bool descending = false;
    bool strict = false;
    int timeout_ms = static_cast<int>(kDefaultStatementTimeout.count());
    std::optional<std::int64_t> limit;
    std::string distinct;
    bool allocations = false;
    bool quality = false;
    bool predicted = false;
};

int run_query(const QueryOptions& options) {
    QuerySpec spec;
    spec.table = options.allocations ? QueryTable::allocations
                 : options.quality   ? QueryTable::quality
                                     : QueryTable::kv_rows;
    for (const auto& f : options.filters) spec.filters.push_back(parse_filter(f, spec.table));
    PredictedColumns predicted = plan_predicted_columns(split_commas(options.columns_text), options.predicted);
    if (predicted.any && spec.table != QueryTable::kv_rows) {
        throw FilterError("the predicted columns are the kv-efficiency rows'; leave out --allocations and --quality");
    }
    if (predicted.any && !options.distinct.empty()) {
        throw FilterError("--distinct counts the catalog's values; leave out the predicted columns");
    }
    spec.columns = predicted.asked;
    spec.sort_column = options.sort;
    spec.descending = options.descending;
    spec.limit = options.limit;
    if (!options.distinct.empty() && !spec.columns.empty()) {
        throw FilterError("--distinct COLUMN shows that column and its counts; leave out --columns");
    }
    BoundSql bound = options.distinct.empty() ? build_query_sql(spec) : build_distinct_sql(spec, options.distinct);
    auto format = parse_table_format(options.common.format);
    const Common& c = options.common;
    int code = ExitCode::ok;
    QueryLimits limits;
    if (options.timeout_ms > 0) limits.timeout = std::chrono::milliseconds(options.timeout_ms);  // from its start
    limits.max_result_bytes = kQueryMaxOutputBytes;
    limits.max_memory_bytes = kReadOnlyMemoryBytes;
    auto table = read_fresh_catalog(
        c.db, c.records, [&] { return run_read_only(c.db, bound.sql, bound.parameters, limits); }, code,
        options.strict);
    if (!table) return code;
    if (predicted.any) {
        try {
            *table = with_predicted_columns(*table, predicted, c.records);
        } catch (const std::runtime_error& e) {
            spdlog::error("{}", e.what());
            return ExitCode::failure;
        }
    }
    RenderOptions render = stdout_render_options("--columns or --format vertical", !c.no_formula_guard);
    render.max_bytes = kQueryMaxOutputBytes;
    render.asked_columns = !options.columns_text.empty();
    render.unit_of = [table = spec.table](std::string_view column) {
        const ColumnInfo* info = find_column(column, table);
        if (!info) info = find_predicted_column(column);
        return info ? info->unit : std::string_view{};
    };
    if (predicted.any && options.columns_text.empty()) {
        // The predicted view: the setup goes first, the figures it compares last.
        render.drop_order = {"weight_quant", "gpus", "kv_cache_dtype",  "engine",
                             "concurrency",  "card", "predicted_basis", "context_length"};
        render.summarize_when_dropped = {"card", "gpus"};
    } else if (spec.columns.empty() && options.distinct.empty()) {
        auto order = default_query_drop_order(spec.table);
        // A column the question sorts by is what it asked for: it is never left out to fit.
        std::vector<std::string> sorted_by;
        for (std::string key : split_commas(spec.sort_column)) {
            if (key[0] == '-' || key[0] == '+') key.erase(0, 1);
            if (!key.empty()) sorted_by.push_back(key);
        }
        for (auto name : order) {
            if (std::find(sorted_by.begin(), sorted_by.end(), name) == sorted_by.end()) {
                render.drop_order.emplace_back(name);
            }
        }
        // The model and the card place a row; a narrow window leaves their columns out (the id
        // names them, cut), so a line says which the rows hold.
        if (spec.table == QueryTable::kv_rows) render.summarize_when_dropped = {"model", "card", "gpus", "speculative"};
    }
    std::string text;
    try {
        text = render_table(*table, *format, render);
    } catch (const RenderTooLarge&) {
        spdlog::error("the answer, written as {}, is larger than {} MiB; narrow it with filters or --columns", c.format,
                      kQueryMaxOutputBytes >> 20);
        return ExitCode::failure;
    }
    std::cout << text;
    std::cout.flush();
    if (spec.limit && static_cast<std::int64_t>(table->rows.size()) == *spec.limit) {
        QuerySpec all = spec;
        all.limit.reset();
        BoundSql count = options.distinct.empty() ? build_query_sql(all) : build_distinct_sql(all, options.distinct);
        Table total = run_read_only(c.db, "SELECT count(*) FROM (" + count.sql + ")", count.parameters, limits);
        const auto* n = total.rows.empty() ? nullptr : std::get_if<std::int64_t>(&total.rows[0][0]);
        if (n && *n > *spec.limit) spdlog::info("the first {} of {} rows (--limit {})", *spec.limit, *n, *spec.limit);
    }
    explain_what_was_left_out(c.db, spec, table->rows.empty());
    return ExitCode::ok;
}

}  // namespace

void setup_query(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<QueryOptions>();
    CLI::App* sub = app.add_subcommand("query", "Filter the catalog's kv-efficiency rows, or its allocation records");
    add_db_option(*sub, options->common, DbUse::read);
    add_records_option(*sub, options->common, RecordsUse::rebuild);
    add_format_option(*sub, options->common, FormatFamily::table);
    // A plain string, split here: a list option would swallow the filters that follow it.
    sub->add_option("--columns", options->columns_text, "Columns to show, comma-separated");
    sub->add_option(
        "--sort", options->sort,
        "Sort by these columns, comma-separated, -COLUMN descending (default: id, its context as a number)");
    sub->add_flag("--desc", options->descending, "Sort the keys written without a sign descending");
    sub->add_option("--limit", options->limit, "Show at most this many rows")->check(CLI::PositiveNumber);
    sub->add_option("--distinct", options->distinct,
                    "Show the values of this column among the rows kept, with how many rows hold each");
    sub->add_flag("--allocations", options->allocations,
                  "Query the allocation records (what an engine printed at start-up, beside kvcat's figure) instead "
                  "of the kv-efficiency rows");
    sub->add_flag("--quality", options->quality,
                  "Query the quality results (perplexity, KL divergence, recovery at context) of the kv-efficiency "
                  "records, with K's and V's cache dtypes, instead of their rows")
        ->excludes("--allocations");
    sub->add_flag("--predicted", options->predicted,
                  "Show each row's decode speed as the rest of the catalog predicts it (predicted_tps_at_ctx, its 80% "
                  "interval, basis and records; a measured row's own point left out), beside the measured one")
        ->excludes("--allocations")
        ->excludes("--quality")
        ->excludes("--distinct");
    sub->add_flag("--strict", options->strict,
                  "Fail (exit 1) rather than answer from the last good catalog when records have errors");
    sub->add_option("--timeout", options->timeout_ms, "Stop the statement after this many milliseconds (0: never)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_option("filters", options->filters,
                    "column OP value, OP one of = != > >= < <= ~ (glob); ANDed; a,b is either; null is no value "
                    "('column is null', 'column is not null' too)");
    sub->footer(
        "Numbers take k and M suffixes in powers of two (64k = 65536, 1M = 1048576) and may carry the column's\n"
        "unit (memory_gb>=24GB, roofline_fraction<50%, kv_bytes_at_context<2GiB). With = != and ~ a comma list\n"
        "is any of its values; null tests for no value. Record ids may leave out their folder.\n"
        "Examples:\n"
        "  kvcat query attention_variant=hybrid 'context_length>64k'\n"
        "  kvcat query kv_cache_dtype=fp8,bf16 accelerator=nvidia-rtx-4090\n"
        "  kvcat query measured_tps_at_ctx!=null 'roofline_fraction<50%'\n"
        "  kvcat query 'model~models/qwen*' --format csv\n"
        "  kvcat query kv_cache_dtype=bf16 --columns id,kv_bytes_per_token --sort kv_bytes_per_token --desc\n"
        "  kvcat query id=vllm-qwen35-35b-hybrid-fp8kv-256k --format vertical\n"
        "  kvcat query --sort context_length,-measured_tps_at_ctx --limit 10 measured_tps_at_ctx!=null\n"
        "  kvcat query --distinct accelerator\n"
        "  kvcat query --allocations engine=vllm\n"
        "  kvcat query --allocations model=qwen3-235b-a22b kv_cache_dtype=q8_0 --format csv\n"
        "  kvcat query --quality metric=kld --sort value\n"
        "  kvcat query --predicted accelerator=nvidia-rtx-4090 'context_length>=64k'\n"
        "On a terminal the table drops the folder every id shares, rounds reals to 4 digits, shows bytes in\n"
        "KiB/MiB/GiB and fits the window, leaving out first the columns alike in every row, named in a note\n"
        "(csv, json and a pipe keep every value exact). An ordering (< <= > >=) that leaves out rows with no\n"
        "value says how many on stderr.\n"
        "A missing or stale catalog is rebuilt from --records first. When records have errors the catalog as\n"
        "last built answers and stderr says which files kept it behind; one built from another folder is\n"
        "never rebuilt (exit 2).\n"
        "--allocations reads the allocation records instead (records/allocations/): the engine, its cache\n"
        "dtype, context and sequences, the figure it printed and kvcat's for the same; `kvcat explain ID`\n"
        "shows one term by term. Its columns: id model engine engine_version kv_cache_dtype v_cache_dtype\n"
        "context seqs tokens tensor_parallel printed computed url notes file.\n"
        "--quality reads the quality results instead, one a line: the record, its model, K's and V's cache\n"
        "dtypes (kv_cache_dtype, v_cache_dtype: the same unless one of them only is quantised), the baseline\n"
        "dtype, the benchmark and metric, the value beside the baseline's, and the context; `kvcat columns\n"
        "--quality` lists its columns.\n"
        "--predicted adds the decode speed the rest of the catalog predicts for each row (kvcat predict's\n"
        "answer for its setup and context; for a row that measured one, with that point left out), its 80%\n"
        "interval, its basis and the records it stood on: predicted_tps_at_ctx, predicted_tps_low,\n"
        "predicted_tps_high, predicted_basis, predicted_from. They are worked out from --records after the\n"
        "catalog answers, never stored in it: --columns may name them, a filter or --sort may not.");
    set_command_body(*sub, exit_code, [options] { return run_query(*options); });
}

}  // namespace kvcat::cmd
