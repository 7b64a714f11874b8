// Records that hold a curve: `measurements:` lists, one catalog row per point, every
// per-row rule judged per point at the point's own line, totals and concurrency, quality
// results, and a stated weight size that gives a mixed-recipe row its ceiling.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"
#include "check/lint.h"
#include "import/skeleton.h"
#include "output/explain.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

const fs::path kRecords = fs::path(KVCAT_SOURCE_DIR) / "records";

/// A records root holding the shipped Qwen3.5-27B and RTX 3090 records and one kv-efficiency
/// record with the given text, as kv-efficiency/<name>.yaml.
class CurveRoot {
  public:
    CurveRoot(const std::string& name, const std::string& text) {
        test::write_file(dir_ / "models/qwen3.5-27b.yaml", test::read_file(kRecords / "models/qwen3.5-27b.yaml"));
        test::write_file(dir_ / "accelerators/nvidia-rtx-3090.yaml",
                         test::read_file(kRecords / "accelerators/nvidia-rtx-3090.yaml"));
        test::write_file(dir_ / ("kv-efficiency/" + name + ".yaml"), text);
    }
    LintResult lint() const { return lint_paths({dir_.path()}); }
    const test::TempDir& dir() const { return dir_; }

  private:
    test::TempDir dir_;
};

/// The head of a llama.cpp Q4_K record on the RTX 3090, up to (not including) its points.
std::string head(const std::string& id, const std::string& extra = "") {
    return "id: kv-efficiency/" + id +
           "\n"
           "model: models/qwen3.5-27b\n"
           "accelerator: accelerators/nvidia-rtx-3090\n"
           "engine: llama.cpp\n"
           "engine_version: null\n"
           "weight_quant: Q4_K\n"
           "kv_cache_dtype: f16\n"
           "attention_variant: hybrid\n" +
           extra +
           "kv_bytes_per_token: 65536\n"
           "kv_bytes_basis:\n"
           "  layers: 16\n"
           "  kv_heads: 4\n"
           "  head_dim: 256\n"
           "  kv_factor: 2\n"
           "  bytes_per_element: 2\n"
           "  statement: \"16 full-attention layers x 4 kv heads x 256 head_dim x 2 (K+V) x 2 bytes = 65,536 "
           "B/token\"\n";
}

const std::string kTail =
    "methodology: |\n"
    "  Made up for the test.\n"
    "notes: |\n"
    "  Made up for the test.\n"
    "sources:\n"
    "  - name: test\n"
    "    url: https://kvcat.invalid/fixtures/curve\n"
    "    date: 2026-03-01\n"
    "gpus: 1\n";  // last, so that the lines the tests name stay where they are

/// Four points at depths 0 to 32k, one of them (8k) with four requests in flight.
std::string curve(const std::string& tps_at_32k = "31.0", const std::string& extra_point = "") {
    return head("curve") +
           "measurements:\n"
           "  - context_length: 0\n"  // line 18
           "    measured_tps_at_ctx: 33.5\n"
           "    measured_prefill_tps_at_ctx: 1104.2\n"
           "    measured_ttft_ms_at_ctx: null\n"
           "    prompt_tokens: 512\n"
           "    gen_tokens: 128\n"
           "    tps_stddev: 0.1\n"
           "  - context_length: 16384\n"  // line 25
           "    measured_tps_at_ctx: 32.3\n"
           "    measured_prefill_tps_at_ctx: 977.4\n"
           "    measured_ttft_ms_at_ctx: null\n"
           "  - context_length: 32768\n"  // line 29
           "    measured_tps_at_ctx: " +
           tps_at_32k +
           "\n"  // line 30
           "    measured_prefill_tps_at_ctx: null\n"
           "    measured_ttft_ms_at_ctx: null\n"
           "  - context_length: 8192\n"  // line 33
           "    concurrency: 4\n"
           "    measured_tps_at_ctx: null\n"
           "    measured_total_tps_at_ctx: 80\n"  // line 36
           "    measured_prefill_tps_at_ctx: null\n"
           "    measured_ttft_ms_at_ctx: 900\n" +
           extra_point + kTail;
}

std::vector<const Diagnostic*> of_rule(const LintResult& r, const std::string& rule) {
    std::vector<const Diagnostic*> out;
    for (const auto& d : r.diagnostics) {
        if (d.rule == rule) out.push_back(&d);
    }
    return out;
}

