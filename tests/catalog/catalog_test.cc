#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "check/lint.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

class CatalogTest : public ::testing::Test {
  protected:
    /// The seed catalog (tests/fixtures/seed-catalog): fixed row counts, whatever records/ holds.
    static LintResult shipped() {
        LintResult r = lint_paths({fs::path(KVCAT_FIXTURES_DIR) / "seed-catalog/records"});
        EXPECT_FALSE(has_errors(r.diagnostics));
        return r;
    }

    static std::string bytes_of(const fs::path& p) { return test::read_file(p); }

    std::vector<fs::path> leftovers() const {
        std::vector<fs::path> out;
        for (const auto& e : fs::directory_iterator(dir_)) {
            if (e.path().filename().string().find(".tmp-") != std::string::npos) out.push_back(e.path());
        }
        return out;
    }

    test::TempDir tmp_;
    fs::path dir_ = tmp_.path();
    fs::path db_ = dir_ / "kvcat.db";
};

TEST_F(CatalogTest, BuildsTablesViewAndVersion) {
    LintResult r = shipped();
    BuildStats stats = build_catalog(r.records, db_);
    EXPECT_EQ(stats.rows, 2u);
    EXPECT_GE(stats.models, 2u);
    EXPECT_GE(stats.accelerators, 1u);
    Table version = run_read_only(db_, "PRAGMA user_version");
    ASSERT_EQ(version.rows.size(), 1u);
    EXPECT_EQ(std::get<std::int64_t>(version.rows[0][0]), kCatalogSchemaVersion);

    Table row = run_read_only(db_,
                              "SELECT kv_bytes_per_token, kv_bytes_at_context, measured_tps_at_ctx, "
                              "measured_ttft_ms_at_ctx, fixed_state_bytes, accelerator_name "
                              "FROM kv_rows WHERE id = ?",
                              {std::string("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k")});
    ASSERT_EQ(row.rows.size(), 1u);
    EXPECT_EQ(std::get<std::int64_t>(row.rows[0][0]), 65536);
    EXPECT_EQ(std::get<std::int64_t>(row.rows[0][1]), 65536LL * 65536);
    EXPECT_DOUBLE_EQ(std::get<double>(row.rows[0][2]), 28.8);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(row.rows[0][3]));  // not reported stays null
    EXPECT_EQ(std::get<std::int64_t>(row.rows[0][4]), 156893184);
    EXPECT_EQ(std::get<std::string>(row.rows[0][5]), "GeForce RTX 3090");
    EXPECT_TRUE(leftovers().empty());
}

TEST_F(CatalogTest, DerivedColumnsSayTheyAreDerived) {
    build_catalog(shipped().records, db_);
    Table t = run_read_only(db_, "SELECT name FROM column_info WHERE derived = 1 ORDER BY name");
    std::vector<std::string> names;
    for (const auto& row : t.rows) names.push_back(std::get<std::string>(row[0]));
    EXPECT_EQ(names, (std::vector<std::string>{"fixed_state_bytes", "gqa_baseline_bytes_per_token", "gqa_reduction",
                                               "kv_bytes_at_context", "mha_baseline_bytes_per_token", "mha_reduction",
                                               "roofline_fraction", "roofline_tps", "speculative", "weight_bytes"}));
    // Stated figures are not marked derived.
    Table stated = run_read_only(db_, "SELECT derived FROM column_info WHERE name = 'kv_bytes_per_token'");
    EXPECT_EQ(std::get<std::int64_t>(stated.rows[0][0]), 0);
}

TEST_F(CatalogTest, FailedBuildLeavesThePreviousCatalogByteIdentical) {
    build_catalog(shipped().records, db_);
    std::string before = bytes_of(db_);
    // A record set whose row names no model cannot be written; the build must fail whole.
    LintResult r = shipped();
    std::vector<Record> records = r.records.records();
    for (auto& rec : records) {
        if (rec.kv) rec.kv->model = "models/does-not-exist";
    }
    RecordSet broken(std::move(records));
    EXPECT_THROW(build_catalog(broken, db_), CatalogError);
    EXPECT_EQ(bytes_of(db_), before);
    EXPECT_TRUE(leftovers().empty());
}

TEST_F(CatalogTest, LeftoverTemporaryFromAKilledBuildIsCleanedUp) {
    // A pid that cannot be alive: the build that wrote it is gone.
    fs::path stale = db_;
    stale += ".tmp-999999999-1";
    std::ofstream(stale) << "half a catalog";
    build_catalog(shipped().records, db_);
    EXPECT_FALSE(fs::exists(stale));
}

