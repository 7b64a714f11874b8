#include "output/explain.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"
#include "explain_fixture.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

using test::explain;

TEST(Explain, SeedZeroListsItsChainAsChecked) {
    auto e = explain("kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k");
    bool found = false;
    for (const auto& c : e["claims"]) {
        if (c["field"] == "kv_bytes_basis.statement") {
            found = true;
            EXPECT_TRUE(c["holds"].get<bool>());
            EXPECT_EQ(c["computed"], "10,240");
            EXPECT_NE(c["text"].get<std::string>().find("= 10 x 2 x 256 x 2 = 10,240 B/token"), std::string::npos);
        }
    }
    EXPECT_TRUE(found);
    EXPECT_TRUE(e["basis"]["agrees"].get<bool>());
    EXPECT_EQ(e["basis"]["product"], 10240);
    EXPECT_EQ(e["model_basis"]["growing_layers"], 10);
    EXPECT_EQ(e["model_basis"]["bytes_per_token"], 10240);
    EXPECT_EQ(e["model_basis"]["at_context"]["kv_bytes_at_context"], 10240LL * 1048576);
    EXPECT_EQ(e["model_basis"]["linear"]["fixed_state_bytes"], 65863680);
    ASSERT_EQ(e["silenced"].size(), 1u);
    EXPECT_EQ(e["silenced"][0]["rule"], "id-context-tag");
    std::string text = render_explanation_text(e);
    EXPECT_NE(text.find("checked, holds  kv_bytes_basis.statement"), std::string::npos) << text;
    EXPECT_NE(text.find("10.00 GiB"), std::string::npos) << text;
}

TEST(Explain, WrongClaimsAreShownWithTheRightFigure) {
    auto e =
        explain("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k", fs::path(KVCAT_FIXTURES_DIR) / "seed-004-as-stated");
    int wrong = 0;
    for (const auto& c : e["claims"]) {
        if (!c["holds"].get<bool>()) ++wrong;
    }
    EXPECT_EQ(wrong, 3);
    EXPECT_FALSE(e["basis"]["agrees"].get<bool>());
    EXPECT_EQ(e["basis"]["product"], 65536);
    EXPECT_EQ(e["basis"]["kv_bytes_per_token"], 16384);
    std::string text = render_explanation_text(e);
    EXPECT_NE(text.find("64 x 24 x 256 x 2 x 2 = 1,572,864, not"), std::string::npos) << text;
    EXPECT_NE(text.find("[kv-basis-product]"), std::string::npos) << text;
}

/// The not_verified lines about measured_tps_at_ctx.
std::vector<std::string> speed_lines(const nlohmann::json& e) {
    std::vector<std::string> out;
    for (const auto& n : e["not_verified"]) {
        auto line = n.get<std::string>();
        if (line.starts_with("measured_tps_at_ctx ")) out.push_back(line);
    }
    return out;
}

TEST(Explain, ASpeedIsSaidToBeUnderTheCeilingOnlyWhenOneWasApplied) {
    // MXFP4 is not a format kvcat sizes, and the record states no weight_bytes: no ceiling.
    auto mxfp4 = explain("kv-efficiency/llamacpp-gpt-oss-120b-dgx-spark-mxfp4-f16-b7486");
    ASSERT_FALSE(mxfp4["points"].empty());
    for (const auto& p : mxfp4["points"]) {
        EXPECT_FALSE(p.contains("roofline_tps"));
        EXPECT_NE(p.value("no_ceiling", std::string()).find("the weight format MXFP4 has no exact size"),
                  std::string::npos)
            << p;
    }
    auto lines = speed_lines(mxfp4);
    ASSERT_FALSE(lines.empty());
    for (const auto& line : lines) {
        EXPECT_EQ(line.find("under the bandwidth ceiling"), std::string::npos) << line;
        EXPECT_NE(line.find("no bandwidth ceiling was applied: the weight format MXFP4"), std::string::npos) << line;
    }
    std::string text = render_explanation_text(mxfp4);
    EXPECT_EQ(text.find("under the bandwidth ceiling"), std::string::npos) << text;
    EXPECT_NE(text.find("no bandwidth ceiling: the weight format MXFP4"), std::string::npos) << text;

    // A run whose source names no card (the CARVE table's four cards) names no accelerator.
    auto multi = explain("kv-efficiency/vllm-qwen35-397b-a17b-4x-rtxpro6000-carve-nvfp4-fp8-yarn");
    ASSERT_FALSE(multi["points"].empty());
    EXPECT_NE(multi["points"][0].value("no_ceiling", std::string()).find("names no accelerator"), std::string::npos)
        << multi["points"][0];
    for (const auto& n : multi["not_verified"]) {
        EXPECT_EQ(n.get<std::string>().find("under"), std::string::npos) << n;
    }

    // One that has every figure is held under its ceiling, and says so.
    auto held = explain("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k");
    ASSERT_FALSE(held["points"].empty());
    EXPECT_TRUE(held["points"][0].contains("roofline_tps"));
    EXPECT_FALSE(held["points"][0].contains("no_ceiling"));
    lines = speed_lines(held);
    ASSERT_FALSE(lines.empty());
    EXPECT_NE(lines[0].find("under the bandwidth ceiling"), std::string::npos) << lines[0];
}

