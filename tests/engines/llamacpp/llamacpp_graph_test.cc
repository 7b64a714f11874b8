// llama.cpp's own graph, built as the pinned release builds it and placed by kvcat's model of
// ggml-alloc (engines/llamacpp/llamacpp_graph), against buffers llama.cpp printed: the pinned
// libllama on the CPU (the compute oracle's run, tests/engines/oracle/quant_oracle.cc, which also
// compares the graphs node for node over every setting of its grid), and GPU starts shipped in
// records/allocations.
#include "engines/llamacpp/llamacpp_graph.h"

#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "shipped_records.h"

namespace {

using kvcat::llamacpp_graph_buffer;
using kvcat::llamacpp_graph_unsupported;
using kvcat::LlamaGraphSetting;
using kvcat::test::shipped_model;

std::string mib(std::int64_t bytes) {
    return fmt::format("{:.2f}", static_cast<double>(bytes) / 1024.0 / 1024.0);
}

struct Printed {
    const char* model;
    std::int64_t ctx, ub, np;
    bool unified, fa, server;
    const char* mib;  ///< "CPU compute buffer size" as the pinned libllama printed it
    const char* cache_k = "f16";
    const char* cache_v = "f16";
};

TEST(LlamaGraph, OnTheCpuItIsTheBufferThePinnedLlamaCppPrinted) {
    // The oracle's lines ("compute models/... llama.cpp X MiB"), the model loaded with its real
    // widths and vocabulary. Where kvcat's stages were a bound, they were up to 43.5% under
    // (Qwen3-30B-A3B's experts with llama-server's outputs: 52.00 of 92.01 MiB).
    const Printed cases[] = {
        {"models/qwen3-0.6b", 4096, 512, 1, false, true, false, "312.76"},
        {"models/qwen3-0.6b", 4096, 512, 1, false, true, true, "30.01"},
        {"models/llama-3.1-8b", 4096, 512, 1, false, true, false, "266.50"},
        {"models/llama-3.1-8b", 4096, 512, 1, false, true, true, "120.01"},
        {"models/llama-3.1-8b", 32768, 512, 4, false, false, true, "572.01"},
        {"models/qwen3-30b-a3b", 4096, 512, 1, false, true, false, "304.75"},
        {"models/qwen3-30b-a3b", 4096, 512, 1, false, true, true, "92.01"},
        {"models/qwen3-30b-a3b", 32768, 512, 4, false, false, true, "558.01"},
        {"models/mixtral-8x7b", 4096, 512, 1, false, true, true, "204.01"},
        {"models/mixtral-8x7b", 32768, 2048, 4, false, false, false, "2288.04"},
        // -ctk q8_0 -ctv q4_0: Q, K, V and the attention's output rotated by Hadamard matrices.
        {"models/qwen3-0.6b", 4096, 512, 1, false, true, false, "302.75", "q8_0", "q4_0"},
        {"models/qwen3-30b-a3b", 4096, 512, 1, false, true, true, "92.09", "q8_0", "q4_0"},
        {"models/qwen3-30b-a3b", 32768, 512, 4, false, true, true, "96.09", "q8_0", "q4_0"},
        // -ctk f32 -ctv f32: flash attention reads f16 copies of K and V (30.01 MiB with an f16 cache).
        {"models/qwen3-0.6b", 4096, 512, 1, false, true, true, "34.01", "f32", "f32"},
        {"models/qwen3-0.6b", 4096, 512, 4, false, false, true, "52.01", "f32", "f32"},
        // Qwen 3.5's hybrids: gated attention every fourth layer, Gated DeltaNet layers between,
        // whose states are read and written back by row (qwen35, and qwen35moe's experts).
        {"models/qwen3.5-9b", 4096, 512, 1, false, true, false, "513.02"},
        {"models/qwen3.5-9b", 4096, 512, 1, false, true, true, "100.02"},
        {"models/qwen3.5-9b", 32768, 512, 4, false, false, true, "324.01"},
        {"models/qwen3.5-35b-a3b", 4096, 512, 1, false, true, true, "76.02"},
        {"models/qwen3.5-35b-a3b", 32768, 2048, 4, false, false, true, "1256.05"},
        {"models/qwen3.5-35b-a3b", 4096, 512, 4, false, true, true, "73.28", "q8_0", "q4_0"},
        // Granite 4.0-H: Mamba-2 layers between attention ones without RoPE, Granite's scales.
        {"models/granite-4.0-h-350m", 4096, 512, 1, false, true, false, "204.51"},
        {"models/granite-4.0-h-350m", 4096, 512, 1, false, true, true, "25.89"},
        {"models/granite-4.0-h-350m", 32768, 512, 4, false, false, true, "218.09"},
        // LFM2-700M: gated short convolutions between attention layers (2026-12-07).
        {"models/lfm2-700m", 4096, 512, 1, false, true, false, "134.00"},
        {"models/lfm2-700m", 4096, 512, 1, false, true, true, "53.52"},
        {"models/lfm2-700m", 32768, 512, 4, false, false, true, "417.01"},
    };
    for (const Printed& c : cases) {
        LlamaGraphSetting s;
        s.tokens = std::min(c.ctx, c.ub);
        s.seqs = c.np;
        s.unified = c.unified;
        s.cells_per_stream = c.unified ? c.ctx : c.ctx / c.np;
        s.outputs = c.server ? c.np : 0;
        s.flash_attn = c.fa;
        s.cache_k = c.cache_k;
        s.cache_v = c.cache_v;
        s.device = false;
        auto bytes = llamacpp_graph_buffer(shipped_model(c.model), s);
        ASSERT_TRUE(bytes) << c.model;
        EXPECT_EQ(mib(*bytes), c.mib) << c.model << " -c " << c.ctx << " -ub " << c.ub << " -np " << c.np
                                      << (c.fa ? " -fa on" : " -fa off") << (c.server ? " (server)" : "") << " -ctk "
                                      << c.cache_k << " -ctv " << c.cache_v;
    }
}

TEST(LlamaGraph, OnAGpuItIsTheBufferThatGpusStartsPrinted) {
    // records/allocations: each start's device compute buffer as printed, every layer on the card,
    // at the output stage (the graphs of these builds and the pinned one agree there). The host
    // keeps the inputs and the token lookup, so the card holds one hidden state less than the CPU
    // (the embeddings input): 258.50 where the pinned CPU prints 266.50.
    struct Start {
        const char* record;
        const char* model;
        std::int64_t cells, seqs;
        bool fa;
        const char* mib;
    };
    const Start starts[] = {
        {"llamacpp-python-llama-3-8b-q4_k_m-f16-512-3070 (CUDA0)", "models/llama-3.1-8b", 512, 1, false, "258.50"},
        {"ollama-0.13.5-llama-3.1-70b-instruct-q4_k_m-f16-4096-l40s (CUDA0)", "models/llama-3.1-70b", 4096, 1, true,
         "266.50"},
        {"ollama-0.15.5-llama-3-70b-instruct-q4_0-f16-8192-m3-max (Metal)", "models/llama-3.1-70b", 8192, 1, true,
         "266.50"},
        {"llamacpp-b7342-qwen3-coder-30b-a3b-q8_0-f16-64k-4seq-a100 (CUDA0, 4 slots, unified)",
         "models/qwen3-coder-30b-a3b", 65536, 4, true, "300.75"},
        {"llamacpp-b5398-vulkan-qwen3-0.6b-q8_0-f16-4096-gfx1151 (Vulkan0)", "models/qwen3-0.6b", 4096, 1, false,
         "298.75"},
    };
    for (const Start& st : starts) {
        LlamaGraphSetting s;
        s.tokens = std::min<std::int64_t>(512, st.cells);
        s.seqs = st.seqs;
        s.unified = true;
        s.cells_per_stream = st.cells;
        s.outputs = 0;  // builds before pull 23861 reserve every token's output
        s.flash_attn = st.fa;
        s.device = true;
        auto bytes = llamacpp_graph_buffer(shipped_model(st.model), s);
        ASSERT_TRUE(bytes) << st.record;
        EXPECT_EQ(mib(*bytes), st.mib) << st.record;
    }
}

TEST(LlamaGraph, GptOssOnATeslaT4IsTheBufferB7772Printed) {
    // Three starts of llama.cpp b7772 on a T4 (records/allocations/llamacpp-b7772-gpt-oss-20b-*): a
    // full cache and a sliding window's of their own, sinks, biases, 32 experts. b7772's gpt-oss
    // took the output rows inside the last layer and kept no hidden state as an output; built so,
    // the GPU's part is each printed 398.38 MiB. The pinned release keeps the last hidden state
    // (t_h_nextn, 2,880 x 512 x 4 bytes) and takes the rows after the last layer, and places the
    // rest around it: 5,898,240 bytes more at 64,000 and 24,576 cells, 10,899,456 at 4,096.
    struct Start {
        std::int64_t cells, swa_cells, seqs, streams;
    };
    struct Case {
        Start start;
        std::int64_t more;
    };
    for (const auto& [st, more] :
         {Case{{64000, 1024, 4, 1}, 5898240}, Case{{4096, 768, 2, 2}, 10899456}, Case{{24576, 768, 2, 2}, 5898240}}) {
        LlamaGraphSetting s;
        s.tokens = 512;
        s.seqs = st.seqs;
        s.unified = st.streams == 1;
        s.cells_per_stream = st.cells;
        s.swa_cells_per_stream = st.swa_cells;
        s.outputs = 0;
        s.device = true;
        s.rows_in_layer = true;
        auto then = llamacpp_graph_buffer(shipped_model("models/gpt-oss-20b"), s);
        ASSERT_TRUE(then) << st.cells;
        EXPECT_EQ(mib(*then), "398.38") << st.cells;
        s.rows_in_layer = false;
        auto now = llamacpp_graph_buffer(shipped_model("models/gpt-oss-20b"), s);
        ASSERT_TRUE(now);
        EXPECT_EQ(*now - *then, more) << st.cells;
    }
}

TEST(LlamaGraph, Qwen36OnAGb10IsTheBufferItsBuildPrinted) {
    // records/allocations/llamacpp-rs-0.1.146-qwen3.6-27b-q4_k_m-f16-32768-gb10: llama.cpp inside
    // the Rust crate llama-cpp-2 on a DGX Spark, every layer on CUDA0, 32,768 cells, one sequence,
    // flash attention and the fused Gated DeltaNet on, the library's outputs (every token). Its
    // build took the output rows inside the last layer (src/models/qwen35.cpp at 1af4a799) and
    // kept no normed state as an output; built so, the GPU's part is the printed 495.00 MiB. The
    // pinned release keeps that state (t_h_nextn, 5,120 x 512 x 4 bytes) beside the logits.
    LlamaGraphSetting s;
    s.tokens = 512;
    s.seqs = 1;
    s.cells_per_stream = 32768;
    s.outputs = 0;
    s.device = true;
    s.rows_in_layer = true;
    auto then = llamacpp_graph_buffer(shipped_model("models/qwen3.6-27b"), s);
    ASSERT_TRUE(then);
    EXPECT_EQ(mib(*then), "495.00");
    s.rows_in_layer = false;
    auto now = llamacpp_graph_buffer(shipped_model("models/qwen3.6-27b"), s);
    ASSERT_TRUE(now);
    EXPECT_EQ(*now - *then, 5120 * 512 * 4);
    // The same eval on the DGX Spark's CPU (the run's
    // curated-v2-smoke-postfix-1781146615-167f5d89-spark-2f6e-aarch64-cpu-release-regression report,
    // failures/01_qwen3_6_27b_gguf__chat_smoke__smoke__gguf_q4_k_m.md, at the same commit) prints
    // "CPU compute buffer size = 505.00 MiB": the whole graph with the same arrangement, the
    // embeddings input and the token lookup on the CPU beside the rest.
    s.device = false;
    s.rows_in_layer = true;
    auto cpu = llamacpp_graph_buffer(shipped_model("models/qwen3.6-27b"), s);
    ASSERT_TRUE(cpu);
    EXPECT_EQ(mib(*cpu), "505.00");
}

TEST(LlamaGraph, AModelOrCacheWhoseGraphIsNotBuiltSaysWhy) {
    LlamaGraphSetting s;
    s.cells_per_stream = 4096;
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/qwen3-32b"), s), "");
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/qwen3.5-27b"), s), "");
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/granite-4.0-h-350m"), s), "");
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/jamba-v0.1"), s),
              "the model record has no tensors mapping");
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/qwen3-next-80b-a3b"), s), "");
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/deepseek-r1"), s),
              "llama.cpp's deepseek2 graph is not built here");
    kvcat::Model wider = shipped_model("models/qwen3.5-27b");
    wider.linear->value_head_dim = 2 * wider.linear->key_head_dim;
    EXPECT_NE(llamacpp_graph_unsupported(wider, s).find("key and value heads must be as wide"), std::string::npos);
    EXPECT_FALSE(llamacpp_graph_buffer(wider, s));
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/gemma-3-27b"), s),
              "no cells for the sliding window's cache");
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/deepseek-v2-lite"), s),
              "the model record has no tensors mapping");
    // LFM2's short convolution runs over the embedding's channels (conv_dim equal to hidden_size).
    kvcat::Model lfm2 = shipped_model("models/lfm2-700m");
    EXPECT_EQ(llamacpp_graph_unsupported(lfm2, s), "");
    lfm2.linear->inner_dim *= 2;
    EXPECT_NE(llamacpp_graph_unsupported(lfm2, s).find("LFM2's attention and short convolutions"), std::string::npos);
    s.cache_k = "q8_0";
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/qwen3-32b"), s), "");
    s.cache_k = "f32";
    EXPECT_EQ(llamacpp_graph_unsupported(shipped_model("models/qwen3-32b"), s), "");
    s.cache_k = "fp8";
    EXPECT_NE(
        llamacpp_graph_unsupported(shipped_model("models/qwen3-32b"), s).find("llama.cpp takes no cache of that type"),
        std::string::npos);
    EXPECT_FALSE(llamacpp_graph_buffer(shipped_model("models/qwen3-32b"), s));
}

}  // namespace