TEST_F(CatalogTest, RefusesToReplaceAFileThatIsNotACatalog) {
    std::ofstream(db_) << "my notes, not a database";
    std::string before = bytes_of(db_);
    EXPECT_THROW(build_catalog(shipped().records, db_), CatalogError);
    EXPECT_EQ(bytes_of(db_), before);
    EXPECT_THROW(catalog_staleness(db_, fs::path(KVCAT_SOURCE_DIR) / "records"), CatalogError);
}

TEST_F(CatalogTest, SqlIsReadOnly) {
    build_catalog(shipped().records, db_);
    std::string before = bytes_of(db_);
    for (const char* sql :
         {"DROP TABLE models", "DELETE FROM kv_efficiency", "INSERT INTO models(id) VALUES ('x')",
          "ATTACH DATABASE 'other.db' AS other", "PRAGMA user_version = 7", "PRAGMA journal_mode = WAL",
          "SELECT load_extension('x')", "CREATE TABLE t(x)", "SELECT 1; DROP TABLE models", "VACUUM", "BEGIN"}) {
        EXPECT_THROW(run_read_only(db_, sql), CatalogError) << sql;
    }
    EXPECT_EQ(bytes_of(db_), before);
    EXPECT_FALSE(fs::exists(dir_ / "other.db"));
    EXPECT_NO_THROW(run_read_only(db_, "SELECT count(*) FROM kv_rows -- trailing comment"));
    EXPECT_NO_THROW(run_read_only(db_, "PRAGMA table_info(kv_efficiency)"));
}

/// What run_read_only refuses `sql` with; empty when it does not throw CatalogError.
std::string refusal(const fs::path& db, const std::string& sql, const QueryLimits& limits = {}) {
    try {
        run_read_only(db, sql, {}, limits);
    } catch (const CatalogError& e) {
        return e.what();
    }
    return "";
}

constexpr std::string_view kReadOnlyRefusal =
    "the catalog is read-only here: only SELECT (and schema-reading PRAGMAs) may run; writes, ATTACH, "
    "load_extension and pragmas that change settings are refused";

TEST_F(CatalogTest, AttachIsRefusedItselfNotForWantOfAFile) {
    // ATTACH of a file that is missing fails anyway ("unable to open"): the refusal must be the
    // authorizer's, for a database that would open (':memory:', an existing catalog).
    build_catalog(shipped().records, db_);
    fs::path other = dir_ / "other.db";
    build_catalog(shipped().records, other);
    std::string before = bytes_of(other);
    for (const std::string& sql :
         {std::string("ATTACH DATABASE ':memory:' AS x"), "ATTACH DATABASE '" + other.string() + "' AS x",
          std::string("ATTACH ':memory:' AS x")}) {
        EXPECT_EQ(refusal(db_, sql), kReadOnlyRefusal) << sql;
    }
    EXPECT_EQ(bytes_of(other), before);
}

TEST_F(CatalogTest, SqlLimitsNameTheLimitThatStoppedThem) {
    build_catalog(shipped().records, db_);
    QueryLimits limits;
    limits.max_value_bytes = 1 << 20;
    EXPECT_EQ(refusal(db_, "SELECT zeroblob(1000000000)", limits),
              "a value would be larger than the limit of 1048576 bytes on a single value (--max-value-bytes)");
    EXPECT_EQ(refusal(db_, "SELECT length(zeroblob(1000))", limits), "");
    limits.max_result_bytes = 100000;
    EXPECT_EQ(refusal(db_,
                      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100000) "
                      "SELECT x, 'some text' FROM c",
                      limits),
              "the result is larger than the output limit of 100000 bytes (--max-output-bytes); narrow it with "
              "WHERE or LIMIT, or raise the limit");
    EXPECT_EQ(refusal(db_, "SELECT id FROM kv_rows", limits), "");
    // The time limit counts from when the command started, not from the statement.
    QueryLimits late;
    late.timeout = std::chrono::milliseconds(50);
    late.started = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    EXPECT_EQ(refusal(db_, "SELECT 1", late), "the command ran past its time limit of 50 ms (--timeout)");
}

TEST_F(CatalogTest, QueryTimeLimitStopsARunawayQuery) {
    build_catalog(shipped().records, db_);
    QueryLimits limits;
    limits.timeout = std::chrono::milliseconds(50);
    EXPECT_THROW(run_read_only(db_,
                               "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                               "SELECT count(*) FROM c",
                               {}, limits),
                 CatalogError);
}

/// What `kvcat build` writes for a records root, through the library.
void build_from(const fs::path& records, const fs::path& db) {
    CatalogWriter writer(db);
    LintOptions options;
    options.sink = &writer;
    options.keep_rows = false;
    LintResult r = lint_paths({records}, options);
    ASSERT_FALSE(has_errors(r.diagnostics));
    writer.set_built_from(records);
    writer.commit();
}

