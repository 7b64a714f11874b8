// kvcat plan as a person planning a download uses it: each row is kvcat fit's answer for those
// settings (checked against fit itself, row by row), the context steps stop at the model's
// native context, a mix says its weights are a lower bound, and what it cannot plan is refused
// with the reason.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gguf_file.h"
#include "kvcat_runner.h"
#include "loopback_http.h"
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
        // Qwen3-32B's record lists its tensors: its Q4_K_M is llama-quantize's file, no lower bound.
        EXPECT_EQ(r["weights_lower_bound"], "no") << r;
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

// A GGUF planned before the download: by its address, its header alone read, each row fit's
// answer for those weights; beside a mix when --weights is given too.
TEST(Plan, AWeightFileByItsAddressIsPlannedAtItsExactBytes) {
    kvcat::test::GgufFile f(std::uint64_t{48} << 20);  // 48 MiB of tensor data
    kvcat::test::LoopbackHttp server({{"small.gguf", f.bytes()}});
    KvcatRunner k;
    json rows = run_json(k, {"plan", "--model", "qwen3-0.6b", "--accelerator", "nvidia-rtx-3090", "--weight-file",
                             server.url("small.gguf"), "--kv-dtypes", "f16", "--contexts", "8k"});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["weights"], "small.gguf");
    EXPECT_EQ(rows[0]["weights_lower_bound"], "no");
    EXPECT_EQ(rows[0]["weight_bytes"], std::uint64_t{48} << 20);
    json fit = run_json(k, {"fit", "--model", "qwen3-0.6b", "--accelerator", "nvidia-rtx-3090", "--weight-file",
                            f.path(), "--kv-dtype", "f16", "--contexts", "8k"});
    EXPECT_EQ(rows[0]["max_context"], std::min<std::int64_t>(fit["max_context"].get<std::int64_t>(), 40960));
    EXPECT_EQ(server.requests(), 1);  // one range request; the 48 MiB stayed on the server

    json both = run_json(k, {"plan", "--model", "qwen3-0.6b", "--accelerator", "nvidia-rtx-3090", "--weights", "Q8_0",
                             "--weight-file", f.path(), "--kv-dtypes", "f16", "--contexts", "8k"});
    ASSERT_EQ(both.size(), 2u);
    EXPECT_EQ(both[0]["weights"], "Q8_0");
    EXPECT_EQ(both[1]["weights"], "model.gguf");

    Outcome text = k.run({"plan", "--records", kRecords, "--model", "qwen3-0.6b", "--accelerator", "nvidia-rtx-3090",
                          "--weight-file", f.path(), "--kv-dtypes", "f16", "--contexts", "8k"});
    EXPECT_TRUE(contains(text.err, "model.gguf: the tensor data of " + f.path() + ": 2 tensors")) << text.err;
    EXPECT_TRUE(contains(text.err, "--weight-quant W (or --weight-file F)")) << text.err;
    Outcome gone = k.run({"plan", "--records", kRecords, "--model", "qwen3-0.6b", "--accelerator", "nvidia-rtx-3090",
                          "--weight-file", server.url("gone.gguf")});
    EXPECT_EQ(gone.status, 2);
    EXPECT_TRUE(contains(gone.err, server.url("gone.gguf") + ": HTTP 404")) << gone.err;
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
    EXPECT_TRUE(contains(o.err, "Q5_K_M, Q4_K_M, Q3_K_M are sized as llama-quantize writes them")) << o.err;
    EXPECT_FALSE(contains(o.err, "lower bound")) << o.err;
    EXPECT_TRUE(contains(o.err, "kvcat fit --model models/qwen3-32b --accelerator accelerators/nvidia-rtx-3090"))
        << o.err;
    // A model whose record lists no tensors: its mixes are a lower bound, and the text says so.
    Outcome lower =
        k.run({"plan", "--records", kRecords, "--model", "deepseek-v2-lite", "--accelerator", "nvidia-rtx-3090"});
    ASSERT_EQ(lower.status, 0) << lower.err;
    EXPECT_TRUE(contains(lower.err, "Q5_K_M, Q4_K_M, Q3_K_M are llama.cpp's mixes")) << lower.err;
}

