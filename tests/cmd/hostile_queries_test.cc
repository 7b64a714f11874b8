// Hostile and careless queries: read-only SQL reaches only the functions a reader needs, a
// statement is bounded in time and memory without being asked, an answer too wide for the
// output limit is refused rather than grown, CSV and TSV cells never reach a spreadsheet as a
// formula, and a lint_ignore names a claim whole.
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"
#include "kvcat_runner.h"
#include "output/render.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;

using kvcat::test::contains;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;
using kvcat::test::read_file;
using kvcat::test::write_file;

class HostileQueries : public ::testing::Test {
  protected:
    KvcatRunner k_;
};

// fts3_tokenizer('simple') hands out the address of a native structure (and its two-argument
// form takes one); the authorizer refuses it by name, as it does anything not on its list.
TEST_F(HostileQueries, SqlRefusesFunctionsAReaderDoesNotNeed) {
    for (const char* call : {"fts3_tokenizer('simple')", "load_extension('x')", "readfile('/etc/passwd')",
                             "writefile('x', 'y')", "edit('x')", "sqlite_compileoption_get(0)"}) {
        Outcome r = k_.run({"sql", std::string("SELECT ") + call});
        EXPECT_EQ(r.status, 2) << call << "\n" << r.out;
        std::string name(call, std::string_view(call).find('('));
        bool refused = contains(r.err, "the function " + name + "() may not run here") ||
                       contains(r.err, "no such function: " + name);
        EXPECT_TRUE(refused) << call << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << call;
    }
    Outcome fts = k_.run({"sql", "SELECT fts3_tokenizer('simple')"});
    EXPECT_TRUE(contains(fts.err, "the function fts3_tokenizer() may not run here")) << fts.err;
}

