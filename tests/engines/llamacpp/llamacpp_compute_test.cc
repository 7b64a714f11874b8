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

// The coefficients the report's planner applies (llamacpp_compute_coefficients) give the bound
// itself at the pinned release's defaults, for every shipped model with a tensors mapping, across
// cells, sliding cells, micro-batches and slots.
TEST(LlamaCompute, TheCoefficientsGiveTheBoundForEveryShippedModel) {
    int models = 0;
    for (const kvcat::Record& r : kvcat::test::shipped_records().records.records()) {
        if (!r.model) continue;
        auto c = kvcat::llamacpp_compute_coefficients(*r.model);
        auto probe = llamacpp_compute_buffer(*r.model, {});
        EXPECT_EQ(c.has_value(), probe.has_value()) << r.id;
        if (!c) continue;
        ++models;
        for (std::int64_t cells : {256, 4096, 65536, 1 << 20}) {
            for (std::int64_t swa : {0, 1536}) {
                for (std::int64_t ubatch : {64, 512}) {
                    for (std::int64_t slots : {1, 4}) {
                        LlamaComputeSetting s;
                        s.ubatch = ubatch;
                        s.context = cells * slots;
                        s.cells_per_stream = cells;
                        s.swa_cells_per_stream = swa;
                        s.outputs = slots;
                        std::int64_t tokens = std::min(ubatch, s.context);
                        std::int64_t stage = c->output_per_output * std::min(slots, tokens);
                        if (c->ff_per_token) {
                            stage = std::max(stage, *c->ff_per_token * tokens + 2 * (cells + swa) * tokens);
                        }
                        EXPECT_EQ(stage + 4 * tokens, llamacpp_compute_buffer(*r.model, s)->bytes)
                            << r.id << " cells " << cells << " swa " << swa << " ubatch " << ubatch;
                    }
                }
            }
        }
    }
    EXPECT_GE(models, 20);
}

TEST(LlamaCompute, TheMicroBatchIsAtMostTheContextAndARecordWithoutWidthsHasNoAnswer) {
    auto b = llamacpp_compute_buffer(shipped_model("models/qwen3-32b"), LlamaComputeSetting{512, 256, 256, true});
    EXPECT_EQ(b->bytes, 256LL * (151936 + 5120) * 4 + 256 * 4);
    EXPECT_FALSE(llamacpp_compute_buffer(shipped_model("models/deepseek-v2-lite"), LlamaComputeSetting{}));
    EXPECT_THROW(llamacpp_compute_buffer(shipped_model("models/qwen3-32b"),
                                         LlamaComputeSetting{512, 1LL << 50, 1LL << 50, false}),
                 kvcat::OverflowError);
}

// llama.cpp's runtime on the card is its compute buffer and what the card holds before it starts
// (engines/llamacpp/llamacpp_fit.h, llamacpp_runtime), not a flat reserve: without flash
// attention the 16,384-cell scores alone are 2 GiB and Qwen3-32B no longer fits a 3090; with it,
// 12,288 cells fit beside its graph. --reserve-gib stands for what the card holds; a
// model without a tensors mapping keeps the reserve; an Apple card holds nothing beyond its
// working set.
TEST(FitEngineVerdict, LlamaCppsRuntimeIsItsComputeBufferAndWhatTheCardHolds) {
    auto fit = [](const std::string& context, const std::string& fa, const std::vector<std::string>& more = {}) {
        std::vector<std::string> args = {"--kv-dtype", "f16",          "--engine", "llama.cpp", "--ctx-size",
                                         context,      "--flash-attn", fa,         "--format",  "json"};
        args.insert(args.end(), more.begin(), more.end());
        return kvcat::test::fit_qwen3_32b_on_3090("Q4_K_M", args);
    };
    const std::int64_t held = std::int64_t{986} << 20;  // llamacpp_card_held.h, nvidia-smi's cards
    auto off = fit("16384", "off");
    EXPECT_EQ(off.status, 1) << off.err;
    auto j = nlohmann::json::parse(off.out);
    EXPECT_EQ(j["fits"], false);
    // The pinned release's own graph on a GPU, placed as ggml-alloc places it
    // (engines/llamacpp/llamacpp_graph.h): the scores' 2 GiB with the rest of a layer around them.
    EXPECT_EQ(j["compute_buffer_bytes"], 2239764608);
    EXPECT_EQ(j["engine"]["compute_buffer_stage"], "graph");
    EXPECT_EQ(j["card_held_bytes"], held);
    EXPECT_EQ(j["runtime_bytes"], 2239764608 + held);
    EXPECT_TRUE(contains(j["engine_overflow"].get<std::string>(), "the runtime on the card (3,273,660,544 bytes)"))
        << j["engine_overflow"];
    auto on = fit("12288", "on");
    EXPECT_EQ(on.status, 0) << on.err;
    auto k = nlohmann::json::parse(on.out);
    EXPECT_EQ(k["fits"], true);
    // The pinned llama-server reserves one output a slot, so a layer's feed-forward is the peak;
    // the whole graph on the GPU is 6 MiB above that stage's 201,328,640 bytes (512 x (3 x 25,600 +
    // 3 x 5,120) x 4 + the f16 mask 12,288 x 512 x 2 + 512 positions x 4).
    EXPECT_EQ(k["compute_buffer_bytes"], 207628416);
    EXPECT_EQ(k["engine"]["compute_buffer_stage"], "graph");
    EXPECT_EQ(k["runtime_bytes"], 207628416 + held);
    // 12,288 cells leave 872 MiB beside the start and --fit's target: a card holding more than
    // 986 + 872 MiB before llama.cpp starts, as one of the counted starts did, would not fit it.
    EXPECT_TRUE(contains(k["engine_held_edge"].get<std::string>(), "more than 1858 MiB")) << k["engine_held_edge"];
    EXPECT_FALSE(j.contains("engine_held_edge")) << "2 GiB over: no start in the spread held so little";
    auto given = fit("12288", "on", {"--reserve-gib", "0.5"});
    ASSERT_EQ(given.status, 0) << given.err;
    auto g = nlohmann::json::parse(given.out);
    EXPECT_EQ(g["card_held_bytes"], 536870912);
    EXPECT_EQ(g["runtime_bytes"], 207628416 + 536870912);
    EXPECT_EQ(g["engine"]["card_held_how"], "--reserve-gib");
    EXPECT_FALSE(g.contains("engine_held_edge")) << "a figure given is not fitted: it has no spread";
    // A build up to b8198 reserves every token's output: 512 x (151,936 + 5,120) x 4 + 512 x 4; its
    // graph is not the pinned release's, so it is held to the stage.
    auto older = fit("16384", "on", {"--engine-version", "b8198"});
    auto o = nlohmann::json::parse(older.out);
    EXPECT_EQ(o["compute_buffer_bytes"], 321652736);
    EXPECT_EQ(o["engine"]["compute_buffer_stage"], "output");

    auto other = [](const std::string& model, const std::string& card, const std::string& quant) {
        return kvcat::test::KvcatRunner(false).run({"fit", "--records",
                                                    (fs::path(KVCAT_SOURCE_DIR) / "records").string(), "--model", model,
                                                    "--accelerator", card, "--weight-quant", quant, "--kv-dtype", "f16",
                                                    "--engine", "llama.cpp", "--ctx-size", "4096", "--format", "json"});
    };
    auto untensored = other("deepseek-v2-lite", "nvidia-rtx-3090", "Q4_K");
    ASSERT_EQ(untensored.status, 0) << untensored.err;
    auto u = nlohmann::json::parse(untensored.out);
    EXPECT_FALSE(u.contains("compute_buffer_bytes"));
    EXPECT_FALSE(u.contains("card_held_bytes"));
    EXPECT_EQ(u["runtime_bytes"], 1073741824);
    auto apple = other("qwen3-32b", "apple-m4-max", "Q4_K_M");
    ASSERT_EQ(apple.status, 0) << apple.err;
    auto a = nlohmann::json::parse(apple.out);
    EXPECT_EQ(a["card_held_bytes"], 0);
    EXPECT_EQ(a["runtime_bytes"], a["compute_buffer_bytes"]);
}

}  // namespace