// gpt-oss is published in MXFP4_MOE: its plan has that mix without being asked, at the bytes
// llama-quantize writes, and not when --weights names the formats or the engine's files are not
// llama-quantize's.
TEST(Plan, GptOssIsPlannedInTheMixItIsPublishedIn) {
    KvcatRunner k;
    auto weights_of = [&](std::vector<std::string> args) {
        std::vector<std::string> all = {"plan", "--model", "gpt-oss-20b", "--accelerator", "nvidia-rtx-4090"};
        all.insert(all.end(), args.begin(), args.end());
        std::vector<std::string> out;
        for (const json& r : run_json(k, all)) {
            if (std::find(out.begin(), out.end(), r["weights"]) == out.end()) out.push_back(r["weights"]);
        }
        return out;
    };
    std::vector<std::string> plain = weights_of({});
    ASSERT_GE(plain.size(), 2u);
    EXPECT_EQ(plain[1], "MXFP4_MOE");
    json fit = run_json(k, {"fit", "--model", "gpt-oss-20b", "--accelerator", "nvidia-rtx-4090", "--weight-quant",
                            "MXFP4_MOE", "--kv-dtype", "f16"});
    json rows =
        run_json(k, {"plan", "--model", "gpt-oss-20b", "--accelerator", "nvidia-rtx-4090", "--kv-dtypes", "f16"});
    bool seen = false;
    for (const json& r : rows) {
        if (r["weights"] != "MXFP4_MOE") continue;
        seen = true;
        EXPECT_EQ(r["weights_lower_bound"], "no");
        EXPECT_EQ(r["weight_bytes"], fit["weight_bytes"]);
    }
    EXPECT_TRUE(seen);
    std::vector<std::string> asked = weights_of({"--weights", "Q4_K_M"});
    EXPECT_EQ(asked, std::vector<std::string>{"Q4_K_M"});
    std::vector<std::string> vllm = weights_of({"--engine", "vllm"});
    EXPECT_EQ(std::find(vllm.begin(), vllm.end(), "MXFP4_MOE"), vllm.end());
}

// With --engine every cell is that engine's verdict: held here to kvcat fit --engine for the
// same settings, cell by cell, and the largest context to the boundary fit draws.
TEST(Plan, WithLlamaCppEachVerdictIsKvcatFitsForTheSameStart) {
    KvcatRunner k;
    json rows = run_json(
        k, {"plan", "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--engine", "llama.cpp", "--weights",
            "Q4_K_M,Q3_K_M", "--kv-dtypes", "f16,q8_0", "--slots", "1,2", "--contexts", "16k,32k"});
    ASSERT_EQ(rows.size(), 8u);
    std::size_t yes = 0, no = 0;
    for (const json& r : rows) {
        std::int64_t slots = r["slots"];
        for (std::int64_t context : {16384, 32768}) {
            json fit = run_json(k,
                                {"fit", "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--weight-quant",
                                 r["weights"], "--kv-dtype", r["kv_cache_dtype"], "--engine", "llama.cpp", "--ctx-size",
                                 std::to_string(context * slots), "--parallel", std::to_string(slots)},
                                -1);
            std::string key = context == 16384 ? "fits_16k" : "fits_32k";
            EXPECT_EQ(r[key], fit["fits"].get<bool>() ? "yes" : "no") << key << " " << r;
            (fit["fits"].get<bool>() ? yes : no) += 1;
        }
    }
    EXPECT_GT(yes, 0u);
    EXPECT_GT(no, 0u);
    // Q4_K_M (llama-quantize's 19,756,174,336 bytes, 437,575,680 of them token_embd on the host)
    // with an f16 cache, one slot, its compute buffer, what the card holds before llama.cpp starts
    // and the 1,024 MiB its --fit keeps free: 15,616 cells fit, as kvcat fit says too.
    const json& first = rows[0];
    ASSERT_EQ(first["weights"], "Q4_K_M");
    EXPECT_EQ(first["max_context"], 15616);
    for (auto [c, fits] : {std::pair{15616, true}, std::pair{15617, false}}) {
        json fit = run_json(k,
                            {"fit", "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--weight-quant",
                             "Q4_K_M", "--kv-dtype", "f16", "--engine", "llama.cpp", "--ctx-size", std::to_string(c)},
                            -1);
        EXPECT_EQ(fit["fits"], fits) << c;
    }
}

