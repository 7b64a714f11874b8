// kvcat complete: the words the shell completion offers that only the catalog knows, one a
// line: record ids of a kind, or the values a column holds. Hidden from --help; it is for
// tools/completion/kvcat.bash. It reads the catalog as it is, without rebuilding it, so a
// TAB never waits for a build, and when there is no catalog it lists the record files
// under --records instead (ids only). It prints nothing rather than an error, so a TAB
// never fills the terminal.
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "catalog/catalog.h"
#include "cmd/commands.h"
#include "cmd/common_options.h"
#include "load/records.h"
#include "load/schema.h"

namespace kvcat::cmd {

namespace {

namespace fs = std::filesystem;

/// At most this many values of a column: a completion list longer than a screen helps nobody.
constexpr int kMaxValues = 200;

struct CompleteOptions {
    Common common;
    std::string kind;  ///< of ids: models, accelerators, kv-efficiency, rows or records
    std::string column;
};

/// The SQL that lists the ids of `kind`, "" for an unknown kind.
std::string ids_sql(std::string_view kind) {
    if (kind == "models") return "SELECT id FROM models ORDER BY id";
    if (kind == "accelerators") return "SELECT id FROM accelerators ORDER BY id";
    if (kind == "kv-efficiency") return "SELECT DISTINCT record_id FROM kv_efficiency ORDER BY record_id";
    if (kind == "rows") return "SELECT id FROM kv_rows ORDER BY id";
    if (kind == "records") {
        return "SELECT id FROM models UNION SELECT id FROM accelerators UNION SELECT record_id FROM kv_efficiency "
               "ORDER BY 1";
    }
    return "";
}

/// The record ids of `kind` from the file names under `records` (a record's id is its path
/// there without .yaml, its top folder its kind).
std::vector<std::string> ids_from_files(const fs::path& records, std::string_view kind) {
    std::set<std::string> ids;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(records, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->path().extension() != ".yaml") continue;
        std::string id = it->path().lexically_relative(records).replace_extension().generic_string();
        auto of = kind_from_path(id);
        if (of && (kind == "records" || kind_folder(*of) == kind)) ids.insert(id);
    }
    return {ids.begin(), ids.end()};
}

void print_column(const Table& t) {
    for (const auto& row : t.rows) {
        if (row.empty()) continue;
        if (const auto* s = std::get_if<std::string>(&row[0])) {
            std::cout << *s << '\n';
        } else if (const auto* i = std::get_if<std::int64_t>(&row[0])) {
            std::cout << *i << '\n';
        } else if (const auto* d = std::get_if<double>(&row[0])) {
            std::cout << fmt::format("{}", *d) << '\n';
        }
    }
}

int run_complete_ids(const CompleteOptions& o) {
    std::string sql = ids_sql(o.kind);
    if (sql.empty()) {
        spdlog::error("complete ids: unknown kind '{}'; one of models, accelerators, kv-efficiency, rows, records",
                      o.kind);
        return ExitCode::failure;
    }
    std::error_code ec;
    if (fs::is_regular_file(o.common.db, ec)) {
        try {
            print_column(run_read_only(o.common.db, sql));
            return ExitCode::ok;
        } catch (const std::exception& e) {
            spdlog::debug("complete: {}", e.what());  // not a catalog kvcat can read: the files then
        }
    }
    if (o.kind != "rows") {
        for (const auto& id : ids_from_files(o.common.records, o.kind)) std::cout << id << '\n';
    }
    return ExitCode::ok;
}

int run_complete_values(const CompleteOptions& o) {
    const ColumnInfo* info = find_column(o.column);
    if (!info) {
        spdlog::error("complete values: unknown column '{}'", o.column);
        return ExitCode::failure;
    }
    std::error_code ec;
    if (!fs::is_regular_file(o.common.db, ec)) return ExitCode::ok;
    try {
        // A known column's own name, never user text, goes into the SQL.
        print_column(run_read_only(o.common.db,
                                   fmt::format("SELECT DISTINCT {0} FROM kv_rows WHERE {0} IS NOT NULL ORDER BY {0} "
                                               "LIMIT {1}",
                                               info->name, kMaxValues)));
    } catch (const std::exception& e) {
        spdlog::debug("complete: {}", e.what());
    }
    return ExitCode::ok;
}

}  // namespace

void setup_complete(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<CompleteOptions>();
    CLI::App* sub = app.add_subcommand("complete", "Words for the shell completion, one a line");
    sub->group("");  // hidden: tools/completion/kvcat.bash calls it
    sub->require_subcommand(1);
    CLI::App* ids = sub->add_subcommand("ids", "Record ids of a kind");
    ids->add_option("kind", o->kind, "models, accelerators, kv-efficiency, rows or records")->required();
    add_db_option(*ids, o->common, DbUse::read);
    add_records_option(*ids, o->common, RecordsUse::read);
    set_command_body(*ids, exit_code, [o] { return run_complete_ids(*o); });
    CLI::App* values = sub->add_subcommand("values", "The values a kv_rows column holds (the first 200)");
    values->add_option("column", o->column, "A kv_rows column")->required();
    add_db_option(*values, o->common, DbUse::read);
    set_command_body(*values, exit_code, [o] { return run_complete_values(*o); });
}

}  // namespace kvcat::cmd
