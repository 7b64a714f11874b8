// kvcat plan as a person planning a download uses it: each row is kvcat fit's answer for those
// settings (checked against fit itself, row by row), the context steps stop at the model's
// native context, a mix says its weights are a lower bound, and what it cannot plan is refused
// with the reason.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

using kvcat::test::contains;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;
using nlohmann::json;

const std::string kRecords = KVCAT_SOURCE_DIR "/records";

/// The command's JSON; `status` is the exit it must give (-1: 0 or 1, as kvcat fit's verdict).
json run_json(KvcatRunner& k, std::vector<std::string> args, int status = 0) {
    args.insert(args.end(), {"--records", kRecords, "--format", "json"});
    Outcome o = k.run(args);
    if (status < 0) {
        EXPECT_TRUE(o.status == 0 || o.status == 1) << o.err;
    } else {
        EXPECT_EQ(o.status, status) << o.err;
    }
    return o.out.empty() ? json::array() : json::parse(o.out);
}

TEST(Plan, EachRowIsKvcatFitsAnswerForItsSettings) {
    KvcatRunner k;
    json rows = run_json(k, {"plan", "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--weights",
                             "Q8_0,Q4_K_M,Q4_K", "--kv-dtypes", "f16,q8_0", "--slots", "1,4", "--contexts", "8k,32k"});
    ASSERT_EQ(rows.size(), 3u * 2u * 2u);
    std::size_t fitting = 0;
    for (const json& r : rows) {
        std::string weights = r["weights"], kv = r["kv_cache_dtype"];
        std::int64_t slots = r["slots"];
        json fit = run_json(k,
                            {"fit", "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--weight-quant",
                             weights, "--kv-dtype", kv, "--batch", std::to_string(slots), "--contexts", "8k,32k"},
                            -1);
        ASSERT_TRUE(fit.is_object()) << weights << " " << kv;
        EXPECT_EQ(r["weights_lower_bound"], weights == "Q4_K_M" ? "yes" : "no") << r;
        EXPECT_EQ(r["weight_bytes"], fit["weight_bytes"]) << r;
        if (!fit["fits"].get<bool>()) {
            EXPECT_TRUE(r["max_context"].is_null()) << r;
        } else {
            ++fitting;
            std::int64_t native = 40960, max = fit["max_context"];
            EXPECT_EQ(r["max_context"], std::min(max, native)) << r;
        }
        for (const json& at : fit["at_contexts"]) {
            std::string key = at["context"] == 8192 ? "fits_8k" : "fits_32k";
            EXPECT_EQ(r[key], fit["fits"].get<bool>() && at["fits"].get<bool>() ? "yes" : "no") << key << " " << r;
        }
    }
    EXPECT_GT(fitting, 0u);
    EXPECT_LT(fitting, rows.size());  // the grid reaches both answers
}

TEST(Plan, TheContextStepsDoubleUpToTheNativeContextAndStopThere) {
    KvcatRunner k;
    json rows = run_json(k, {"plan", "--model", "qwen3-32b", "--accelerator", "nvidia-h100-sxm", "--weights", "Q4_K",
                             "--kv-dtypes", "q4_0"});
    ASSERT_EQ(rows.size(), 1u);
    std::vector<std::string> keys;
    for (const auto& [key, value] : rows[0].items()) {
        if (key.starts_with("fits_")) keys.push_back(key);
    }
    // nlohmann's object is ordered by key: the steps as a set.
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys, (std::vector<std::string>{"fits_16k", "fits_32k", "fits_40k", "fits_4k", "fits_8k"}));
    EXPECT_EQ(rows[0]["max_context"], 40960);  // an 80 GB card holds more: the plan stops at the native context
}

TEST(Plan, TheTextNamesTheCardTheReserveAndTheMixesLowerBound) {
    KvcatRunner k;
    Outcome o = k.run({"plan", "--records", kRecords, "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090"});
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_TRUE(contains(o.out, "weights  weights_lower_bound  kv_cache_dtype")) << o.out;
    EXPECT_TRUE(contains(o.err, "25,769,803,776 bytes a card")) << o.err;
    EXPECT_TRUE(contains(o.err, "Q5_K_M, Q4_K_M, Q3_K_M are llama.cpp's mixes")) << o.err;
    EXPECT_TRUE(contains(o.err, "kvcat fit --model models/qwen3-32b --accelerator accelerators/nvidia-rtx-3090"))
        << o.err;
}

TEST(Plan, RefusesWhatItCannotPlanAndExitsOneWhenNothingFits) {
    KvcatRunner k;
    Outcome weights = k.run({"plan", "--records", kRecords, "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090",
                             "--weights", "Q4_K_X"});
    EXPECT_EQ(weights.status, 2);
    EXPECT_TRUE(contains(weights.err, "unknown weight format 'Q4_K_X'")) << weights.err;
    EXPECT_TRUE(contains(weights.err, "Q4_K_M")) << weights.err;  // the mixes it knows
    Outcome dtype = k.run({"plan", "--records", kRecords, "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090",
                           "--kv-dtypes", "q7"});
    EXPECT_EQ(dtype.status, 2);
    EXPECT_TRUE(contains(dtype.err, "unknown KV cache dtype 'q7'")) << dtype.err;
    Outcome slots = k.run(
        {"plan", "--records", kRecords, "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--slots", "0"});
    EXPECT_EQ(slots.status, 2);
    EXPECT_TRUE(contains(slots.err, "not a positive whole number")) << slots.err;
    json none = run_json(
        k,
        {"plan", "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--weights", "bf16", "--kv-dtypes", "f16"},
        1);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_TRUE(none[0]["max_context"].is_null());
}

}  // namespace
