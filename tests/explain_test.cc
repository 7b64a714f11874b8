#include "explain.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace kvcat {
namespace {

namespace fs = std::filesystem;

nlohmann::json explain(const std::string& id, const fs::path& root = fs::path(KVCAT_SOURCE_DIR) / "records") {
    LintResult lint = lint_paths({root});
    const Record* r = find_record(lint, id);
    EXPECT_NE(r, nullptr) << id;
    return r ? explain_record(lint, *r) : nlohmann::json();
}

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

    // A run over four cards names no accelerator.
    auto multi = explain("kv-efficiency/sglang-qwen35-397b-a17b-4x-rtxpro6000-awq-int4-fp8-e4m3");
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

}  // namespace
}  // namespace kvcat
