// Incremental builds: nothing changed costs only metadata, a change re-checks what depends on
// it, and the result always equals a full build's.
#include <filesystem>
#include <fstream>
#include <set>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "catalog/build_plan.h"
#include "catalog/catalog_writer.h"
#include "check/lint.h"
#include "kvcat_runner.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

/// A records tree: the seed catalog (tests/fixtures/seed-catalog) plus `rows` copies of the
/// 27B row at other contexts, so the counts below do not move as records/ grows.
void make_records(const fs::path& root, int rows) {
    fs::copy(fs::path(KVCAT_FIXTURES_DIR) / "seed-catalog/records", root, fs::copy_options::recursive);
    std::string base = test::read_file(root / "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml");
    for (int i = 0; i < rows; ++i) {
        std::string text = base;
        auto replace = [&](const std::string& from, const std::string& to) {
            auto at = text.find(from);
            ASSERT_NE(at, std::string::npos) << from;
            text.replace(at, from.size(), to);
        };
        std::string name = "copy-" + std::to_string(i);
        replace("id: kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k", "id: kv-efficiency/copies/" + name);
        replace("context_length: 65536", "context_length: " + std::to_string(4096 * (i + 1)));
        replace("measured_tps_at_ctx: 28.8", "measured_tps_at_ctx: null");
        // A copy measures nothing, so the seed's acknowledgement of its unaddressed source goes.
        text.erase(text.find("lint_ignore:\n  - rule: source-url\n"));
        test::write_file(root / "kv-efficiency/copies" / (name + ".yaml"), text);
    }
}

/// Every table of a catalog, rows sorted, as text: two catalogs are equal when this is.
std::string dump(const fs::path& db_path) {
    SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
    std::string out;
    for (const char* table : {"models", "accelerators", "kv_efficiency", "sources", "column_info", "files",
                              "lint_findings", "build_meta"}) {
        SQLite::Statement q(db, std::string("SELECT * FROM ") + table + " ORDER BY 1, 2");
        out += std::string("== ") + table + "\n";
        while (q.executeStep()) {
            for (int c = 0; c < q.getColumnCount(); ++c) {
                out += q.getColumn(c).isNull() ? std::string("NULL") : q.getColumn(c).getString();
                out += '|';
            }
            out += '\n';
        }
    }
    return out;
}

struct Built {
    LintResult lint;
    BuildStats stats;
    BuildPlan plan;
};

/// What `kvcat build` does, through the library.
Built build(const fs::path& root, const fs::path& db, bool incremental) {
    Built b;
    if (incremental) b.plan = plan_build(db, root);
    if (b.plan.up_to_date) return b;
    CatalogWriter writer(db, b.plan.incremental ? std::optional<fs::path>(db) : std::nullopt);
    LintOptions options;
    options.sink = &writer;
    options.keep_rows = false;
    options.threads = 2;
    if (b.plan.incremental) {
        writer.copy_unchanged(b.plan);  // before the first row
        options.unchanged = [&b](const std::string& file) { return b.plan.unchanged.find(file); };
    }
    b.lint = lint_paths({root}, options);
    EXPECT_FALSE(has_errors(b.lint.diagnostics));
    writer.set_findings(b.lint.diagnostics, b.lint.ignored);
    writer.set_built_from(root);
    b.stats = writer.commit();
    return b;
}

class IncrementalBuild : public ::testing::Test {
  protected:
    void SetUp() override {
        make_records(root_, 12);
        first_ = build(root_, db_, true);
    }

    /// A full build of the same records into another file must dump the same.
    void expect_equals_full_build() {
        fs::path other = dir_ / "full.db";
        fs::remove(other);
        build(root_, other, false);
        EXPECT_EQ(dump(db_), dump(other));
    }

    test::TempDir dir_;
    fs::path root_ = dir_ / "records";
    fs::path db_ = dir_ / "kvcat.db";
    Built first_;
};

