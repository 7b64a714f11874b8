// The SQLite catalog.
//
// build_catalog() writes every record into a new database file beside the target
// in one transaction, syncs it and renames it over the target: a reader sees the
// old catalog or the new one, never half of one, and a failed or killed build
// leaves the previous catalog as it was. open_read_only() is the only way queries
// reach the catalog: the file is opened read-only, writes, ATTACH, extension
// loading and writing pragmas are refused, and a query can be given a time limit.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "lint.h"
#include "table.h"

namespace kvcat {

/// The catalog schema version, stored as PRAGMA user_version.
inline constexpr int kCatalogSchemaVersion = 2;

/// A problem with the catalog file itself (missing, foreign, corrupt, refused SQL).
class CatalogError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
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
const ColumnInfo* find_column(std::string_view name);

/// The columns `kvcat query` shows unless asked for others.
std::span<const std::string_view> default_query_columns();

struct BuildStats {
    std::size_t models = 0;
    std::size_t accelerators = 0;
    std::size_t rows = 0;
};

/// Writes the catalog atomically. Throws CatalogError or std::exception on failure, after
/// removing its temporary file; the previous catalog is untouched.
BuildStats build_catalog(const RecordSet& records, const std::filesystem::path& db_path);

/// Why the catalog needs a rebuild (missing, older than a record, wrong schema), or nullopt.
std::optional<std::string> catalog_staleness(const std::filesystem::path& db_path,
                                             const std::filesystem::path& records_root);

struct QueryLimits {
    std::optional<std::chrono::milliseconds> timeout;
};

/// Runs one read-only statement. Throws CatalogError with a clear message otherwise.
Table run_read_only(const std::filesystem::path& db_path, const std::string& sql,
                    const std::vector<Cell>& parameters = {}, const QueryLimits& limits = {});

}  // namespace kvcat