namespace {

// Every shipped whole start whose layers are all on one device: on a CUDA card at the output or
// attention-scores stage its compute buffer is kvcat's stage to the printed 0.01 MiB; elsewhere it
// is at least the bound, and how many are equal to it is counted.
TEST(LlamaCompute, EveryShippedStartsComputeBufferIsTheStageOnCudaAndAtLeastTheBoundElsewhere) {
    int exact = 0;
    int bounds = 0;
    int equal = 0;
    std::string wrong;
    for (const auto& [record, f] : kvcat::test::shipped_allocation_figures("CUDA compute buffer is its")) {
        ++exact;
        if (!f.holds || f.printed != f.computed)
            wrong += fmt::format("\n  {}: {} is not {}", record, f.printed, f.computed);
    }
    for (const auto& [record, f] : kvcat::test::shipped_allocation_figures("compute buffer is at least")) {
        ++bounds;
        if (!f.holds) wrong += fmt::format("\n  {}: {} below {}", record, f.printed, f.computed);
        if ("at least " + f.printed == f.computed) ++equal;
    }
    std::cout << fmt::format(
        "{} compute buffers of starts on one device: {} on CUDA at the output or attention-scores stage, each "
        "equal to it; {} held to the bound, equal to it to the printed 0.01 MiB in {}{}\n",
        exact + bounds, exact, bounds, equal, wrong);
    EXPECT_GE(exact, 12);
    EXPECT_GE(bounds, 12);
    EXPECT_TRUE(wrong.empty()) << wrong;
}

// The stage is the buffer on CUDA devices only, at two stages, with flash attention known.
TEST(LlamaCompute, OnlyACudaDevicesOutputOrScoresStageIsExact) {
    kvcat::LlamaComputeBuffer output{1, "output", ""};
    kvcat::LlamaComputeBuffer scores{1, "attention scores", ""};
    kvcat::LlamaComputeBuffer ffn{1, "feed-forward", ""};
    kvcat::LlamaComputeBuffer cast{1, "mask cast", ""};
    EXPECT_TRUE(kvcat::llamacpp_compute_is_exact("CUDA0", output, true));
    EXPECT_TRUE(kvcat::llamacpp_compute_is_exact("CUDA1", scores, true));
    EXPECT_FALSE(kvcat::llamacpp_compute_is_exact("CUDA0", output, false));
    EXPECT_FALSE(kvcat::llamacpp_compute_is_exact("CUDA0", ffn, true));
    EXPECT_FALSE(kvcat::llamacpp_compute_is_exact("CUDA0", cast, true));
    for (const char* device : {"CUDA_Host", "CPU", "Metal", "MTL0", "Vulkan0", "ROCm0"}) {
        EXPECT_FALSE(kvcat::llamacpp_compute_is_exact(device, output, true)) << device;
    }
}

}  // namespace