std::string all(const LintResult& r) {
    std::string out;
    for (const auto& d : r.diagnostics) out += format_text(d) + "\n";
    return out;
}

TEST(Measurements, ACurveLintsCleanAndEachPointIsARow) {
    CurveRoot root("curve", curve());
    LintResult r = root.lint();
    ASSERT_TRUE(r.diagnostics.empty()) << all(r);
    build_catalog(r.records, root.dir() / "kvcat.db");
    Table t = run_read_only(root.dir() / "kvcat.db",
                            "SELECT id, record_id, context_length, measured_tps_at_ctx, measured_prefill_tps_at_ctx, "
                            "concurrency, prompt_tokens, gen_tokens, tps_stddev, kv_bytes_at_context, roofline_tps "
                            "FROM kv_rows ORDER BY context_length, concurrency",
                            {});
    ASSERT_EQ(t.rows.size(), 4u);
    std::vector<std::string> ids;
    for (const auto& row : t.rows) ids.push_back(std::get<std::string>(row[0]));
    EXPECT_EQ(ids, (std::vector<std::string>{"kv-efficiency/curve@0", "kv-efficiency/curve@8k-c4",
                                             "kv-efficiency/curve@16k", "kv-efficiency/curve@32k"}));
    for (const auto& row : t.rows) EXPECT_EQ(std::get<std::string>(row[1]), "kv-efficiency/curve");
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][2]), 0);
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][4]), 1104.2);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][6]), 512);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][7]), 128);
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][8]), 0.1);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[3][4]));  // not reported stays NULL
    EXPECT_EQ(std::get<std::int64_t>(t.rows[1][5]), 4);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][9]), 0);                // no cache at depth 0
    EXPECT_EQ(std::get<std::int64_t>(t.rows[3][9]), 65536LL * 32768);  // 2 GiB at 32k
    // Four requests read four caches per step: 936e9 / (15,187,500,000 + 4 x (536,870,912 + 156,893,184)).
    EXPECT_NEAR(std::get<double>(t.rows[1][10]), 936e9 / (15187500000.0 + 4 * (536870912.0 + 156893184.0)), 1e-9);
    // The depth-0 ceiling is bandwidth / (weights + state): 936e9 / (15,187,500,000 + 156,893,184).
    EXPECT_NEAR(std::get<double>(t.rows[0][10]), 936e9 / (15187500000.0 + 156893184.0), 1e-9);
    Table sources = run_read_only(root.dir() / "kvcat.db", "SELECT count(*) FROM sources WHERE record_id = ?",
                                  {std::string("kv-efficiency/curve")});
    EXPECT_EQ(std::get<std::int64_t>(sources.rows[0][0]), 1);  // one per record, not one per point
}

TEST(Measurements, FiltersSelectPoints) {
    CurveRoot root("curve", curve());
    build_catalog(root.lint().records, root.dir() / "kvcat.db");
    Table t = run_read_only(root.dir() / "kvcat.db",
                            "SELECT count(*) FROM kv_rows WHERE context_length >= 16384 AND concurrency = 1", {});
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][0]), 2);
}

TEST(Measurements, RooflineIsJudgedAtThePointsOwnLine) {
    CurveRoot root("curve", curve("500"));
    LintResult r = root.lint();
    auto found = of_rule(r, "tps-above-roofline");
    ASSERT_EQ(found.size(), 1u) << all(r);
    EXPECT_EQ(found[0]->pos.line, 30);
    EXPECT_EQ(found[0]->pos.column, 26);
    EXPECT_EQ(found[0]->stated, "500");
    // 936e9 / (15,187,500,000 + 2,147,483,648 + 156,893,184) = 53.51
    EXPECT_EQ(found[0]->computed, "53.51");
    EXPECT_NE(found[0]->message.find("2,147,483,648 bytes of KV at 32,768 tokens"), std::string::npos)
        << found[0]->message;
}

