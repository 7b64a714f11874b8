#include <chrono>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog/catalog.h"
#include "cmd/catalog_access.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "cmd/table_output.h"
#include "output/render.h"
#include "output/terminal.h"

namespace kvcat::cmd {

namespace {

// Bounds on what one statement may produce: a value, and the whole answer.
constexpr std::size_t kDefaultMaxValueBytes = std::size_t{16} << 20;
constexpr std::size_t kDefaultMaxOutputBytes = std::size_t{256} << 20;

struct SqlOptions {
    Common common;
    std::string sql;
    std::optional<int> timeout_ms;  ///< unset: kDefaultStatementTimeout for the statement alone
    std::size_t max_value_bytes = kDefaultMaxValueBytes;
    std::size_t max_output_bytes = kDefaultMaxOutputBytes;
    bool strict = false;
};

int run_sql(const SqlOptions& options) {
    QueryLimits limits;
    limits.max_value_bytes = options.max_value_bytes;
    limits.max_result_bytes = options.max_output_bytes;
    limits.max_memory_bytes = kReadOnlyMemoryBytes;
    // --timeout N bounds the whole command, a rebuild included; without it the statement and
    // its rendering get kDefaultStatementTimeout, counted when the statement starts.
    int timeout_ms = options.timeout_ms.value_or(static_cast<int>(kDefaultStatementTimeout.count()));
    if (timeout_ms > 0) limits.timeout = std::chrono::milliseconds(timeout_ms);
    if (options.timeout_ms) limits.started = std::chrono::steady_clock::now();
    const Common& c = options.common;
    int code = ExitCode::ok;
    std::optional<CommandDeadline> command_deadline;
    if (options.timeout_ms && limits.deadline()) command_deadline = CommandDeadline{*limits.deadline(), timeout_ms};
    auto table = read_fresh_catalog(
        c.db, c.records,
        [&] {
            if (!options.timeout_ms) limits.started = std::chrono::steady_clock::now();
            return run_read_only(c.db, options.sql, {}, limits);
        },
        code, options.strict, command_deadline ? &*command_deadline : nullptr);
    if (!table) return code;
    auto deadline = limits.deadline();
    struct PastDeadline {};
    RenderOptions render =
        stdout_render_options("--format vertical, or fewer columns in the SELECT", !c.no_formula_guard);
    render.max_bytes = options.max_output_bytes;
    if (deadline) {
        render.each_row = [at = *deadline] {
            if (std::chrono::steady_clock::now() > at) throw PastDeadline{};
        };
    }
    std::string text;
    try {
        text = render_table(*table, *parse_table_format(c.format), render);
    } catch (const PastDeadline&) {
        spdlog::error("the command ran past its time limit of {} ms (--timeout) while rendering its answer",
                      timeout_ms);
        return ExitCode::failure;
    } catch (const RenderTooLarge&) {
        spdlog::error(
            "the answer, written as {}, is larger than the output limit of {} bytes (--max-output-bytes); narrow it "
            "with WHERE or LIMIT, or raise the limit",
            c.format, options.max_output_bytes);
        return ExitCode::failure;
    }
    table.reset();
    std::cout << text;
    return ExitCode::ok;
}

}  // namespace

void setup_sql(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<SqlOptions>();
    CLI::App* sub = app.add_subcommand("sql", "Run one read-only SQL statement on the catalog");
    add_db_option(*sub, options->common, DbUse::read);
    add_records_option(*sub, options->common, RecordsUse::rebuild);
    add_format_option(*sub, options->common, FormatFamily::table);
    sub->add_option("--timeout", options->timeout_ms,
                    fmt::format("Stop the whole command after this many milliseconds (0: never); without it the "
                                "statement has {} s",
                                kDefaultStatementTimeout.count() / 1000))
        ->check(CLI::NonNegativeNumber);
    sub->add_option("--max-value-bytes", options->max_value_bytes, "The largest value a statement may make")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_option("--max-output-bytes", options->max_output_bytes, "The most bytes the answer may hold in memory")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sub->add_flag("--strict", options->strict,
                  "Fail (exit 1) rather than answer from the last good catalog when records have errors");
    sub->add_option("sql", options->sql, "The statement")->required();
    sub->footer(
        "The catalog is opened read-only: writes, ATTACH, load_extension and pragmas that set values are refused.\n"
        "--timeout counts from the start of the command; a value or an answer over its byte limit is an error.\n"
        "Examples:\n"
        "  kvcat sql \"SELECT id, kv_bytes_per_token FROM kv_rows ORDER BY kv_bytes_per_token\"\n"
        "  kvcat sql --format json \"SELECT * FROM column_info\"");
    set_command_body(*sub, exit_code, [options] { return run_sql(*options); });
}

}  // namespace kvcat::cmd
