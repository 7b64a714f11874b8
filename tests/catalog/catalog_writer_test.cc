// The writer binds each value by its column's name; these tests hold its column lists to
// the catalog it writes, so a column added, dropped or moved in schema/catalog.sql fails
// here (and in the writer's static_asserts) until the writer follows.
#include "catalog/catalog_writer.h"

#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "check/lint.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

class CatalogWriterTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LintResult r = lint_paths({fs::path(KVCAT_FIXTURES_DIR) / "seed-catalog/records"});
        ASSERT_FALSE(has_errors(r.diagnostics));
        build_catalog(r.records, db_);
    }

    std::vector<std::string> strings(const Table& t) const {
        std::vector<std::string> out;
        for (const auto& row : t.rows) out.push_back(std::get<std::string>(row.at(0)));
        return out;
    }

    test::TempDir tmp_;
    fs::path db_ = tmp_ / "kvcat.db";
};

TEST_F(CatalogWriterTest, EachTablesColumnsAreTheSchemasInItsOrder) {
    for (const auto& table : written_tables()) {
        SCOPED_TRACE(std::string(table.name));
        // PRAGMA table_info lists the columns by their position in the table.
        Table info = run_read_only(db_, fmt::format("PRAGMA table_info({})", table.name));
        std::vector<std::string> schema;
        for (const auto& row : info.rows) schema.push_back(std::get<std::string>(row.at(1)));
        std::vector<std::string> written(table.columns.begin(), table.columns.end());
        EXPECT_EQ(written, schema);
    }
}

TEST_F(CatalogWriterTest, FillsEveryTableOfTheSchema) {
    auto tables = strings(run_read_only(db_, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"));
    std::set<std::string> in_schema(tables.begin(), tables.end());
    std::set<std::string> written;
    for (const auto& table : written_tables()) written.emplace(table.name);
    EXPECT_EQ(written, in_schema);
}

TEST_F(CatalogWriterTest, ValuesLandInTheColumnsThatNameThem) {
    // Text columns side by side: a value bound one place off would still be stored, in the
    // wrong column.
    Table row = run_read_only(db_,
                              "SELECT record_id, model, engine, kv_cache_dtype, file FROM kv_efficiency "
                              "WHERE id = 'kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k'");
    ASSERT_EQ(row.rows.size(), 1u);
    EXPECT_EQ(std::get<std::string>(row.rows[0][0]), "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k");
    EXPECT_EQ(std::get<std::string>(row.rows[0][1]), "models/qwen3.5-27b");
    EXPECT_EQ(std::get<std::string>(row.rows[0][2]), "llama.cpp");
    EXPECT_EQ(std::get<std::string>(row.rows[0][3]), "bf16");
    EXPECT_TRUE(std::get<std::string>(row.rows[0][4]).ends_with("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml"));
    Table file =
        run_read_only(db_, "SELECT id, kind FROM files WHERE path LIKE '%llamacpp-qwen35-27b-rtx3090-64k.yaml'");
    ASSERT_EQ(file.rows.size(), 1u);
    EXPECT_EQ(std::get<std::string>(file.rows[0][0]), "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k");
    EXPECT_EQ(std::get<std::string>(file.rows[0][1]), "kv-efficiency");
}

}  // namespace
}  // namespace kvcat
