// Writing the catalog, atomically and incrementally.
//
// A CatalogWriter builds a new database in a temporary file beside the target, in one
// transaction through one connection with prepared statements, and commit() syncs it
// and renames it over the target: a reader sees the old catalog or the new one, never
// half of one, and a build that fails or is killed leaves the previous catalog as it
// was (its temporary file is removed then, or by the next build). The writer is a
// RecordSink, so rows stream into it from the lint's workers and memory stays flat.
// Every insert names its columns and binds each value by its column's name; the column
// lists are checked against schema/catalog.sql when the writer is compiled.
//
// What is reused from the previous catalog is decided by plan_build() (build_plan.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "check/lint.h"
#include "support/replace_file.h"

namespace SQLite {
class Database;
class Statement;
class Transaction;
}  // namespace SQLite

namespace kvcat {

struct BuildStats {
    std::size_t models = 0;
    std::size_t accelerators = 0;
    std::size_t allocations = 0;
    std::size_t rows = 0;         ///< rows in the new catalog
    std::size_t rows_copied = 0;  ///< of those, copied unchanged from the previous catalog
};

struct BuildPlan;

class CatalogWriter : public RecordSink {
  public:
    /// Refuses (CatalogError) a target that exists and is not a kvcat catalog, is a link or
    /// is read-only. `previous`, when given, is the catalog unchanged rows are kept from: the
    /// new catalog starts as a copy of its bytes.
    explicit CatalogWriter(std::filesystem::path db_path, std::optional<std::filesystem::path> previous = {});
    ~CatalogWriter() override;  ///< abandons the build unless committed
    CatalogWriter(const CatalogWriter&) = delete;
    CatalogWriter& operator=(const CatalogWriter&) = delete;

    void begin(const RecordSet& refs) override;
    void row(const Record& record, const RecordSet& refs) override;

    /// Keeps the rows of the plan's unchanged files from the previous catalog, gives the
    /// touched ones today's stamps, and drops the rows of every file the plan does not keep.
    /// Call it before the first row().
    void copy_unchanged(const BuildPlan& plan);
    /// The warnings and silenced findings to remember for the next incremental build.
    void set_findings(const std::vector<Diagnostic>& warnings, const std::vector<Diagnostic>& ignored);
    void set_meta(const std::string& key, const std::string& value);
    /// Records what the catalog is built from: the root as given and resolved, and the
    /// fingerprint of the record files written so far (call it once every row is in).
    void set_built_from(const std::filesystem::path& records_root);

    /// Finishes, syncs and renames into place. Throws on failure; the old catalog stays.
    BuildStats commit();

  private:
    void insert_file(const Record& record, RecordKind kind);
    void abandon() noexcept;    ///< closes the database without committing
    void clear_all_but_rows();  ///< empties, in a copy of the previous catalog, what is written again

    std::filesystem::path db_path_;
    std::unique_ptr<ReplacementFile> file_;  ///< the new catalog until it is renamed into place
    std::filesystem::path tmp_path_;
    std::unique_ptr<SQLite::Database> db_;
    std::unique_ptr<SQLite::Transaction> transaction_;  ///< the whole build; destroyed before db_
    std::unique_ptr<SQLite::Statement> row_insert_;
    std::unique_ptr<SQLite::Statement> quality_insert_;
    std::unique_ptr<SQLite::Statement> source_insert_;
    std::unique_ptr<SQLite::Statement> file_insert_;
    std::mutex mutex_;
    BuildStats stats_;
    bool committed_ = false;
    bool has_previous_ = false;
    std::string built_from_;  ///< the resolved records root, for the seal; empty: not sealed
};

/// A table the writer fills, and its columns in the order it declares them.
struct WrittenTable {
    std::string_view name;
    std::span<const std::string_view> columns;
};

/// Every table the writer inserts into. Each must declare these columns, in this order, in
/// the catalog schema (a test compares them with PRAGMA table_info).
std::span<const WrittenTable> written_tables();

/// Writes the catalog from records already in memory, atomically (tests, small tools).
BuildStats build_catalog(const RecordSet& records, const std::filesystem::path& db_path);

}  // namespace kvcat