TEST(Measurements, ATotalOverConcurrentRequestsIsBoundedByTheirCeilings) {
    std::string text = curve();
    text.replace(text.find("measured_total_tps_at_ctx: 80"), 29, "measured_total_tps_at_ctx: 400");
    CurveRoot root("curve", text);
    LintResult r = root.lint();
    auto found = of_rule(r, "tps-above-roofline");
    ASSERT_EQ(found.size(), 1u) << all(r);
    EXPECT_EQ(found[0]->pos.line, 36);
    EXPECT_EQ(found[0]->stated, "400");
    // 4 x 936e9 / (15,187,500,000 + 4 x (536,870,912 + 156,893,184)) = 208.43
    EXPECT_EQ(found[0]->computed, "208.43");
    EXPECT_NE(found[0]->message.find("measured_total_tps_at_ctx 400"), std::string::npos) << found[0]->message;
}

TEST(Measurements, AContextAboveNativeIsReportedAtItsPoint) {
    std::string point =
        "  - context_length: 1048576\n"  // line 39
        "    measured_tps_at_ctx: null\n"
        "    measured_prefill_tps_at_ctx: null\n"
        "    measured_ttft_ms_at_ctx: null\n";
    CurveRoot root("curve", curve("31.0", point));
    LintResult r = root.lint();
    auto found = of_rule(r, "context-above-native");
    ASSERT_EQ(found.size(), 1u) << all(r);
    EXPECT_EQ(found[0]->pos.line, 39);
    // 1M of cache (64 GiB) and the weights overflow the 24 GB card at that point only.
    auto memory = of_rule(r, "exceeds-memory");
    ASSERT_EQ(memory.size(), 1u) << all(r);
    EXPECT_EQ(memory[0]->pos.line, 39);
}

TEST(Measurements, ConcurrencyMultipliesTheCacheInTheMemoryFit) {
    // Four requests at 8k need 4 x 512 MiB of cache: that fits; sixteen at 32k do not.
    std::string point =
        "  - context_length: 32768\n"  // line 39
        "    concurrency: 16\n"
        "    measured_tps_at_ctx: null\n"
        "    measured_prefill_tps_at_ctx: null\n"
        "    measured_ttft_ms_at_ctx: null\n";
    CurveRoot root("curve", curve("31.0", point));
    LintResult r = root.lint();
    auto found = of_rule(r, "exceeds-memory");
    ASSERT_EQ(found.size(), 1u) << all(r);
    EXPECT_EQ(found[0]->pos.line, 39);
    EXPECT_NE(found[0]->message.find("16 requests x (2,147,483,648 bytes of KV"), std::string::npos)
        << found[0]->message;
}

TEST(Measurements, ARepeatedPointIsRefused) {
    std::string point =
        "  - context_length: 16384\n"  // line 39
        "    measured_tps_at_ctx: 30\n"
        "    measured_prefill_tps_at_ctx: null\n"
        "    measured_ttft_ms_at_ctx: null\n";
    CurveRoot root("curve", curve("31.0", point));
    LintResult r = root.lint();
    auto found = of_rule(r, "schema-value");
    ASSERT_EQ(found.size(), 1u) << all(r);
    EXPECT_EQ(found[0]->pos.line, 39);
    EXPECT_NE(found[0]->message.find("repeats the point at line 25"), std::string::npos) << found[0]->message;
}

TEST(Measurements, BothFormsAtOnceAreRefused) {
    CurveRoot root("curve", head("curve", "context_length: 65536\n") +
                                "measurements:\n"
                                "  - context_length: 0\n"
                                "    measured_tps_at_ctx: 33.5\n"
                                "    measured_prefill_tps_at_ctx: null\n"
                                "    measured_ttft_ms_at_ctx: null\n" +
                                kTail);
    LintResult r = root.lint();
    auto found = of_rule(r, "schema-value");
    ASSERT_EQ(found.size(), 1u) << all(r);
    EXPECT_EQ(found[0]->pos.line, 9);
    EXPECT_NE(found[0]->message.find("cannot stand beside measurements"), std::string::npos);
}

TEST(Measurements, NeitherFormNamesWhatIsMissing) {
    CurveRoot root("curve", head("curve") + kTail);
    LintResult r = root.lint();
    auto found = of_rule(r, "schema-missing-key");
    ASSERT_EQ(found.size(), 3u) << all(r);
    EXPECT_NE(found[0]->message.find("'context_length'"), std::string::npos);
}

TEST(Measurements, AnEmptyListIsRefused) {
    CurveRoot root("curve", head("curve") + "measurements: []\n" + kTail);
    LintResult r = root.lint();
    auto found = of_rule(r, "schema-value");
    ASSERT_EQ(found.size(), 1u) << all(r);
    EXPECT_NE(found[0]->message.find("at least one point"), std::string::npos);
}

