// LintOptions::judge_only: fit, plan, curve and predict read every record and judge only the ones
// they answer from; what they are given must be what a whole lint gives, but for findings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "check/lint.h"
#include "check/record_ref.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

/// The first catalog with three faults: an unknown key in two models and a row (a finding of the
/// reading), and one model's kv_layers.count off by one (a rule's finding).
fs::path faulty_records(const TempDir& dir) {
    fs::path records = dir / "records";
    fs::copy(fs::path(KVCAT_FIXTURES_DIR) / "seed-catalog/records", records, fs::copy_options::recursive);
    for (const char* file :
         {"models/qwen3.5-27b.yaml", "models/gemma-3-27b.yaml", "kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml"}) {
        std::string text = test::read_file(records / file) + "bogus_field: 1\n";
        test::write_file(records / file, text);
    }
    fs::path model = records / "models/qwen3.5-27b.yaml";
    std::string text = test::read_file(model);
    text.replace(text.find("  count: 16\n"), 12, "  count: 15\n");
    test::write_file(model, text);
    return records;
}

std::vector<std::string> ids_of(const LintResult& lint) {
    std::vector<std::string> ids;
    for (const auto& r : lint.records.records()) ids.push_back(r.id);
    return ids;
}

std::vector<std::string> findings_of(const LintResult& lint) {
    std::vector<std::string> out;
    for (const auto& d : lint.diagnostics) {
        out.push_back(fs::path(d.pos.file).filename().string() + ":" + std::to_string(d.pos.line) + ":" +
                      std::to_string(d.pos.column) + " " + d.rule);
    }
    return out;
}

TEST(JudgeOnly, TheNamedRecordsAreJudgedAsAWholeLintJudgesThemAndTheRestAreReadUnjudged) {
    TempDir dir;
    fs::path records = faulty_records(dir);
    LintResult whole = lint_paths({records});
    ASSERT_EQ(findings_of(whole), (std::vector<std::string>{
                                      "llamacpp-qwen35-27b-rtx3090-64k.yaml:76:1 schema-unknown-key",
                                      "gemma-3-27b.yaml:46:1 schema-unknown-key",
                                      "qwen3.5-27b.yaml:17:3 model-layers",
                                      "qwen3.5-27b.yaml:45:1 schema-unknown-key",
                                  }));

    // As fit names them: a model by its short id, a card by its whole one.
    LintOptions options;
    std::vector<std::string> judged;
    options.judge_only = [&](const RecordSet& refs) {
        auto files = files_named(refs, {{"qwen3.5-27b", RecordKind::model},
                                        {"accelerators/nvidia-rtx-3090", RecordKind::accelerator},
                                        {"no-such-card", RecordKind::accelerator}});
        judged.assign(files.begin(), files.end());
        return files;
    };
    LintResult some = lint_paths({records}, options);
    ASSERT_EQ(judged.size(), 2u);
    EXPECT_TRUE(judged[0].ends_with("accelerators/nvidia-rtx-3090.yaml")) << judged[0];
    EXPECT_TRUE(judged[1].ends_with("models/qwen3.5-27b.yaml")) << judged[1];
    // The model's findings, the reading's and the rule's, word for word; nothing of the others.
    ASSERT_EQ(some.diagnostics.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(format_text(some.diagnostics[i]), format_text(whole.diagnostics[i + 2]));
    }
    // Every record read as the whole lint reads it, rows too.
    EXPECT_EQ(ids_of(some), ids_of(whole));
    EXPECT_EQ(some.rows_read, whole.rows_read);
    EXPECT_EQ(some.files, whole.files);
}

TEST(JudgeOnly, JudgingNoneReadsEveryRecordAndSaysNothing) {
    TempDir dir;
    fs::path records = faulty_records(dir);
    LintResult whole = lint_paths({records});
    LintResult none = lint_paths({records}, judging_none());
    EXPECT_TRUE(none.diagnostics.empty()) << findings_of(none).front();
    EXPECT_TRUE(none.ignored.empty());
    EXPECT_TRUE(none.notes.empty());
    EXPECT_EQ(ids_of(none), ids_of(whole));
    EXPECT_EQ(none.rows_read, whole.rows_read);
    // A record of each kind reaches the command whole: the faulty model's layers as written.
    const Record* model = none.records.find("models/qwen3.5-27b");
    ASSERT_TRUE(model && model->model);
    EXPECT_EQ(model->model->kv_layers.count, std::optional<std::int64_t>(15));
}

}  // namespace
}  // namespace kvcat
