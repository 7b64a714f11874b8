// The SQLite catalog: its columns, its staleness, and read-only access.
//
// run_read_only() is the only way queries reach the catalog: the file is opened
// read-only, writes, ATTACH, extension loading and writing pragmas are refused, and a
// query can be given a time limit. Writing lives in catalog_writer.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "support/table.h"

namespace kvcat {

/// The catalog schema version, stored as PRAGMA user_version.
inline constexpr int kCatalogSchemaVersion = 12;

/// A problem with the catalog file itself (missing, foreign, corrupt, refused SQL).
class CatalogError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// The catalog's pages are damaged (SQLite's SQLITE_CORRUPT or SQLITE_NOTADB): a catalog
/// to build again from its records, not an answer.
class CatalogDamaged : public CatalogError {
  public:
    using CatalogError::CatalogError;
};

/// A column of the kv_rows view: what a filter may name.
struct ColumnInfo {
    std::string_view name;
    std::string_view type;  ///< "text", "integer" or "number"
    std::string_view unit;
    bool derived;
    std::string_view description;
};

std::span<const ColumnInfo> kv_row_columns();

/// What `kvcat query` reads: the kv_rows view (kv-efficiency rows, the default) or the
/// allocations table (`--allocations`: what an engine printed at start-up, beside kvcat's figure).
enum class QueryTable { kv_rows, allocations, quality };
std::string_view table_name(QueryTable table);  ///< "kv_rows", "allocations", "quality_rows"
/// The columns of `table` a filter may name.
std::span<const ColumnInfo> query_columns(QueryTable table);
const ColumnInfo* find_column(std::string_view name, QueryTable table = QueryTable::kv_rows);

/// The predicted columns `kvcat query --predicted` adds to kv_rows (predicted_tps_at_ctx, its
/// interval, basis and records): worked out from the records after the catalog answers, so they
/// can be shown but not filtered or sorted on.
std::span<const ColumnInfo> predicted_columns();
const ColumnInfo* find_predicted_column(std::string_view name);
/// The columns `kvcat query --predicted` shows unless asked for others.
std::span<const std::string_view> default_predicted_view();

/// The columns `kvcat query` shows unless asked for others.
std::span<const std::string_view> default_query_columns(QueryTable table = QueryTable::kv_rows);
/// The order in which a narrow window leaves out the columns of a query, the first to go first.
std::span<const std::string_view> default_query_drop_order(QueryTable table = QueryTable::kv_rows);

/// True when `path` holds a kvcat catalog of any version; `version` gets its version,
/// `why` what it is instead.
bool is_kvcat_catalog(const std::filesystem::path& path, int* version, std::string* why);

/// build_meta keys saying what a catalog was built from: the records root resolved
/// (resolved_root) and the fingerprint of its record files (RecordSetFingerprint::text).
inline constexpr std::string_view kMetaResolvedRoot = "records_root_resolved";
inline constexpr std::string_view kMetaRecordSet = "record_set";

/// Every build_meta entry of a catalog; empty when it has none or cannot be read.
std::map<std::string, std::string> catalog_meta(const std::filesystem::path& db_path);

/// How many record files a catalog was built from (0 when it cannot be read).
std::int64_t catalog_record_files(const std::filesystem::path& db_path);

/// Whether a catalog answers for a records root.
struct Freshness {
    enum class State {
        fresh,       ///< built from this root, from exactly the record files there now
        missing,     ///< no catalog yet
        stale,       ///< built from this root, but the records changed (or the schema did)
        other_root,  ///< built from another records root: never to be rebuilt from this one
    };
    State state = State::fresh;
    std::string why;         ///< for a log line, when not fresh
    std::string built_from;  ///< the root it was built from, for other_root
};

/// Compares the catalog's recorded root and record-set fingerprint with `records_root`
/// (modification times are part of the fingerprint, never compared alone). Throws
/// CatalogError when `db_path` holds something that is not a kvcat catalog.
Freshness catalog_freshness(const std::filesystem::path& db_path, const std::filesystem::path& records_root);

/// Why the catalog needs a rebuild (missing, records changed, wrong schema, another root),
/// or nullopt.
std::optional<std::string> catalog_staleness(const std::filesystem::path& db_path,
                                             const std::filesystem::path& records_root);

struct QueryLimits {
    /// How long the command may take, counted from `started` (from the call when unset):
    /// preparing, stepping and collecting every row.
    std::optional<std::chrono::milliseconds> timeout;
    std::optional<std::chrono::steady_clock::time_point> started;
    /// The largest single value (string or blob) a statement may make; 0: SQLite's own limit.
    std::size_t max_value_bytes = 0;
    /// The most bytes the whole result may hold (its text, and each cell's own size); 0: no limit.
    std::size_t max_result_bytes = 0;
    /// The most bytes SQLite's heap may hold while the statement runs (sorts and temporary
    /// tables are kept in memory, inside it); 0: no limit.
    std::size_t max_memory_bytes = 0;

    /// When the time is up, if there is a limit.
    std::optional<std::chrono::steady_clock::time_point> deadline() const;
};

/// What query and sql give a statement unless told otherwise: ten seconds to run, and SQLite's
/// heap held to 512 MiB (a recursive CTE neither runs forever nor fills the disk).
inline constexpr std::chrono::milliseconds kDefaultStatementTimeout{10000};
inline constexpr std::size_t kReadOnlyMemoryBytes = std::size_t{512} << 20;
/// The most bytes query keeps of an answer (and of its rendering).
inline constexpr std::size_t kQueryMaxOutputBytes = std::size_t{256} << 20;

/// Runs one read-only statement. Throws CatalogError with a clear message otherwise.
Table run_read_only(const std::filesystem::path& db_path, const std::string& sql,
                    const std::vector<Cell>& parameters = {}, const QueryLimits& limits = {});

}  // namespace kvcat