TEST_F(CatalogTest, FreshnessComparesTheRootAndTheRecordFilesNotTimesAlone) {
    fs::path records = dir_ / "records";
    fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", records, fs::copy_options::recursive);
    EXPECT_EQ(catalog_freshness(db_, records).state, Freshness::State::missing);
    build_from(records, db_);
    EXPECT_EQ(catalog_freshness(db_, records).state, Freshness::State::fresh);
    auto meta = catalog_meta(db_);
    EXPECT_EQ(meta["records_root_resolved"], fs::canonical(records).generic_string());
    const std::string files = std::to_string(lint_paths({records}).files.size());
    EXPECT_TRUE(meta["record_set"].starts_with(files + ":")) << meta["record_set"];

    // A record touched is noticed; its time put back, it is fresh again: times are compared
    // with what the catalog recorded for each file, not with the catalog's own time.
    fs::path model = records / "models" / "qwen3.5-27b.yaml";
    auto was = fs::last_write_time(model);
    fs::last_write_time(model, was + std::chrono::seconds(5));
    Freshness touched = catalog_freshness(db_, records);
    EXPECT_EQ(touched.state, Freshness::State::stale);
    EXPECT_NE(touched.why.find("changed since the catalog was built"), std::string::npos) << touched.why;
    fs::last_write_time(model, was);
    EXPECT_EQ(catalog_freshness(db_, records).state, Freshness::State::fresh);

    // A record replaced by one with an older time (cp -p, an archive unpacked) is noticed,
    // though nothing under the root is newer than the catalog.
    std::string text = test::read_file(model);
    test::write_file(model, text + "# edited\n");
    fs::last_write_time(model, fs::last_write_time(db_) - std::chrono::hours(24));
    EXPECT_EQ(catalog_freshness(db_, records).state, Freshness::State::stale);
    build_from(records, db_);
    ASSERT_EQ(catalog_freshness(db_, records).state, Freshness::State::fresh);

    // A file that is not a record, added then removed, changes nothing (its folder's time
    // moved, which made every query rebuild in vain when times alone were compared).
    test::write_file(records / "kv-efficiency" / "notes.txt", "a note\n");
    EXPECT_EQ(catalog_freshness(db_, records).state, Freshness::State::fresh);
    fs::remove(records / "kv-efficiency" / "notes.txt");
    EXPECT_EQ(catalog_freshness(db_, records).state, Freshness::State::fresh);

    // A record deep in folders the walk shares out over the cores, added then removed.
    fs::path deep = records / "kv-efficiency" / "a" / "b" / "row.yaml";
    test::write_file(deep, "id: x\n");
    Freshness added = catalog_freshness(db_, records);
    EXPECT_EQ(added.state, Freshness::State::stale);
    EXPECT_NE(added.why.find("the catalog was built from " + files), std::string::npos) << added.why;
    fs::remove(deep);
    EXPECT_EQ(catalog_freshness(db_, records).state, Freshness::State::fresh);
    fs::remove(records / "kv-efficiency" / "llamacpp-qwen35-27b-rtx3090-64k.yaml");
    EXPECT_EQ(catalog_freshness(db_, records).state, Freshness::State::stale);
}

TEST_F(CatalogTest, ACatalogOfAnotherRootIsNeverFreshNorStale) {
    fs::path records = dir_ / "records";
    fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", records, fs::copy_options::recursive);
    build_from(records, db_);
    fs::create_directories(dir_ / "empty");
    Freshness other = catalog_freshness(db_, dir_ / "empty");
    EXPECT_EQ(other.state, Freshness::State::other_root);
    EXPECT_EQ(other.built_from, fs::canonical(records).generic_string());
    // The same root spelled another way, or through a link, is the same root.
    EXPECT_EQ(catalog_freshness(db_, dir_ / "empty" / ".." / "records").state, Freshness::State::fresh);
    fs::create_directory_symlink(records, dir_ / "link");
    EXPECT_EQ(catalog_freshness(db_, dir_ / "link").state, Freshness::State::fresh);
}

TEST_F(CatalogTest, AnEmptyCatalogOfAnotherRootMayBeRebuilt) {
    // Built from an empty folder, it holds nothing that a build from the records could lose.
    fs::create_directories(dir_ / "empty");
    build_from(dir_ / "empty", db_);
    fs::path records = dir_ / "records";
    fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", records, fs::copy_options::recursive);
    Freshness f = catalog_freshness(db_, records);
    EXPECT_EQ(f.state, Freshness::State::stale) << f.why;
    EXPECT_NE(f.why.find("which held no record"), std::string::npos) << f.why;
}

TEST_F(CatalogTest, MissingCatalogIsAClearError) {
    try {
        run_read_only(db_, "SELECT 1");
        FAIL() << "expected CatalogError";
    } catch (const CatalogError& e) {
        EXPECT_NE(std::string(e.what()).find("kvcat build"), std::string::npos);
    }
}

}  // namespace
}  // namespace kvcat