TEST_F(IncrementalBuild, FirstBuildIsFull) {
    EXPECT_FALSE(first_.plan.incremental);
    EXPECT_EQ(first_.stats.rows, 14u);
    EXPECT_EQ(first_.lint.rows_read, 14u);
}

TEST_F(IncrementalBuild, NothingChangedOnlyLooksAtMetadata) {
    std::string before = test::read_file(db_);
    Built again = build(root_, db_, true);
    EXPECT_TRUE(again.plan.up_to_date);
    EXPECT_EQ(again.lint.rows_read, 0u);
    EXPECT_EQ(test::read_file(db_), before);  // not even rewritten
}

TEST_F(IncrementalBuild, OneChangedRowIsTheOnlyOneRead) {
    fs::path row = root_ / "kv-efficiency/copies/copy-3.yaml";
    std::string text = test::read_file(row);
    text.replace(text.find("measured_tps_at_ctx: null"), 25, "measured_tps_at_ctx: 25.5");
    test::write_file(row, text);
    Built again = build(root_, db_, true);
    EXPECT_TRUE(again.plan.incremental);
    EXPECT_EQ(again.lint.rows_read, 1u);
    EXPECT_EQ(again.lint.rows_unchanged, 13u);
    EXPECT_EQ(again.stats.rows, 14u);
    EXPECT_EQ(again.stats.rows_copied, 13u);
    expect_equals_full_build();
}

TEST_F(IncrementalBuild, ChangedModelRechecksEveryRowThatNamesIt) {
    fs::path model = root_ / "models/qwen3.5-27b.yaml";
    std::string text = test::read_file(model);
    text.replace(text.find("native_context: 262144"), 22, "native_context: 32768");
    test::write_file(model, text);
    Built again = build(root_, db_, true);
    // The 27B row and its 12 copies name the model; the 35B row does not (it names the 27B only
    // as measured_on_model, which counts too).
    EXPECT_EQ(again.lint.rows_read, 14u);
    // Rows above the new native context now warn, in the incremental build as in a full one.
    bool warned = false;
    for (const auto& d : again.lint.diagnostics) warned = warned || d.rule == "context-above-native";
    EXPECT_TRUE(warned);
    expect_equals_full_build();
}

/// The row files a plan takes unchanged from the catalog, relative to the root.
std::set<std::string> unchanged_rows(const BuildPlan& plan, const fs::path& root) {
    std::set<std::string> out;
    for (const auto& [file, u] : plan.unchanged) {
        out.insert(fs::path(file).lexically_relative(root.lexically_normal()).generic_string());
        // A file kept is never one whose rows are dropped.
        for (const auto& [path, id] : plan.dropped) EXPECT_NE(path, file);
    }
    return out;
}

TEST_F(IncrementalBuild, PlanForAChangedModelReadsAgainExactlyTheRowsThatNameIt) {
    // Only the 35B row names the 35B model: the plan keeps every other row, not that one.
    fs::path model = root_ / "models/qwen3.5-35b-a3b.yaml";
    test::write_file(model, test::read_file(model) + "# edited\n");
    BuildPlan plan = plan_build(db_, root_);
    ASSERT_TRUE(plan.incremental) << plan.reason;
    EXPECT_FALSE(plan.up_to_date);
    EXPECT_EQ(plan.changed_files, 1u);
    std::set<std::string> kept = unchanged_rows(plan, root_);
    EXPECT_EQ(kept.size(), 13u);
    EXPECT_FALSE(kept.count("kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k.yaml"));
    EXPECT_TRUE(kept.count("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml"));
    EXPECT_TRUE(kept.count("kv-efficiency/copies/copy-0.yaml"));
}

TEST_F(IncrementalBuild, PlanForAModelNamedAsMeasuredOnModelReadsThatRowAgainToo) {
    // The 27B is named by its row, the 12 copies, and the 35B row (as measured_on_model).
    fs::path model = root_ / "models/qwen3.5-27b.yaml";
    test::write_file(model, test::read_file(model) + "# edited\n");
    BuildPlan plan = plan_build(db_, root_);
    ASSERT_TRUE(plan.incremental) << plan.reason;
    EXPECT_TRUE(unchanged_rows(plan, root_).empty());
}

