// The SQLite catalog: its columns, its staleness, and read-only access.
//
// run_read_only() is the only way queries reach the catalog: the file is opened
// read-only, writes, ATTACH, extension loading and writing pragmas are refused, and a
// query can be given a time limit. Writing lives in catalog_writer.h.
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
inline constexpr int kCatalogSchemaVersion = 5;

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

/// True when `path` holds a kvcat catalog of any version; `version` gets its version,
/// `why` what it is instead.
bool is_kvcat_catalog(const std::filesystem::path& path, int* version, std::string* why);

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