TEST(Measurements, AnIdTagNamesTheLongestPoint) {
    std::string text = curve();
    // The record's longest point is 32k: -32k agrees, -16k does not.
    CurveRoot good("curve-32k",
                   std::string(text).replace(text.find("kv-efficiency/curve"), 19, "kv-efficiency/curve-32k"));
    EXPECT_TRUE(of_rule(good.lint(), "id-context-tag").empty()) << all(good.lint());
    CurveRoot bad("curve-16k",
                  std::string(text).replace(text.find("kv-efficiency/curve"), 19, "kv-efficiency/curve-16k"));
    LintResult r = bad.lint();
    auto found = of_rule(r, "id-context-tag");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]->computed, "32,768");
}

TEST(Measurements, AStatedWeightSizeGivesAMixedRecipeItsCeiling) {
    std::string text = curve();
    text.replace(text.find("weight_quant: Q4_K"), 18, "weight_quant: Q4_K_M\nweight_bytes: 16000000000");
    CurveRoot root("curve", text);
    LintResult r = root.lint();
    ASSERT_TRUE(r.diagnostics.empty()) << all(r);
    build_catalog(r.records, root.dir() / "kvcat.db");
    Table t = run_read_only(root.dir() / "kvcat.db",
                            "SELECT weight_bytes, weight_bytes_source, roofline_tps FROM kv_rows WHERE id = ?",
                            {std::string("kv-efficiency/curve@0")});
    ASSERT_EQ(t.rows.size(), 1u);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][0]), 16000000000LL);
    EXPECT_EQ(std::get<std::string>(t.rows[0][1]), "stated");
    // A dense model reads all its weights per token: 936e9 / (16e9 + 156,893,184).
    EXPECT_NEAR(std::get<double>(t.rows[0][2]), 936e9 / (16e9 + 156893184.0), 1e-9);

    // Without weight_bytes a mixed recipe has no exact size, and so no ceiling at all.
    std::string nominal = curve();
    nominal.replace(nominal.find("weight_quant: Q4_K"), 18, "weight_quant: Q4_K_M");
    CurveRoot none("curve", nominal);
    build_catalog(none.lint().records, none.dir() / "kvcat.db");
    Table n = run_read_only(none.dir() / "kvcat.db", "SELECT weight_bytes, roofline_tps FROM kv_rows LIMIT 1", {});
    EXPECT_TRUE(std::holds_alternative<std::monostate>(n.rows[0][0]));
    EXPECT_TRUE(std::holds_alternative<std::monostate>(n.rows[0][1]));
}

/// A pass fixture, linted clean and built into a catalog, and `sql` asked of that catalog.
Table query_of_clean_fixture(const std::string& fixture, const std::string& sql) {
    LintResult r = lint_paths({test::fixture_path(fixture)});
    EXPECT_TRUE(r.diagnostics.empty()) << all(r);
    test::TempDir dir;
    build_catalog(r.records, dir / "kvcat.db");
    return run_read_only(dir / "kvcat.db", sql, {});
}

TEST(Measurements, QualityResultsAreRowsBesideTheirRecord) {
    Table t = query_of_clean_fixture("quality-recovery/pass",
                                     "SELECT model, kv_cache_dtype, baseline_kv_cache_dtype, value, baseline_value, "
                                     "recovery_percent, higher_is_better FROM quality_rows ORDER BY value DESC");
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "models/qwen3.5-27b");
    EXPECT_EQ(std::get<std::string>(t.rows[0][1]), "fp8_e4m3");  // vLLM's fp8, in the catalog's name
    EXPECT_EQ(std::get<std::string>(t.rows[0][2]), "bf16");
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][3]), 91.2);
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][5]), 98.1);  // as stated
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][6]), 1);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[1][4]));  // a ratio-only result has no baseline
}