TEST_F(IncrementalBuild, PlanForAnAcceleratorNoRowNamesKeepsEveryRow) {
    fs::path accel = root_ / "accelerators/nvidia-h100-sxm.yaml";
    test::write_file(accel, test::read_file(accel) + "# edited\n");
    BuildPlan plan = plan_build(db_, root_);
    ASSERT_TRUE(plan.incremental) << plan.reason;
    EXPECT_EQ(unchanged_rows(plan, root_).size(), 14u);
    EXPECT_EQ(plan.changed_files, 1u);
}

TEST_F(IncrementalBuild, PlanWithNothingChangedIsUpToDate) {
    BuildPlan plan = plan_build(db_, root_);
    EXPECT_TRUE(plan.up_to_date) << plan.reason;
}

TEST_F(IncrementalBuild, ChangedAcceleratorRechecksOnlyItsRows) {
    fs::path accel = root_ / "accelerators/nvidia-h100-sxm.yaml";
    ASSERT_TRUE(fs::exists(accel));
    std::string text = test::read_file(accel);
    text += "\n";
    test::write_file(accel, text);
    Built again = build(root_, db_, true);
    EXPECT_EQ(again.lint.rows_read, 0u);  // no row names the H100
    EXPECT_EQ(again.stats.rows_copied, 14u);
    expect_equals_full_build();
}

TEST_F(IncrementalBuild, RemovedAndAddedRows) {
    fs::remove(root_ / "kv-efficiency/copies/copy-0.yaml");
    std::string text = test::read_file(root_ / "kv-efficiency/copies/copy-1.yaml");
    text.replace(text.find("copies/copy-1"), 13, "copies/copy-x");
    test::write_file(root_ / "kv-efficiency/copies/copy-x.yaml", text);
    Built again = build(root_, db_, true);
    EXPECT_EQ(again.lint.rows_read, 1u);
    EXPECT_EQ(again.stats.rows, 14u);
    expect_equals_full_build();
}

TEST_F(IncrementalBuild, TouchedButUnchangedIsNotReadAgain) {
    fs::path row = root_ / "kv-efficiency/copies/copy-5.yaml";
    fs::last_write_time(row, fs::last_write_time(row) + std::chrono::seconds(10));
    Built again = build(root_, db_, true);
    EXPECT_FALSE(again.plan.up_to_date);
    EXPECT_EQ(again.lint.rows_read, 0u);
    EXPECT_TRUE(build(root_, db_, true).plan.up_to_date);  // the new time was remembered
    expect_equals_full_build();
}

TEST_F(IncrementalBuild, WarningsOfUnreadFilesAreStillReported) {
    // Make one row warn, build, then change another: the warning must survive unread.
    fs::path row = root_ / "kv-efficiency/copies/copy-2.yaml";
    std::string text = test::read_file(row);
    text.replace(text.find("context_length: 12288"), 21, "context_length: 524288");
    test::write_file(row, text);
    Built warned = build(root_, db_, true);
    ASSERT_EQ(warned.lint.diagnostics.size(), 2u);  // above native context, and exceeds memory
    fs::path other = root_ / "kv-efficiency/copies/copy-7.yaml";
    test::write_file(other, test::read_file(other) + "\n");
    Built again = build(root_, db_, true);
    EXPECT_EQ(again.lint.rows_read, 1u);
    ASSERT_EQ(again.lint.diagnostics.size(), 2u);
    EXPECT_EQ(again.lint.diagnostics[0].pos.file, warned.lint.diagnostics[0].pos.file);
    EXPECT_EQ(again.lint.diagnostics[0].message, warned.lint.diagnostics[0].message);
    expect_equals_full_build();
}

