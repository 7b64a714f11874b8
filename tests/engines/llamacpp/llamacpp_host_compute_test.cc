// llama.cpp's host compute buffer (engines/llamacpp/llamacpp_host_compute): the graph's inputs, era
// by era, in bytes worked by hand; which eras a printed build may be of; and, on every shipped
// whole start with its layers on one GPU, the printed buffer equal to an era's sum to its 0.01 MiB.
#include "engines/llamacpp/llamacpp_host_compute.h"

#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engines/llamacpp/llamacpp_graph.h"
#include "kvcat_runner.h"
#include "shipped_records.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::llamacpp_host_compute;
using kvcat::LlamaHostSetting;
using kvcat::LlamaInputs;
using kvcat::test::contains;

using kvcat::test::shipped_model;

std::int64_t bytes(const LlamaHostSetting& s, LlamaInputs era) {
    auto b = llamacpp_host_compute(shipped_model("models/llama-3.1-8b"), s, era);
    EXPECT_TRUE(b);
    return b ? b->bytes : -1;
}

TEST(LlamaHostCompute, EachEraAddsItsInputsToTheSum) {
    // Llama 3.1 8B, -ub 512, 2,048 cells, flash attention off. The lookup: 4,096 x 512 x 4 = 8,388,608.
    LlamaHostSetting off{512, 2048, {2048}, false};
    EXPECT_EQ(bytes(off, LlamaInputs::own_buffer), 8388608);
    // + the token ids and positions (2 x 2,048) and the f32 mask, 2,048 x 512 x 4 = 4,194,304:
    // the 12.00 MiB of ollama 0.1.30's CUDA_Host buffer.
    EXPECT_EQ(bytes(off, LlamaInputs::mask), 12587008);
    EXPECT_EQ(bytes(off, LlamaInputs::output_ids), 12589056);
    // + K's row indices (512 x 8) and, V transposed without flash attention, one a token and a
    // column: 512 x 1,024 x 8 = 4,194,304.
    EXPECT_EQ(bytes(off, LlamaInputs::row_indices), 16787456);
    EXPECT_EQ(bytes(off, LlamaInputs::embedding_input), 16787456 + 8388608);
    // Without flash attention the pinned release keeps the f32 mask.
    EXPECT_EQ(bytes(off, LlamaInputs::half_mask), 16787456 + 8388608);
    // With it: two 8,388,608 embeddings, 3 x 2,048 ids, an f16 mask of 2,097,152 and 2 x 4,096 indices.
    LlamaHostSetting on{512, 2048, {2048}, true};
    EXPECT_EQ(bytes(on, LlamaInputs::half_mask), 18888704);
    // llama-server's reserve of one output a slot keeps one output id, not 512.
    LlamaHostSetting server = on;
    server.outputs = 1;
    EXPECT_EQ(bytes(server, LlamaInputs::half_mask), 18888704 - 511 * 4);
    // A q8_0 cache adds its rotations: K's 128 x 128 f32 (the head is 128 wide), V's 64 x 64.
    LlamaHostSetting q8{512, 2048, {2048}, true, true, true};
    EXPECT_EQ(bytes(q8, LlamaInputs::half_mask), 18888704 + 65536 + 16384);
    EXPECT_EQ(bytes(q8, LlamaInputs::embedding_input), 2 * 8388608 + 6144 + 4194304 + 8192);
    // A micro-batch is never longer than the context: at -c 256 the reserve has 256 tokens.
    LlamaHostSetting short_context{512, 256, {256}, false};
    EXPECT_EQ(bytes(short_context, LlamaInputs::own_buffer), 4096 * 256 * 4);
}

