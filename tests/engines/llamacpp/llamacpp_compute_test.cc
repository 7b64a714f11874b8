// llama.cpp's compute buffer as kvcat gives it (engines/llamacpp/llamacpp_compute), stage by stage, on the
// shipped records; the figures llama.cpp itself prints for the same settings are held by the
// compute oracle (tests/engines/oracle/quant_oracle.cc), and fit's verdict counts the buffer
// where it is larger than the reserve.
#include "engines/llamacpp/llamacpp_compute.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kvcat_runner.h"
#include "shipped_records.h"
#include "support/rational.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::LlamaComputeSetting;
using kvcat::llamacpp_compute_buffer;
using kvcat::Model;
using kvcat::test::contains;

using kvcat::test::shipped_model;

TEST(LlamaCompute, WithFlashAttentionALargeVocabularysLogitsAreThePeak) {
    // Qwen3-32B, -ub 512: 512 x (151,936 + 5,120) x 4 + 512 x 4 = 321,652,736 bytes (306.75 MiB); the
    // pinned llama.cpp prints "CPU compute buffer size = 316.75 MiB" for it (the oracle's run: one
    // hidden state more), a CUDA build of the same graph the one (records/allocations, b7342).
    auto b = llamacpp_compute_buffer(shipped_model("models/qwen3-32b"), LlamaComputeSetting{512, 16384, 16384, true});
    ASSERT_TRUE(b);
    EXPECT_EQ(b->bytes, 321652736);
    EXPECT_EQ(b->stage, "output");
    EXPECT_TRUE(contains(b->how, "151,936 logits")) << b->how;
    // The context does not move it; -ub does, linearly.
    auto longer =
        llamacpp_compute_buffer(shipped_model("models/qwen3-32b"), LlamaComputeSetting{512, 32768, 32768, true});
    EXPECT_EQ(longer->bytes, b->bytes);
    auto bigger =
        llamacpp_compute_buffer(shipped_model("models/qwen3-32b"), LlamaComputeSetting{2048, 32768, 32768, true});
    EXPECT_EQ(bigger->bytes, 4 * b->bytes);
}

TEST(LlamaCompute, WithoutFlashAttentionTheScoresGrowWithTheCells) {
    // 16,384 cells x 512 tokens x 64 heads x 4 + the f32 mask (16,384 x 512 x 4) + 512 x (3 x 8,192 +
    // 5,120) x 4 + the positions: 2,241,857,536 bytes.
    auto b = llamacpp_compute_buffer(shipped_model("models/qwen3-32b"), LlamaComputeSetting{512, 16384, 16384, false});
    ASSERT_TRUE(b);
    EXPECT_EQ(b->bytes, 2241857536);
    EXPECT_EQ(b->stage, "attention scores");
    // Four streams of 4,096 cells each: a quarter of the scores.
    auto streams =
        llamacpp_compute_buffer(shipped_model("models/qwen3-32b"), LlamaComputeSetting{512, 16384, 4096, false});
    EXPECT_EQ(streams->bytes, 4096LL * 512 * 64 * 4 + 4096LL * 512 * 4 + 512LL * (3 * 8192 + 5120) * 4 + 512 * 4);
}

TEST(LlamaCompute, ASmallVocabularysPeakIsAFeedForwardTheExpertsATokenUsesIncluded) {
    // Mixtral 8x7B: 2 experts of 14,336 a token, vocabulary 32,000. 512 x (3 x 28,672 + 3 x 4,096) x 4
    // + the f16 mask of 4,096 cells x 512 + the positions.
    auto b = llamacpp_compute_buffer(shipped_model("models/mixtral-8x7b"), LlamaComputeSetting{512, 4096, 4096, true});
    ASSERT_TRUE(b);
    EXPECT_EQ(b->stage, "feed-forward");
    EXPECT_EQ(b->bytes, 512LL * (3 * 28672 + 3 * 4096) * 4 + 4096LL * 512 * 2 + 512 * 4);
    EXPECT_TRUE(contains(b->how, "2 experts x 14,336")) << b->how;
}

TEST(LlamaCompute, ABuildThatCastsItsMaskHoldsBothCopiesAtTheCast) {
    // Llama 3.1 8B, 90,112 cells, -ub 512, flash attention, a build before pull 23764
    // (records/allocations/ollama-0.13.5-llama-3.1-8b-instruct-q4_k_m-f16-90112-l40s, which prints
    // 296.01 MiB): 90,112 x 512 x (4 + 2) + 512 x 4,096 x 4 + 512 x 4 = 285,214,720 bytes (272.00 MiB),
    // above the output stage's 271,058,944 (258.50 MiB) that a build making the mask f16 peaks at.
    LlamaComputeSetting cast{512, 90112, 90112, true};
    cast.mask_cast = true;
    auto b = llamacpp_compute_buffer(shipped_model("models/llama-3.1-8b"), cast);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->bytes, 285214720);
    EXPECT_EQ(b->stage, "mask cast");
    cast.mask_cast = false;
    auto pinned = llamacpp_compute_buffer(shipped_model("models/llama-3.1-8b"), cast);
    EXPECT_EQ(pinned->bytes, 271058944);
    EXPECT_EQ(pinned->stage, "output");
}