TEST_F(IncrementalBuild, AnotherSchemaOrRootMeansAFullBuild) {
    fs::path elsewhere = dir_ / "other-records";
    fs::copy(root_, elsewhere, fs::copy_options::recursive);
    BuildPlan plan = plan_build(db_, elsewhere);
    EXPECT_FALSE(plan.incremental);
    EXPECT_EQ(plan.reason, "the catalog was built from other records");
}

TEST_F(IncrementalBuild, PlanSaysWhenABuildWillStartFromThePreviousCatalog) {
    // The command copies the previous catalog while the plan compares files: it must be told
    // exactly when a rebuild from those bytes follows, and never when nothing is to be done.
    int started = 0;
    auto count = [&started] { ++started; };
    BuildPlan same = plan_build(db_, root_, count);
    EXPECT_TRUE(same.up_to_date);
    EXPECT_EQ(started, 0);
    EXPECT_FALSE(plan_build(dir_ / "none-yet.db", root_, count).incremental);
    EXPECT_EQ(started, 0);
    fs::path row = root_ / "kv-efficiency/copies/copy-5.yaml";
    test::write_file(row, test::read_file(row) + "\n");
    BuildPlan changed = plan_build(db_, root_, count);
    EXPECT_TRUE(changed.incremental);
    EXPECT_FALSE(changed.up_to_date);
    EXPECT_EQ(started, 1);
}

TEST(StampFiles, EverySlotIsThatFilesStampWhateverTheThreads) {
    // More files than one thread takes, some missing: each slot must be its own file's stat,
    // however the list is cut between threads.
    test::TempDir dir;
    std::vector<std::string> files;
    for (int i = 0; i < 9000; ++i) {
        fs::path f = dir / ("f-" + std::to_string(i));
        if (i % 7 != 3) test::write_file(f, std::string(static_cast<std::size_t>(i % 50), 'x'));
        files.push_back(f.string());
    }
    std::vector<std::optional<FileStamp>> expected;
    for (const auto& f : files) expected.push_back(stamp_of(f));
    for (unsigned threads : {1u, 2u, 3u, 0u}) {
        std::vector<std::optional<FileStamp>> got = stamp_files(files, threads);
        ASSERT_EQ(got.size(), files.size()) << threads;
        for (std::size_t i = 0; i < files.size(); ++i) {
            ASSERT_EQ(got[i].has_value(), i % 7 != 3) << files[i] << " on " << threads << " threads";
            if (got[i]) {
                ASSERT_EQ(*got[i], *expected[i]) << files[i] << " on " << threads << " threads";
                ASSERT_EQ(got[i]->size, static_cast<std::int64_t>(i % 50)) << files[i];
            }
        }
    }
}

TEST(IncrementalBuildCommand, OneChangedRowGivesWhatAFullBuildGives) {
    // Through the command, whose new catalog is copied on another thread while it plans.
    test::KvcatRunner k;
    ASSERT_EQ(k.run({"build"}).status, 0);
    fs::path row = k.dir() / "records/kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k.yaml";
    std::string text = test::read_file(row);
    auto at = text.find("methodology: |");
    ASSERT_NE(at, std::string::npos);
    text.insert(at + 14, "\n  Rebuilt once.");
    test::write_file(row, text);
    test::Outcome one = k.run({"-v", "build"});
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_TRUE(test::contains(one.err, "incremental build: 1 file changed")) << one.err;
    EXPECT_TRUE(test::contains(one.err, "(1 read, 1 unchanged)")) << one.err;
    test::Outcome full = k.run({"build", "--full", "--db", "full.db"});
    ASSERT_EQ(full.status, 0) << full.err;
    EXPECT_EQ(dump(k.dir() / "kvcat.db"), dump(k.dir() / "full.db"));
    EXPECT_TRUE(test::contains(dump(k.dir() / "kvcat.db"), "Rebuilt once."));
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(k.dir(), ec)) {
        EXPECT_FALSE(entry.path().filename().string().starts_with("kvcat.db.tmp-")) << entry.path();
    }
}

}  // namespace
}  // namespace kvcat