TEST(Plan, WithVllmAVerdictIsItsStartAndItsConcurrencyAgainstTheSlots) {
    KvcatRunner k;
    // vLLM's default of 256 sequences is more than this card's pool has Mamba blocks: every row
    // would say no (as the next test shows); eight sequences start where the pool holds them.
    json rows =
        run_json(k, {"plan", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-4090", "--engine", "vllm",
                     "--max-num-seqs", "8", "--weights", "Q4_K", "--slots", "1,4", "--contexts", "32k,128k,256k"});
    ASSERT_EQ(rows.size(), 4u);  // bf16 and fp8 caches by default, as vLLM takes them
    std::size_t yes = 0, no = 0;
    for (const json& r : rows) {
        std::int64_t slots = r["slots"];
        for (std::int64_t context : {32768, 131072, 262144}) {
            json fit = run_json(k,
                                {"fit", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-4090", "--weight-quant",
                                 "Q4_K", "--kv-dtype", r["kv_cache_dtype"], "--engine", "vllm", "--max-model-len",
                                 std::to_string(context), "--max-num-seqs", "8"},
                                -1);
            const json& e = fit["engine"];
            bool fits = !fit.contains("engine_refusal") && e.contains("max_concurrency") &&
                        e["max_concurrency"].get<double>() >= static_cast<double>(slots);
            std::string key = "fits_" + std::to_string(context / 1024) + "k";
            EXPECT_EQ(r[key], fits ? "yes" : "no") << key << " " << r;
            (fits ? yes : no) += 1;
        }
    }
    EXPECT_GT(yes, 0u);
    EXPECT_GT(no, 0u);
    // With vLLM's default for the card, no row starts, and stderr says why.
    Outcome by_default = k.run({"plan", "--records", kRecords, "--model", "qwen3.5-27b", "--accelerator",
                                "nvidia-rtx-4090", "--engine", "vllm", "--weights", "Q4_K", "--kv-dtypes", "bf16"});
    EXPECT_EQ(by_default.status, 1) << by_default.err;
    EXPECT_TRUE(contains(by_default.err, "max_num_seqs (256) exceeds available Mamba cache blocks")) << by_default.err;
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
    Outcome cards = k.run({"plan", "--records", kRecords, "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090",
                           "--engine", "llama.cpp", "--gpus", "2"});
    EXPECT_EQ(cards.status, 2);
    EXPECT_TRUE(contains(cards.err, "--engine llama.cpp is planned on one card")) << cards.err;
    // A plan no row of which can be worked out is no verdict: exit 2, saying why.
    Outcome unmodelled = k.run({"plan", "--records", kRecords, "--model", "llama-4-scout-17b-16e-instruct",
                                "--accelerator", "nvidia-h100-sxm", "--engine", "sglang", "--weights", "Q4_K"});
    EXPECT_EQ(unmodelled.status, 2);
    EXPECT_TRUE(contains(unmodelled.err,
                         "no row of the plan could be worked out: kvcat does not model SGLang's pool "
                         "for chunked attention"))
        << unmodelled.err;
    // Some rows answered (the weights alone do not fit), the rest not: exit 1, counting the others.
    Outcome partly = k.run({"plan", "--records", kRecords, "--model", "llama-4-scout-17b-16e-instruct", "--accelerator",
                            "nvidia-h100-sxm", "--engine", "sglang", "--weights", "bf16,Q4_K"});
    EXPECT_EQ(partly.status, 1);
    EXPECT_TRUE(contains(partly.err, "no row fits of those worked out; 2 could not be (above)")) << partly.err;
    Outcome engine = k.run(
        {"plan", "--records", kRecords, "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--engine", "tgi"});
    EXPECT_EQ(engine.status, 2);
    EXPECT_FALSE(engine.err.empty());
    json none = run_json(
        k,
        {"plan", "--model", "qwen3-32b", "--accelerator", "nvidia-rtx-3090", "--weights", "bf16", "--kv-dtypes", "f16"},
        1);
    ASSERT_EQ(none.size(), 1u);
    EXPECT_TRUE(none[0]["max_context"].is_null());
}

}  // namespace
