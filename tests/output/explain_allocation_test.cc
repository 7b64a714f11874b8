// kvcat explain for an allocation record: the printed lines, the settings read from the log,
// kvcat's recomputation part by part and term by term, and the textbook figure beside it.
#include "output/explain_allocation.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "check/lint.h"
#include "explain_fixture.h"
#include "output/explain.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

using test::explain;

const nlohmann::json* part_of(const nlohmann::json& allocation, const std::string& key) {
    for (const auto& p : allocation["parts"]) {
        if (p["part"] == key) return &p;
    }
    return nullptr;
}

const nlohmann::json* figure_of(const nlohmann::json& part, const std::string& key) {
    for (const auto& f : part["figures"]) {
        if (f["key"] == key) return &f;
    }
    return nullptr;
}

bool any_starts_with(const nlohmann::json& texts, const std::string& start) {
    for (const auto& t : texts) {
        if (t.get<std::string>().starts_with(start)) return true;
    }
    return false;
}

// vLLM: the printed lines, the settings read beside them, the pool from the printed GiB's
// rounding term by term, each printed figure beside kvcat's, and the textbook figure.
TEST(ExplainAllocation, AVllmRecordShowsThePoolTermByTermBesideWhatWasPrinted) {
    auto e = explain("allocations/vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25");
    ASSERT_TRUE(e.contains("allocation")) << e.dump(2);
    const auto& a = e["allocation"];
    EXPECT_EQ(a["engine"], "vllm");
    EXPECT_EQ(a["log_lines"][0], "Model loading took 14.2488 GiB and 4.422213 seconds");
    EXPECT_EQ(a["log_lines"][2], "GPU KV cache size: 93,872 tokens");
    const auto* pool = part_of(a, "vllm");
    ASSERT_TRUE(pool);
    EXPECT_EQ((*pool)["settings"]["max_model_len"], "16384");
    EXPECT_EQ((*pool)["printed"]["available_kv_gib"], "5.01");
    EXPECT_TRUE(any_starts_with((*pool)["terms"], "pool: 5,857 to 5,868 blocks of 16 tokens in 1 group of 28 layers"))
        << (*pool)["terms"].dump(2);
    EXPECT_TRUE(any_starts_with((*pool)["terms"], "tokens: num_blocks // 1 group x 16 = 93,712 to 93,888"));
    const auto* tokens = figure_of(*pool, "vllm.tokens");
    ASSERT_TRUE(tokens);
    EXPECT_EQ((*tokens)["printed"], "93,872");
    EXPECT_EQ((*tokens)["computed"], "93,712 to 93,888");
    EXPECT_TRUE((*tokens)["holds"].get<bool>());
    const auto* concurrency = figure_of(*pool, "vllm.concurrency");
    ASSERT_TRUE(concurrency);
    EXPECT_EQ((*concurrency)["computed"], "5.73");
    // Beside the textbook: 28 layers x 2 x 4 heads x 128 x 2 bytes = 57,344 bytes a token in both.
    EXPECT_EQ(a["textbook"]["textbook_bytes_per_token"], "57,344");
    EXPECT_EQ(a["textbook"]["engine_bytes_per_token"], "57,344");
    EXPECT_EQ(a["textbook"]["differences"][0]["name"], "block rounding");
    std::string text = render_explanation_text(e);
    for (const char* line : {"What the engine printed (vllm 0.10.1.1, models/qwen2-7b-instruct):",
                             "  vllm (pool): gpu_memory_utilization 0.25, kv_cache_dtype auto, max_model_len 16384",
                             "  Model loading took 14.2488 GiB and 4.422213 seconds",
                             "    vllm.tokens          printed 93,872 tokens, kvcat 93,712 to 93,888 tokens: holds",
                             "    vllm.concurrency     printed 5.73x, kvcat 5.73x: holds",
                             "  in all: printed 93,872 tokens, kvcat 93,712 to 93,888 tokens",
                             "    - block rounding: a request takes whole blocks of 16 tokens"}) {
        EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
    }
}