TEST(LlamaHostCompute, ASlidingWindowModelHasTwoMasksAndTwoSetsOfIndices) {
    // gpt-oss-20b at b7772 (records/allocations/llamacpp-b7772-gpt-oss-20b-q4_k_m-f16-8192-2seq-t4):
    // two streams of 4,096 base cells and 768 SWA cells, -ub 512, flash attention on. 2,880 x 512 x 4
    // + 3 x 2,048 + 4,096 x 512 x 4 + 768 x 512 x 4 + 4 x 4,096 = 15,882,240 bytes, printed 15.15 MiB.
    auto b = llamacpp_host_compute(shipped_model("models/gpt-oss-20b"), LlamaHostSetting{512, 8192, {4096, 768}, true},
                                   LlamaInputs::row_indices);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->bytes, 15882240);
    EXPECT_TRUE(contains(b->how, "the SWA cache's mask, 768 cells x 512 tokens f32")) << b->how;
}

TEST(LlamaHostCompute, AQwen35HybridAddsFourPositionsATokenAndItsRecurrentRows) {
    // Qwen3.6-27B (records/allocations/llamacpp-rs-0.1.146-qwen3.6-27b-q4_k_m-f16-32768-gb10):
    // 32,768 cells, -ub 512, flash attention on, every token's output, one sequence, the f32 mask
    // of pull 18898's era. 2 x 5,120 x 512 x 4 + 2,048 + 512 x 4 x 4 + 4 + 2,048 + 32,768 x 512 x
    // 4 + 2 x 4,096 = 88,100,868 bytes, printed 84.02 MiB.
    LlamaHostSetting s{512, 32768, {32768}, true};
    auto b = llamacpp_host_compute(shipped_model("models/qwen3.6-27b"), s, LlamaInputs::embedding_input);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->bytes, 88100868);
    EXPECT_TRUE(contains(b->how, "the positions, 512 x 4 i32")) << b->how;
    EXPECT_TRUE(contains(b->how, "the recurrent rows' indices, 1 i32")) << b->how;
    // Four sequences: a row each.
    s.sequences = 4;
    auto four = llamacpp_host_compute(shipped_model("models/qwen3.6-27b"), s, LlamaInputs::embedding_input);
    ASSERT_TRUE(four);
    EXPECT_EQ(four->bytes - b->bytes, 12);
}

TEST(LlamaHostCompute, AGraphWhoseInputsAreNotReadHasNoFigure) {
    // Gemma 3 scales its embeddings on the host's side of the split: its graph is not read.
    EXPECT_FALSE(
        llamacpp_host_compute(shipped_model("models/gemma-3-27b"), LlamaHostSetting{512, 4096, {4096, 1024}, true}));
}

// The pinned release's sum is the host's side of kvcat's own graph (llamacpp_graph.h, which the
// oracle holds to libllama's node for node): every input, and the token lookup the host keeps.
// For every shipped model whose inputs are read, at one sequence and four, flash attention on and
// off, the library's outputs and one a sequence: Granite 4.0-H's (no positions: it has no RoPE)
// and LFM2's (one position a token) among them, beside the Qwen 3.5 hybrids' four.
TEST(LlamaHostCompute, ThePinnedSumIsTheHostsSideOfKvcatsOwnGraph) {
    int checked = 0;
    std::set<std::string> archs;
    for (const kvcat::Record& r : kvcat::test::shipped_records().records.records()) {
        if (!r.model || !r.model->tensors || r.model->sliding) continue;
        for (std::int64_t seqs : {1, 4}) {
            for (bool fa : {true, false}) {
                for (std::int64_t outputs : {std::int64_t{0}, seqs}) {
                    kvcat::LlamaGraphSetting g;
                    g.tokens = 512;
                    g.seqs = seqs;
                    g.cells_per_stream = 4096;
                    g.flash_attn = fa;
                    g.outputs = outputs;
                    auto graph = kvcat::llamacpp_graph(*r.model, g);
                    if (!graph) continue;
                    LlamaHostSetting h{512, 4096 * seqs, {4096}, fa};
                    h.outputs = outputs;
                    h.sequences = seqs;
                    auto sum = llamacpp_host_compute(*r.model, h);
                    if (!sum) continue;
                    SCOPED_TRACE(fmt::format("{} -np {} -fa {} outputs {}", r.id, seqs, fa, outputs));
                    std::int64_t host = 0;
                    int lookup = graph->nodes.front();  // get_rows of token_embd
                    for (std::size_t i = 0; i < graph->tensors.size(); ++i) {
                        const auto& t = graph->tensors[i];
                        if (t.input || static_cast<int>(i) == lookup) host += t.bytes;
                    }
                    EXPECT_EQ(sum->bytes, host) << sum->how;
                    archs.insert(r.model->tensors->llama_arch);
                    ++checked;
                }
            }
        }
    }
    EXPECT_GE(checked, 8 * 20);
    for (const char* arch : {"llama", "qwen3moe", "qwen35", "granitehybrid", "lfm2"})
        EXPECT_TRUE(archs.count(arch)) << arch;
}

