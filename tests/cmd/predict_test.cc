// kvcat predict as scripts and people use it: the JSON interface issue 41 fixes, the text, the
// held-out error table, and clear refusals of what it cannot answer.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

using kvcat::test::contains;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;

// The shipped records: a prediction stands on every measurement the catalog holds.
const std::string kPredictRecords = KVCAT_SOURCE_DIR "/records";
const std::vector<std::string> kQwenOn4090 = {
    "predict",       "--records",       kPredictRecords, "--model",   "qwen3.5-27b",
    "--accelerator", "nvidia-rtx-4090", "--engine",      "llama.cpp", "--weight-quant",
    "Q4_K",          "--kv-dtype",      "q4_0",          "--context", "64k"};

TEST(Predict, JsonGivesTheSpeedItsIntervalAndItsBasis) {
    KvcatRunner k;
    auto args = kQwenOn4090;
    args.insert(args.end(), {"--format", "json"});
    Outcome o = k.run(args);
    ASSERT_EQ(o.status, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["context_length"], 65536);
    EXPECT_EQ(j["predicted"], true);
    double v = j["decode_tps"], low = j["decode_tps_low"], high = j["decode_tps_high"], ceiling = j["ceiling_tps"];
    EXPECT_LE(low, v);
    EXPECT_LE(v, high);
    EXPECT_LE(high, ceiling);
    EXPECT_EQ(j["basis"], "same-card");
    EXPECT_FALSE(j["decode_stood_on"].empty());
    EXPECT_TRUE(j["prefill_tps"].is_null());
}

TEST(Predict, TextNamesThePredictionAndTheCeilingApart) {
    KvcatRunner k;
    Outcome o = k.run(kQwenOn4090);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(contains(o.out, "predicted decode")) << o.out;
    EXPECT_TRUE(contains(o.out, "80% interval")) << o.out;
    EXPECT_TRUE(contains(o.out, "a bound, not a prediction")) << o.out;
}

TEST(Predict, TheHoldoutTableHasTheFieldsScriptsReadAndEveryModeAtOnce) {
    KvcatRunner k;
    Outcome o = k.run({"predict", "--records", kPredictRecords, "--holdout", "curve", "--format", "json"});
    ASSERT_EQ(o.status, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    for (const char* key : {"n", "median_abs_error", "p90_abs_error", "coverage_80"})
        EXPECT_TRUE(j["decode"].contains(key)) << key;
    EXPECT_GT(j["decode"]["n"].get<int>(), 100);
    Outcome all = k.run({"predict", "--records", kPredictRecords, "--holdout", "all", "--format", "json"});
    ASSERT_EQ(all.status, 0) << all.err;
    auto a = nlohmann::json::parse(all.out);
    for (const char* mode : {"point", "curve", "pair"}) EXPECT_TRUE(a.contains(mode)) << mode;
    Outcome csv = k.run({"predict", "--records", kPredictRecords, "--holdout", "point", "--format", "csv"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_TRUE(csv.out.starts_with("held_out,measure,record_id,context_length")) << csv.out.substr(0, 200);
}

TEST(Predict, RefusesWhatItCannotAnswerAndSaysWhy) {
    KvcatRunner k;
    Outcome missing = k.run({"predict", "--model", "qwen3.5-27b"});
    EXPECT_EQ(missing.status, 2);
    EXPECT_TRUE(contains(missing.err, "--accelerator")) << missing.err;
    EXPECT_TRUE(contains(missing.err, "--context")) << missing.err;
    auto args = kQwenOn4090;
    args[8] = "tgi";
    Outcome engine = k.run(args);
    EXPECT_EQ(engine.status, 2);
    EXPECT_TRUE(contains(engine.err, "llama.cpp")) << engine.err;  // the engines it knows
    Outcome mode = k.run({"predict", "--holdout", "everything"});
    EXPECT_EQ(mode.status, 2);
    EXPECT_TRUE(contains(mode.err, "point, curve, pair or all")) << mode.err;
}

TEST(Predict, FitGivesThePredictedSpeedBesideTheCeilingAtEachContext) {
    KvcatRunner k;
    std::vector<std::string> fit = {"fit",           "--records",       kPredictRecords,  "--model",  "qwen3.5-27b",
                                    "--accelerator", "nvidia-rtx-4090", "--weight-quant", "Q4_K_M",   "--kv-dtype",
                                    "q4_0",          "--contexts",      "16k,64k",        "--format", "json"};
    Outcome bare = k.run(fit);
    ASSERT_EQ(bare.status, 0) << bare.err;
    auto b = nlohmann::json::parse(bare.out);
    ASSERT_EQ(b["speeds"].size(), 2u);
    EXPECT_TRUE(b["speeds"][0]["decode_tps"].is_null());  // no engine, no measured speed to stand on
    EXPECT_GT(b["speeds"][0]["ceiling_tps"].get<double>(), b["speeds"][1]["ceiling_tps"].get<double>());
    fit.insert(fit.end(), {"--engine", "llama.cpp"});
    Outcome with_engine = k.run(fit);
    ASSERT_EQ(with_engine.status, 0) << with_engine.err;
    auto j = nlohmann::json::parse(with_engine.out);
    for (const auto& at : j["speeds"]) {
        EXPECT_EQ(at["basis"], "curve-inside");  // the measured Q4_K_M q4_0 curve on this card
        EXPECT_LE(at["decode_tps_high"].get<double>(), at["ceiling_tps"].get<double>());
        EXPECT_LE(at["decode_tps_low"].get<double>(), at["decode_tps"].get<double>());
    }
    EXPECT_EQ(j["speeds"][1]["context_length"], 65536);
}

TEST(Predict, CurveAddsEachCardsCeilingAndPredictionWithAnEngine) {
    KvcatRunner k;
    std::vector<std::string> curve = {"curve",         "--records",       kPredictRecords,  "--model",  "qwen3.5-27b",
                                      "--accelerator", "nvidia-rtx-4090", "--weight-quant", "Q4_K_M",   "--kv-dtype",
                                      "q4_0",          "--contexts",      "16k,64k",        "--format", "json"};
    Outcome plain = k.run(curve);
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_FALSE(contains(plain.out, "predicted_tps_")) << plain.out;
    curve.insert(curve.end(), {"--engine", "llama.cpp"});
    Outcome o = k.run(curve);
    ASSERT_EQ(o.status, 0) << o.err;
    auto rows = nlohmann::json::parse(o.out);
    ASSERT_EQ(rows.size(), 2u);
    for (const auto& r : rows) {
        EXPECT_EQ(r["predicted_basis_nvidia-rtx-4090"], "curve-inside");
        EXPECT_LT(r["predicted_tps_nvidia-rtx-4090"].get<double>(), r["ceiling_tps_nvidia-rtx-4090"].get<double>());
    }
}

}  // namespace