TEST(Measurements, QualityRowsSayWhatTheyAreComparedWith) {
    Table t = query_of_clean_fixture("quality-baseline/pass",
                                     "SELECT comparison, baseline_kv_cache_dtype, baseline_value FROM quality_rows "
                                     "ORDER BY position");
    ASSERT_EQ(t.rows.size(), 3u);
    // A plain perplexity names no baseline run at all.
    EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "score");
    EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[0][1]));
    // A divergence from the bf16 run's logits is measured against that run.
    EXPECT_EQ(std::get<std::string>(t.rows[1][0]), "against-baseline");
    EXPECT_EQ(std::get<std::string>(t.rows[1][1]), "bf16");
    EXPECT_TRUE(std::holds_alternative<std::monostate>(t.rows[1][2]));
    // A score printed beside the baseline run's own.
    EXPECT_EQ(std::get<std::string>(t.rows[2][0]), "beside-baseline");
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[2][2]), 93.0);
}

TEST(Measurements, QualityRecoveryIsRecomputed) {
    LintResult r = lint_paths({test::fixture_path("quality-recovery/fail")});
    auto found = of_rule(r, "quality-recovery");
    ASSERT_EQ(found.size(), 1u) << all(r);
    EXPECT_EQ(found[0]->pos.line, 30);
    EXPECT_EQ(found[0]->pos.column, 23);
    EXPECT_EQ(found[0]->stated, "99.1");
    EXPECT_EQ(found[0]->computed, "98.1");
}

TEST(Measurements, ExplainListsEveryPointWithTheCeilingApplied) {
    CurveRoot root("curve", curve());
    LintResult r = root.lint();
    const Record* rec = r.records.find("kv-efficiency/curve");
    ASSERT_NE(rec, nullptr);
    nlohmann::json e = explain_record(r, *rec);
    ASSERT_EQ(e["points"].size(), 4u);
    EXPECT_EQ(e["points"][2]["context_length"], 32768);
    EXPECT_NEAR(e["points"][2]["roofline_tps"].get<double>(), 936e9 / (15187500000.0 + 2147483648.0 + 156893184.0),
                1e-9);
    EXPECT_NEAR(e["points"][2]["roofline_fraction"].get<double>(),
                31.0 / (936e9 / (15187500000.0 + 2147483648.0 + 156893184.0)), 1e-9);
    std::string text = render_explanation_text(e);
    EXPECT_NE(text.find("Measured points"), std::string::npos) << text;
    EXPECT_NE(text.find("ceiling 53.51 t/s"), std::string::npos) << text;
    // The batch point: its total is shown, and its ceiling is worked out in the lint's words
    // (physics.h roofline_how), four requests' KV and state each.
    const auto& batch = e["points"][3];
    EXPECT_EQ(batch["concurrency"], 4);
    EXPECT_EQ(batch["measured_total_tps_at_ctx"], 80.0);
    EXPECT_EQ(batch["roofline_how"],
              "936 GB/s / (15,187,500,000 bytes of Q4_K weights + 4 requests x (536,870,912 bytes of KV at 8,192 "
              "tokens + 156,893,184 bytes of fixed state))");
    EXPECT_NE(text.find("x4  total 80 t/s"), std::string::npos) << text;
}

TEST(Measurements, ASkeletonCurveFailsOnlyOnWhatAPersonWrites) {
    LintResult catalog = lint_paths({kRecords});
    SkeletonOptions o;
    o.model = "qwen3.5-27b";
    o.engine = "llama.cpp";
    o.kv_dtype = "f16";
    o.accelerator = "nvidia-rtx-3090";
    o.weight_quant = "Q4_K";
    for (std::int64_t c : {0, 16384, 32768, 65536}) {
        MeasurementPoint p;
        p.context_length = c;
        o.points.push_back(p);
    }
    Skeleton s = make_kv_skeleton(catalog, o);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(s.id, "kv-efficiency/llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k-f16-64k");
    EXPECT_NE(s.text.find("measurements:\n  - context_length: 0\n"), std::string::npos) << s.text;
    EXPECT_EQ(s.text.find("\ncontext_length:"), std::string::npos) << s.text;
    CurveRoot root("llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k-f16-64k", s.text);
    LintResult r = root.lint();
    std::vector<std::string> missing;
    for (const auto& d : r.diagnostics) {
        EXPECT_EQ(d.rule, "schema-missing-key") << format_text(d);
        missing.push_back(d.message.substr(d.message.find('\'') + 1,
                                           d.message.find('\'', d.message.find('\'') + 1) - d.message.find('\'') - 1));
    }
    EXPECT_EQ(missing, (std::vector<std::string>{"methodology", "notes", "sources"}));
}

}  // namespace
}  // namespace kvcat