TEST(LlamaCompute, TheMicroBatchIsAtMostTheContextAndARecordWithoutWidthsHasNoAnswer) {
    auto b = llamacpp_compute_buffer(shipped_model("models/qwen3-32b"), LlamaComputeSetting{512, 256, 256, true});
    EXPECT_EQ(b->bytes, 256LL * (151936 + 5120) * 4 + 256 * 4);
    EXPECT_FALSE(llamacpp_compute_buffer(shipped_model("models/qwen3.5-27b"), LlamaComputeSetting{}));
    EXPECT_THROW(llamacpp_compute_buffer(shipped_model("models/qwen3-32b"),
                                         LlamaComputeSetting{512, 1LL << 50, 1LL << 50, false}),
                 kvcat::OverflowError);
}

// fit --engine llama.cpp: without flash attention at -c 16384, Qwen3-32B's scores (2.09 GiB) are
// above the 1 GiB reserve, and the start no longer fits a 3090 with the Q4_K_M file; with flash
// attention (the engine's choice on a GPU) the reserve stands and it fits.
TEST(FitEngineVerdict, LlamaCppsComputeBufferAboveTheReserveIsCounted) {
    auto fit = [](const std::string& fa, const std::vector<std::string>& more = {}) {
        std::vector<std::string> args = {"--kv-dtype", "f16",          "--engine", "llama.cpp", "--ctx-size",
                                         "16384",      "--flash-attn", fa,         "--format",  "json"};
        args.insert(args.end(), more.begin(), more.end());
        return kvcat::test::fit_qwen3_32b_on_3090("Q4_K_M", args);
    };
    auto off = fit("off");
    EXPECT_EQ(off.status, 1) << off.err;
    auto j = nlohmann::json::parse(off.out);
    EXPECT_EQ(j["fits"], false);
    EXPECT_EQ(j["compute_buffer_bytes"], 2241857536);
    EXPECT_TRUE(contains(j["engine_overflow"].get<std::string>(),
                         "and the compute buffer, above the reserve, (2,241,857,536 bytes)"))
        << j["engine_overflow"];
    auto on = fit("on");
    EXPECT_EQ(on.status, 0) << on.err;
    auto k = nlohmann::json::parse(on.out);
    EXPECT_EQ(k["fits"], true);
    // The pinned llama-server reserves one output a slot, so the feed-forward stage is the peak:
    // 512 x (3 x 25,600 + 3 x 5,120) x 4 + the f16 mask 16,384 x 512 x 2 + 512 positions x 4.
    EXPECT_EQ(k["compute_buffer_bytes"], 205522944);
    EXPECT_EQ(k["engine"]["compute_buffer_stage"], "feed-forward");
    EXPECT_EQ(k["weight_bytes"], 19756174336LL);  // the reserve, 1 GiB, is the larger: the verdict as before
    // A build up to b8198 reserves every token's output: 512 x (151,936 + 5,120) x 4 + 512 x 4.
    auto older = fit("on", {"--engine-version", "b8198"});
    ASSERT_EQ(older.status, 0) << older.err;
    auto o = nlohmann::json::parse(older.out);
    EXPECT_EQ(o["compute_buffer_bytes"], 321652736);
    EXPECT_EQ(o["engine"]["compute_buffer_stage"], "output");
}

}  // namespace

namespace {

// Every shipped whole start whose layers are all on one device: its compute buffer is at least
// kvcat's bound, and how many are equal to it to the printed 0.01 MiB.
TEST(LlamaCompute, EveryShippedStartsComputeBufferIsAtLeastTheBound) {
    int judged = 0;
    int equal = 0;
    std::string below;
    for (const auto& [record, f] : kvcat::test::shipped_allocation_figures("compute buffer is at least")) {
        ++judged;
        if (!f.holds) below += fmt::format("\n  {}: {} below {}", record, f.printed, f.computed);
        if ("at least " + f.printed == f.computed) ++equal;
    }
    std::cout << fmt::format(
        "{} compute buffers of starts on one device: at least kvcat's bound in {}, equal to it to the printed "
        "0.01 MiB in {}{}\n",
        judged, judged - static_cast<int>(std::count(below.begin(), below.end(), '\n')), equal, below);
    EXPECT_GE(judged, 24);
    EXPECT_TRUE(below.empty()) << below;
    EXPECT_GE(equal, 16);
}

}  // namespace