// llama.cpp ISWA: each cache's K and V term by term from the printed cells, and the SWA cache
// named where it leaves the textbook's window.
TEST(ExplainAllocation, ALlamaCppRecordShowsEachCacheTermByTerm) {
    auto e = explain("allocations/llamacpp-hexagon-doc-gpt-oss-20b-q4_0-iswa-q8_0-8k");
    const auto& a = e["allocation"];
    const auto* base = part_of(a, "kv_cache");
    const auto* swa = part_of(a, "swa_cache");
    ASSERT_TRUE(base && swa) << a.dump(2);
    EXPECT_EQ((*base)["what"], "base cache");
    EXPECT_EQ((*swa)["what"], "SWA cache");
    // gpt-oss-20b: 8 KV heads x 64 = 512 values a layer, q8_0 at 34 bytes per 32: 544 bytes.
    EXPECT_TRUE(any_starts_with((*base)["terms"],
                                "K: 53,477,376 bytes = 12 layers x 8,192 cells x 1 stream x 544 "
                                "bytes per cell per layer (q8_0) = 51.00 MiB"))
        << (*base)["terms"].dump(2);
    EXPECT_TRUE(any_starts_with((*swa)["terms"], "size: K + V = 3,342,336 bytes = 3.19 MiB"));
    EXPECT_EQ((*figure_of(*swa, "swa_cache.size_mib"))["computed"], "3.19");
    EXPECT_EQ(a["printed"], "102.00 + 3.19 MiB");
    EXPECT_EQ(a["computed"], "102.00 + 3.19 MiB");
    bool swa_named = false;
    for (const auto& d : a["textbook"]["differences"]) {
        if (d["name"] != "SWA reserve") continue;
        swa_named = true;
        EXPECT_NE(d["detail"].get<std::string>().find("keep 256 cells per stream where the textbook keeps the window "
                                                      "of 128"),
                  std::string::npos)
            << d.dump();
    }
    EXPECT_TRUE(swa_named) << a["textbook"].dump(2);
}

// The recurrent state's R and S, in f32, one cell per sequence.
TEST(ExplainAllocation, TheRecurrentStateShowsRAndS) {
    auto e = explain("allocations/llamacpp-b8999-metal-qwen3.5-9b-q4_k_s-q8_0-262k");
    const auto* state = part_of(e["allocation"], "recurrent");
    ASSERT_TRUE(state);
    EXPECT_TRUE(any_starts_with((*state)["terms"], "R (conv state): 2,359,296 bytes = 24 layers x 1 cell"));
    EXPECT_TRUE(any_starts_with((*state)["terms"], "S (recurrent state): 50,331,648 bytes = 24 layers x 1 cell"));
    EXPECT_EQ((*figure_of(*state, "recurrent.size_mib"))["computed"], "50.25");
}

// A printed figure that does not recompute is shown beside the right one, and its finding.
TEST(ExplainAllocation, AFigureThatDiffersIsShownWithTheRightOne) {
    auto e = explain("allocations/vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-40g-0.5",
                     fs::path(KVCAT_FIXTURES_DIR) / "engine-allocation/fail");
    const auto* tokens = figure_of(*part_of(e["allocation"], "vllm"), "vllm.tokens");
    ASSERT_TRUE(tokens);
    EXPECT_FALSE((*tokens)["holds"].get<bool>());
    EXPECT_EQ((*tokens)["printed"], "412,945");
    EXPECT_EQ((*tokens)["computed"], "412,944");
    ASSERT_EQ(e["findings"].size(), 1u);
    EXPECT_EQ(e["findings"][0]["rule"], "engine-allocation");
    std::string text = render_explanation_text(e);
    EXPECT_NE(text.find("printed 412,945 tokens, kvcat 412,944 tokens: DIFFERS (vLLM 0.10.1.1 prints num_blocks"),
              std::string::npos)
        << text;
}

}  // namespace
}  // namespace kvcat