TEST(LlamaHostCompute, ABuildIsHeldToTheErasTheLogsLeaveItIn) {
    auto eras_of = [](std::int64_t build) {
        std::vector<LlamaInputs> out;
        for (const auto& e : kvcat::llamacpp_inputs_eras()) {
            if (kvcat::llamacpp_inputs_era_holds(e.inputs, build)) out.push_back(e.inputs);
        }
        return out;
    };
    EXPECT_EQ(eras_of(7772), std::vector<LlamaInputs>{LlamaInputs::row_indices});
    EXPECT_EQ(eras_of(6000), (std::vector<LlamaInputs>{LlamaInputs::output_ids, LlamaInputs::row_indices}));
    EXPECT_EQ(eras_of(9000), (std::vector<LlamaInputs>{LlamaInputs::embedding_input, LlamaInputs::half_mask}));
    EXPECT_EQ(eras_of(1000),
              (std::vector<LlamaInputs>{LlamaInputs::own_buffer, LlamaInputs::mask, LlamaInputs::output_ids}));
    // fit answers in the newest era a given build may be of, and in the pinned release's without one.
    EXPECT_EQ(kvcat::llamacpp_inputs_era_of(8198), LlamaInputs::embedding_input);
    EXPECT_EQ(kvcat::llamacpp_inputs_era_of(6000), LlamaInputs::row_indices);
    EXPECT_EQ(kvcat::llamacpp_inputs_era_of(std::nullopt), LlamaInputs::half_mask);
}

TEST(LlamaHostCompute, EveryShippedStartOnOneGpuPrintsAnErasSum) {
    int judged = 0;
    int equal = 0;
    std::string apart;
    for (const auto& [record, f] : kvcat::test::shipped_allocation_figures("host compute buffer")) {
        ++judged;
        if (f.holds)
            ++equal;
        else
            apart += fmt::format("\n  {}: {} against {}", record, f.printed, f.computed);
    }
    std::cout << fmt::format(
        "{} host compute buffers of starts on one GPU: equal to an era's sum of the "
        "graph's inputs to the printed 0.01 MiB in {}{}\n",
        judged, equal, apart);
    EXPECT_GE(judged, 21);
    EXPECT_EQ(equal, judged) << apart;
}

TEST(LlamaHostCompute, FitGivesThePinnedReleasesInputsBesideTheCardsFigures) {
    // Qwen3-32B at -c 16,384, one slot, flash attention on, f16 cache, the pinned release: two
    // 5,120 x 512 x 4 embeddings (20,971,520), 2 x 2,048 token ids and positions, one output id (the
    // server reserves one output a slot), the f16 mask 16,384 x 512 x 2 (16,777,216) and 2 x 4,096
    // row indices = 37,761,028 bytes, in the host's memory. (-fit off: with --fit's 1 GiB kept
    // free this start would move layers off the card, which changes nothing on the host.)
    auto run = kvcat::test::fit_qwen3_32b_on_3090("Q4_K_M", {"--kv-dtype", "f16", "--engine", "llama.cpp", "--ctx-size",
                                                             "16384", "--fit-target", "0", "--format", "json"});
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["host_compute_buffer_bytes"], 37761028);
    EXPECT_EQ(j["engine"]["host_compute_buffer_bytes"], 37761028);
    EXPECT_TRUE(contains(j["engine"]["host_compute_buffer_how"].get<std::string>(), "f16")) << j.dump(2);
}

}  // namespace