TEST_F(HostileQueries, SqlKeepsTheFunctionsAReaderNeeds) {
    Outcome r =
        k_.run({"sql", "--format", "csv",
                "SELECT count(*) AS n, lower('AB') AS l, round(2.5) AS r, json_extract('{\"a\":7}', '$.a') AS j, "
                "'{\"b\":8}' ->> '$.b' AS arrow, printf('%05d', 42) AS p, max(context_length) > 0 AS m, "
                "date('2026-01-02') AS d, sqrt(16) AS s, row_number() OVER () AS w FROM kv_rows"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "n,l,r,j,arrow,p,m,d,s,w\r\n2,ab,3,7,8,00042,1,2026-01-02,4,1\r\n");
}

// A recursive CTE that never ends stops at the default limit, with no --timeout typed.
TEST_F(HostileQueries, SqlStopsAStatementThatRunsForeverWithoutBeingAsked) {
    ASSERT_EQ(k_.run({"build"}).status, 0);
    // Killed after 120 s (a hang guard, not a timing): without the default limit the statement
    // would run until ctest gives up, and this test fails on the status instead.
    Outcome r = k_.run_guarded(
        {"sql", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"}, 120);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.err, "ran past its time limit of 10000 ms")) << r.err;
}

// SQLite's heap is held while the statement runs, so a sort of an endless CTE fails clearly
// instead of taking the machine's memory (or, spilled, its /var/tmp).
TEST(HostileQueryLimits, AStatementPastItsMemoryIsRefused) {
    kvcat::test::TempDir dir;
    kvcat::LintResult shipped = kvcat::lint_paths({fs::path(KVCAT_FIXTURES_DIR) / "seed-catalog/records"});
    fs::path db = dir.path() / "kvcat.db";
    kvcat::build_catalog(shipped.records, db);
    kvcat::QueryLimits limits;
    limits.max_memory_bytes = std::size_t{8} << 20;
    limits.timeout = std::chrono::seconds(30);
    try {
        kvcat::run_read_only(
            db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(DISTINCT x) FROM c", {},
            limits);
        FAIL() << "an endless sort finished";
    } catch (const kvcat::CatalogError& e) {
        EXPECT_TRUE(contains(e.what(), "needs more than the 8 MiB of memory")) << e.what();
    }
    // The limit is put back: the next statement runs as before.
    EXPECT_EQ(kvcat::run_read_only(db, "SELECT count(*) FROM kv_rows").rows.size(), 1u);
}

/// SELECT of `columns` columns, each named by 1000 letters, over `rows` rows: a few bytes a
/// cell in memory, a kilobyte a cell in JSON, where each row repeats every name.
std::string wide_select(int columns, int rows) {
    std::string sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < " +
                      std::to_string(rows) + ") SELECT ";
    for (int i = 0; i < columns; ++i) {
        if (i) sql += ", ";
        sql += "x AS " + std::string(1000, static_cast<char>('a' + i));
    }
    return sql + " FROM c";
}

TEST_F(HostileQueries, AWideAnswerIsBoundedInEveryFormatNotOnlyInMemory) {
    for (const char* format : {"ndjson", "json", "table", "vertical"}) {
        Outcome r = k_.run({"sql", "--format", format, "--max-output-bytes", "1000000", wide_select(10, 2000)});
        EXPECT_EQ(r.status, 2) << format;
        EXPECT_TRUE(contains(r.err, "larger than the output limit of 1000000 bytes (--max-output-bytes)"))
            << format << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << format << ": " << r.out.size() << " bytes printed";
    }
    // The same answer, narrow enough, is written whole.
    Outcome small = k_.run({"sql", "--format", "ndjson", "--max-output-bytes", "1000000", wide_select(2, 20)});
    EXPECT_EQ(small.status, 0) << small.err;
    EXPECT_EQ(std::count(small.out.begin(), small.out.end(), '\n'), 20);
}

// OWASP, "CSV Injection": a cell a spreadsheet would run as a formula gets a leading '.
TEST_F(HostileQueries, CsvAndTsvCellsNeverStartAFormula) {
    const std::string sql =
        "SELECT '=HYPERLINK(\"http://x\")' AS f, '+1' AS p, '-2' AS m, '@SUM(A1)' AS a, char(9) || 'x' AS t, "
        "char(13) || 'x' AS r, -3 AS n, 'plain' AS s";
    Outcome csv = k_.run({"sql", "--format", "csv", sql});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_EQ(csv.out,
              "f,p,m,a,t,r,n,s\r\n\"'=HYPERLINK(\"\"http://x\"\")\",'+1,'-2,'@SUM(A1),'\tx,\"'\rx\",-3,plain\r\n");
    Outcome tsv = k_.run({"sql", "--format", "tsv", sql});
    ASSERT_EQ(tsv.status, 0) << tsv.err;
    EXPECT_EQ(tsv.out, "f\tp\tm\ta\tt\tr\tn\ts\n'=HYPERLINK(\"http://x\")\t'+1\t'-2\t'@SUM(A1)\t' x\t' x\t-3\tplain\n");
    Outcome raw = k_.run({"sql", "--format", "csv", "--no-formula-guard", sql});
    ASSERT_EQ(raw.status, 0) << raw.err;
    EXPECT_EQ(raw.out, "f,p,m,a,t,r,n,s\r\n\"=HYPERLINK(\"\"http://x\"\")\",+1,-2,@SUM(A1),\tx,\"\rx\",-3,plain\r\n");
    // A column name is a cell too.
    Outcome named = k_.run({"sql", "--format", "csv", "SELECT 1 AS \"=cmd\""});
    EXPECT_EQ(named.out, "'=cmd\r\n1\r\n");
}

TEST_F(HostileQueries, QueryGuardsARecordsFormulaCell) {
    const fs::path row = k_.dir() / "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml";
    std::string text = read_file(row);
    auto at = text.find("engine_version: null");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 20, "engine_version: \"=HYPERLINK(\\\"http://attacker.example\\\", \\\"b1234\\\")\"");
    write_file(row, text);
    Outcome lint = k_.run({"lint"});
    ASSERT_EQ(lint.status, 0) << lint.out << lint.err;
    Outcome csv = k_.run({"query", "--format", "csv", "--columns", "engine_version", "engine=llama.cpp"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_EQ(csv.out, "engine_version\r\n\"'=HYPERLINK(\"\"http://attacker.example\"\", \"\"b1234\"\")\"\r\n");
    Outcome raw =
        k_.run({"query", "--format", "csv", "--no-formula-guard", "--columns", "engine_version", "engine=llama.cpp"});
    EXPECT_EQ(raw.out, "engine_version\r\n\"=HYPERLINK(\"\"http://attacker.example\"\", \"\"b1234\"\")\"\r\n");
}

TEST(HostileRender, FormulaGuardLeavesNumbersAndQuotesAloneAndIsOffOnRequest) {
    EXPECT_EQ(kvcat::formula_guarded("=1"), "'=1");
    EXPECT_EQ(kvcat::formula_guarded("'=1"), "'=1");
    EXPECT_EQ(kvcat::formula_guarded(" =1"), " =1");
    EXPECT_EQ(kvcat::formula_guarded(""), "");
    kvcat::Table t;
    t.columns = {"v", "n"};
    t.rows.push_back({std::string("-x"), std::int64_t{-5}});
    EXPECT_EQ(kvcat::render_table(t, kvcat::TableFormat::csv), "v,n\r\n'-x,-5\r\n");
    kvcat::RenderOptions off;
    off.formula_guard = false;
    EXPECT_EQ(kvcat::render_table(t, kvcat::TableFormat::csv, off), "v,n\r\n-x,-5\r\n");
    EXPECT_EQ(kvcat::render_table(t, kvcat::TableFormat::json), "[\n  {\n    \"v\": \"-x\",\n    \"n\": -5\n  }\n]\n");
}

// One lint_ignore naming a piece of a claim ("=") silenced every wrong claim of its record,
// and the record entered the catalog; a claim is now named whole.
TEST_F(HostileQueries, ALintIgnoreNamesAWholeClaimNotAPieceOfOne) {
    const fs::path row = k_.dir() / "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml";
    std::string text = read_file(row);
    auto at = text.find("\nnotes:");
    ASSERT_NE(at, std::string::npos);
    for (const char* piece : {"=", "x", "2"}) {
        std::string hostile = text;
        hostile.insert(at, std::string("\nlint_ignore:\n  - rule: prose-arithmetic\n    claim: \"") + piece +
                               "\"\n    reason: quoted\n");
        auto body = hostile.find('\n', hostile.find("\nnotes:") + 1);
        hostile.insert(body + 1, "  Wrong on purpose: 2 x 3 = 7, 4 x 4 = 17 and 10 x 10 = 99.\n");
        write_file(row, hostile);
        Outcome lint = k_.run({"lint"});
        EXPECT_EQ(lint.status, 1) << piece << "\n" << lint.out;
        std::size_t wrong = 0;
        for (auto p = lint.out.find("[prose-arithmetic]"); p != std::string::npos;
             p = lint.out.find("[prose-arithmetic]", p + 1))
            ++wrong;
        EXPECT_EQ(wrong, 3u) << piece << "\n" << lint.out;
        EXPECT_TRUE(contains(lint.out, "silences nothing")) << piece << "\n" << lint.out;
    }
}

}  // namespace