TEST(Explain, FindsARecordByFile) {
    LintResult lint = lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    std::string file =
        (fs::path(KVCAT_SOURCE_DIR) / "records/models/qwen3.5-27b.yaml").lexically_normal().generic_string();
    const Record* r = find_record(lint, file);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->id, "models/qwen3.5-27b");
    EXPECT_EQ(find_record(lint, "models/nope"), nullptr);
}

// Qwen3.5-27B's 48 Gated DeltaNet layers: conv 3 x (2 x 16 x 128 + 48 x 128) = 30,720 and
// recurrent 48 x 128 x 128 = 786,432 elements a layer, 817,152; x 48 = 39,223,296 elements:
// 156,893,184 bytes in float32 (the model record's assumption), 78,446,592 in bfloat16.
constexpr std::int64_t kQwen27bStateF32 = 156893184;
constexpr std::int64_t kQwen27bStateBf16 = 78446592;

TEST(Explain, ARowsStateDtypeReplacesTheModelsForItsFixedState) {
    fs::path root = fs::path(KVCAT_FIXTURES_DIR) / "exceeds-memory/pass";
    auto row = explain("kv-efficiency/vllm-qwen35-27b-rtx3090-bf16-state-15k-c8", root);
    const auto& linear = row["model_basis"]["linear"];
    EXPECT_EQ(linear["state_dtype"], "bfloat16");
    EXPECT_EQ(linear["state_dtype_from"], "row");
    EXPECT_EQ(linear["fixed_state_bytes"], kQwen27bStateBf16);
    EXPECT_EQ(row["model_basis"]["at_context"]["fixed_state_bytes"], kQwen27bStateBf16);
    std::string text = render_explanation_text(row);
    EXPECT_NE(text.find("48 Gated DeltaNet layers: no per-token cache; fixed state 78,446,592 bytes per sequence "
                        "(bfloat16, as the row states)"),
              std::string::npos)
        << text;
    // A row that states no state dtype keeps the model record's float32.
    auto plain = explain("kv-efficiency/llamacpp-qwen35-27b-rtx3090-256k", root);
    EXPECT_EQ(plain["model_basis"]["linear"]["state_dtype_from"], "model");
    EXPECT_EQ(plain["model_basis"]["linear"]["fixed_state_bytes"], kQwen27bStateF32);
}

TEST(Catalog, ARowsFixedStateIsInItsOwnStateDtype) {
    LintResult lint = lint_paths({fs::path(KVCAT_FIXTURES_DIR) / "exceeds-memory/pass"});
    ASSERT_TRUE(lint.diagnostics.empty()) << test::describe(lint.diagnostics);
    test::TempDir tmp;
    fs::path db = tmp / "kvcat.db";
    build_catalog(lint.records, db);
    Table t = run_read_only(db, "SELECT record_id, fixed_state_bytes FROM kv_rows ORDER BY record_id");
    ASSERT_EQ(t.rows.size(), 3u);
    EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "kv-efficiency/llamacpp-qwen35-27b-rtx3090-256k");
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][1]), kQwen27bStateF32);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[1][1]), kQwen27bStateF32);  // the Q4_K_M row states no state dtype
    EXPECT_EQ(std::get<std::string>(t.rows[2][0]), "kv-efficiency/vllm-qwen35-27b-rtx3090-bf16-state-15k-c8");
    EXPECT_EQ(std::get<std::int64_t>(t.rows[2][1]), kQwen27bStateBf16);
}

TEST(Lint, AStateDtypeOnAModelWithNoFixedStateIsRefused) {
    test::TempDir tmp;
    fs::copy(fs::path(KVCAT_FIXTURES_DIR) / "exceeds-memory/pass", tmp.path(), fs::copy_options::recursive);
    // Llama-style: the same row pointed at a model record with no linear_attention.
    fs::path model = tmp / "models/qwen3.5-27b.yaml";
    std::string text = test::read_file(model);
    std::size_t from = text.find("linear_attention:");
    std::size_t to = text.find("sources:");
    ASSERT_NE(from, std::string::npos);
    text.erase(from, to - from);
    test::write_file(model, text);
    LintResult lint = lint_paths({tmp.path()});
    bool found = false;
    for (const auto& d : lint.diagnostics) {
        if (d.rule == "kv-basis-model" && d.message.starts_with("state_dtype is set, but models/qwen3.5-27b has no "
                                                                "fixed-state layers")) {
            found = true;
            EXPECT_TRUE(d.pos.file.ends_with("vllm-qwen35-27b-rtx3090-bf16-state-15k-c8.yaml")) << d.pos.file;
            EXPECT_EQ(d.pos.line, 11);
        }
    }
    EXPECT_TRUE(found) << test::describe(lint.diagnostics);
}

}  // namespace
}  // namespace kvcat
