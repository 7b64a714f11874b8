// The engine memory models: what llama.cpp, vLLM and SGLang allocate, against figures the
// engines print (the lines quoted in tests/fixtures/engine-logs and issue reports) and the
// textbook figure kv_math gives.
#include "engines/engine_memory.h"

#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "engines/engine_rules.h"
#include "engines/llamacpp/llamacpp_allocation.h"
#include "engines/sglang/sglang_allocation.h"
#include "engines/vllm/vllm_allocation.h"
#include "kvcat_runner.h"
#include "model/physics.h"
#include "output/engine_render.h"
#include "test_util.h"
#include "vocab/vocabulary.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

const LintResult& shipped() {
    static const LintResult r = lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    return r;
}

const Model& record_model(const std::string& id) {
    const Record* r = shipped().records.find(id);
    if (!r || !r->model) throw std::runtime_error("no model record " + id);
    return *r->model;
}

CacheDtype dtype(std::string_view name) {
    return *find_cache_dtype(name);
}

Model gqa(std::int64_t layers, std::int64_t kv_heads, std::int64_t head_dim) {
    Model m;
    m.attention_variant = "gqa";
    m.variant = AttentionVariant::gqa;
    m.num_layers = layers;
    m.attention_heads = kv_heads * 4;
    m.kv_heads = kv_heads;
    m.head_dim = head_dim;
    m.kv_layers.count = layers;
    m.native_context = 32768;
    return m;
}

Model qwen2_7b() {
    Model m = gqa(28, 4, 128);
    m.native_context = 32768;
    return m;
}

Model deepseek_v32() {
    // deepseek-ai/DeepSeek-V3.2-Exp config (tests/fixtures/configs/deepseek-v3.2.json): 61 layers,
    // kv_lora_rank 512, qk_rope_head_dim 64, an indexer of head_dim 128 in fp8 with one float32
    // scale per 128 values.
    Model m;
    m.attention_variant = "mla";
    m.variant = AttentionVariant::mla;
    m.num_layers = 61;
    m.attention_heads = 128;
    m.kv_layers.count = 61;
    m.mla = MlaShape{512, 64};
    m.indexer = IndexerShape{128, "fp8", 4, 128};
    m.native_context = 163840;
    return m;
}

TEST(EngineMemory, ParsesEnginesAndTheirOtherNames) {
    EXPECT_EQ(parse_engine("llama.cpp"), Engine::llamacpp);
    EXPECT_EQ(parse_engine("ollama"), Engine::llamacpp);
    EXPECT_EQ(parse_engine("vllm"), Engine::vllm);
    EXPECT_EQ(parse_engine("sglang"), Engine::sglang);
    EXPECT_FALSE(parse_engine("tgi"));
}

TEST(EngineMemory, MibTextRoundsAsLlamaCppPrintsIt) {
    EXPECT_EQ(llamacpp_mib_text(Rational(4563402752)), "4352.00");
    EXPECT_EQ(llamacpp_mib_text(Rational(5898240)), "5.62");  // 5.625 exactly: printf rounds half to even
    EXPECT_EQ(llamacpp_mib_text(Rational(2446589952)), "2333.25");
}

// --- ik_llama.cpp ----------------------------------------------------------------------------

EngineSettings ik(std::int64_t context, int mla, bool flash_attn) {
    EngineSettings s;
    s.context = context;
    s.ik_mla = mla;
    s.flash_attn = flash_attn;
    return s;
}

std::string ik_line(const std::string& model, std::string_view kv, const EngineSettings& s) {
    EngineAnswer a = engine_allocation(record_model(model), dtype(kv), Engine::ik_llama, s);
    auto lines = engine_log_lines(a, record_model(model));
    if (lines.size() != 1) {
        ADD_FAILURE() << model << ": " << lines.size() << " lines";
        return std::string();
    }
    return lines[0];
}

TEST(EngineIkLlama, ReproducesTheMlaLinesOfItsThreads) {
    // Each line as printed in an ik_llama.cpp thread (the address beside it), with the
    // command line's -c, -ctk, -mla and -fa; the prefix is the one builds since 2026-02 print.
    const std::string p = "llama_init_from_model: KV self size  = ";
    // github.com/ikawrakow/ik_llama.cpp/pull/259: -c 32768 -ctk q8_0 -mla 2 -fa (1166.625, even).
    EXPECT_EQ(ik_line("models/deepseek-r1", "q8_0", ik(32768, 2, true)),
              p + "1166.62 MiB, c^KV (q8_0): 1166.62 MiB, kv^T: not used");
    // .../discussions/258: -c 41000 -mla 3 -fa, padded to 41216 cells.
    EXPECT_EQ(ik_line("models/deepseek-r1", "q8_0", ik(41000, 3, true)),
              p + "1467.40 MiB, c^KV (q8_0): 1467.40 MiB, kv^T: not used");
    // .../discussions/586: -c 98304 -mla 3 -fa, DeepSeek-V3-0324 (3499.875, up).
    EXPECT_EQ(ik_line("models/deepseek-v3", "q8_0", ik(98304, 3, true)),
              p + "3499.88 MiB, c^KV (q8_0): 3499.88 MiB, kv^T: not used");
    // .../discussions/223: 163840 cells, -mla 1 without flash attention: the latent, and kv^T.
    EXPECT_EQ(ik_line("models/deepseek-r1", "f16", ik(163840, 1, false)),
              p + "20740.00 MiB, c^KV (f16): 10980.00 MiB, kv^T (f16): 9760.00 MiB");
    // .../pull/394: -c 16384 -mla 1, no -fa, DeepSeek-V3-0324.
    EXPECT_EQ(ik_line("models/deepseek-v3", "f16", ik(16384, 1, false)),
              p + "2074.00 MiB, c^KV (f16): 1098.00 MiB, kv^T (f16):  976.00 MiB");
    // .../pull/616: Kimi-K2 under llama-imatrix -mla 1 --ctx-size 512, no -fa.
    EXPECT_EQ(ik_line("models/kimi-k2-instruct", "f16", ik(512, 1, false)),
              p + "  64.81 MiB, c^KV (f16):   34.31 MiB, kv^T (f16):   30.50 MiB");
}

TEST(EngineIkLlama, OneCacheForEverySequenceAndPaddingByFlashAttention) {
    // .../issues/575: Qwen3-0.6B, --ctx-size 4096, flash_attn 0: K and V as llama.cpp keeps them.
    EXPECT_EQ(ik_line("models/qwen3-0.6b", "f16", ik(4096, 3, false)),
              "llama_init_from_model: KV self size  =  448.00 MiB, K (f16):  224.00 MiB, V (f16):  224.00 MiB");
    EngineSettings four = ik(4096, 3, false);
    four.parallel = 4;
    EngineAnswer shared = engine_allocation(record_model("models/qwen3-0.6b"), dtype("f16"), Engine::ik_llama, four);
    ASSERT_EQ(shared.parts.size(), 1u);
    EXPECT_EQ(shared.parts[0].streams, 1);  // llama.cpp would keep 4 streams of 1,024 cells
    EXPECT_EQ(shared.tokens, 4096);
    EXPECT_EQ(shared.kv_bytes, Rational(448LL << 20));
    bool named = false;
    for (const auto& d : shared.differences)
        named = named || (d.name == "one cache" && d.detail.find("1,024") != std::string::npos);
    EXPECT_TRUE(named);
    // 4,000 cells: a multiple of 32, so kept without flash attention; padded to 4,096 with it.
    EXPECT_EQ(
        engine_allocation(record_model("models/qwen3-0.6b"), dtype("f16"), Engine::ik_llama, ik(4000, 3, false)).tokens,
        4000);
    EXPECT_EQ(
        engine_allocation(record_model("models/qwen3-0.6b"), dtype("f16"), Engine::ik_llama, ik(4000, 3, true)).tokens,
        4096);
}

TEST(EngineIkLlama, AvailableMemoryGivesTheLargestCellsInStepsOfThePadding) {
    // Qwen3-0.6B: 28 layers x 8 heads x 128 x 2 (K and V) x 2 bytes = 114,688 bytes a cell.
    const Model& m = record_model("models/qwen3-0.6b");
    for (bool fa : {true, false}) {
        EngineSettings s = ik(4096, 3, fa);
        s.available_bytes = Rational(4160LL * 114688);
        EngineAnswer a = engine_allocation(m, dtype("f16"), Engine::ik_llama, s);
        EXPECT_EQ(a.tokens, fa ? 4096 : 4160) << fa;  // 256 cells a step with flash attention, 32 without
        EXPECT_LE(a.kv_bytes, *s.available_bytes);
        s.available_bytes = Rational(31LL * 114688);
        EXPECT_THROW(engine_allocation(m, dtype("f16"), Engine::ik_llama, s), EngineError) << fa;
    }
}

TEST(EngineIkLlama, Mla2WithoutFlashAttentionKeepsTheLatentInTheVType) {
    // Read in llama_kv_cache_init (no public log shows it): the latent takes -ctv's type, f16
    // here, while the line names -ctk's.
    EngineSettings s = ik(32768, 2, false);
    s.v_dtype = "f16";
    EngineAnswer a = engine_allocation(record_model("models/deepseek-r1"), dtype("q8_0"), Engine::ik_llama, s);
    ASSERT_EQ(a.parts.size(), 1u);
    EXPECT_EQ(a.parts[0].k_bytes, Rational(61LL * 576 * 2 * 32768));
    EXPECT_EQ(a.parts[0].v_bytes, Rational(0));
    EXPECT_EQ(a.parts[0].k_type, "q8_0");
    auto lines = engine_log_lines(a, record_model("models/deepseek-r1"));
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0],
              "llama_init_from_model: KV self size  = 2196.00 MiB, c^KV (q8_0): 2196.00 MiB, "
              "kv^T (f16):    0.00 MiB");
}

// -mla 0 on DeepSeek-R1 (ikawrakow/ik_llama.cpp issue 389, tests/fixtures/engine-logs/
// ik-deepseek-r1-q4_k_m-nomla-q8_0k-f16v-8k.log): every head's K and V, 128 heads of 192 and of
// 128. K: 8,192 cells x 61 layers x 128 x 192 x 34/32 bytes (q8_0) = 13,048,479,744 = 12444.00
// MiB; V: 8,192 x 61 x 128 x 128 x 2 (f16) = 16,374,562,816 = 15616.00 MiB, as printed.
TEST(EngineIkLlama, Mla0KeepsEveryHeadsKAndV) {
    EngineSettings s = ik(8192, 0, true);
    s.v_dtype = "f16";
    const Model& m = record_model("models/deepseek-r1");
    EngineAnswer a = engine_allocation(m, dtype("q8_0"), Engine::ik_llama, s);
    ASSERT_EQ(a.parts.size(), 1u);
    EXPECT_EQ(a.parts[0].kind, EnginePartKind::base_cache);
    EXPECT_EQ(a.parts[0].k_bytes, Rational(13048479744));
    EXPECT_EQ(a.parts[0].v_bytes, Rational(16374562816));
    auto lines = engine_log_lines(a, m);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0],
              "llama_init_from_model: KV self size  = 28060.00 MiB, K (q8_0): 12444.00 MiB, V (f16): 15616.00 MiB");
    // The same record under -mla 3 keeps the latent: its head widths change nothing there.
    EXPECT_EQ(engine_allocation(m, dtype("q8_0"), Engine::ik_llama, ik(8192, 3, true)).parts[0].k_bytes,
              Rational(8192LL * 61 * 576 * 34 / 32));
}

TEST(EngineIkLlama, RefusesWhatItDoesNotTake) {
    auto refused = [](const std::string& model, std::string_view kv, const EngineSettings& s, const std::string& why) {
        try {
            engine_allocation(record_model(model), dtype(kv), Engine::ik_llama, s);
            ADD_FAILURE() << model << " was not refused";
        } catch (const EngineError& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    };
    refused("models/deepseek-v3.2", "f16", ik(4096, 0, true), "the model record gives no head_dim and v_head_dim");
    refused("models/qwen3-0.6b", "q8_0", ik(4096, 3, false), "V cache quantization requires flash_attn");
    refused("models/gpt-oss-20b", "f16", ik(4096, 3, true), "sliding-window layers is not modelled");
    refused("models/qwen3.5-27b", "f16", ik(4096, 3, true), "recurrent state is not modelled");
}

TEST(EngineMemory, EngineNamesAreTheVocabularysWithEverySpelling) {
    // parse_engine reads the catalog's vocabulary: every spelling of an engine gives what its
    // name gives, and only the engines with an allocation model give one.
    std::size_t modelled = 0;
    for (const EngineName& e : engine_names()) {
        auto by_name = parse_engine(e.name);
        for (std::string_view spelling : e.spellings) EXPECT_EQ(parse_engine(spelling), by_name) << spelling;
        modelled += by_name ? 1 : 0;
    }
    EXPECT_EQ(modelled, 6u);  // llama.cpp, ik_llama.cpp, vLLM, SGLang, and ollama and LM Studio as llama.cpp
    EXPECT_EQ(parse_engine("vLLM"), Engine::vllm);
    EXPECT_EQ(parse_engine("vllm"), Engine::vllm);
    EXPECT_EQ(parse_engine("SGLang"), Engine::sglang);
    EXPECT_EQ(parse_engine("LM Studio"), Engine::llamacpp);
    EXPECT_EQ(parse_engine("llama-server"), Engine::llamacpp);
    EXPECT_EQ(parse_engine("ik_llama"), Engine::ik_llama);
    EXPECT_EQ(parse_engine("TensorRT-LLM"), std::nullopt);
    EXPECT_EQ(parse_engine("no such engine"), std::nullopt);
    for (Engine e : {Engine::llamacpp, Engine::ik_llama, Engine::vllm, Engine::sglang}) {
        EXPECT_EQ(parse_engine(name_of(e)), e) << name_of(e);
    }
}

TEST(EngineMemory, IkLlamaNamesTheFork) {
    EXPECT_TRUE(names_ik_llama("ik_llama.cpp"));
    EXPECT_TRUE(names_ik_llama("ik-llama.cpp"));
    EXPECT_FALSE(names_ik_llama("llama.cpp"));
    EXPECT_EQ(parse_engine("ik_llama.cpp"), Engine::ik_llama);
}

TEST(EngineFit, IkLlamaPrintsItsOwnLine) {
    kvcat::test::KvcatRunner k;
    auto o = k.run({"fit", "--records", (fs::path(KVCAT_SOURCE_DIR) / "records").string(), "--model", "deepseek-r1",
                    "--accelerator", "nvidia-a100-80gb-sxm", "--weight-bytes", "40000000000", "--kv-dtype", "q8_0",
                    "--engine", "ik_llama.cpp", "--ctx-size", "32768", "--mla", "2", "--format", "json"});
    ASSERT_EQ(o.status, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["engine"]["engine"], "ik_llama.cpp");
    EXPECT_EQ(j["engine_kv_bytes"], 1223294976);  // 61 x 612 x 32,768
    EXPECT_EQ(j["engine"]["log_lines"][0],
              "llama_init_from_model: KV self size  = 1166.62 MiB, c^KV (q8_0): 1166.62 MiB, kv^T: not used");
    auto bad = k.run({"fit", "--records", (fs::path(KVCAT_SOURCE_DIR) / "records").string(), "--model", "deepseek-r1",
                      "--accelerator", "nvidia-a100-80gb-sxm", "--weight-bytes", "40000000000", "--kv-dtype", "q8_0",
                      "--engine", "ik_llama.cpp", "--flash-attn", "off"});
    EXPECT_EQ(bad.status, 2) << bad.out;
    EXPECT_NE(bad.err.find("V cache quantization requires flash_attn"), std::string::npos) << bad.err;
}

// --- llama.cpp --------------------------------------------------------------------------------

TEST(EngineLlamaCpp, CellsArePaddedTo256AndSplitOverStreams) {
    EXPECT_EQ(llamacpp_cells(4000, 1, false), 4096);
    EXPECT_EQ(llamacpp_cells(131072, 4, true), 131072);
    EXPECT_EQ(llamacpp_cells(10000, 3, false), 3584);  // 10240 / 3 = 3413, padded to 3584
}

TEST(EngineLlamaCpp, SwaCacheIsTheWindowPerSequencePlusUbatchPadded) {
    // gpt-oss: window 128, one sequence, ubatch 512: 640 padded to 768.
    EXPECT_EQ(llamacpp_swa_cells(131072, 128, 1, false, 512, false), 768);
    // unified with 4 sequences: 4 x 1024 + 512 = 4608.
    EXPECT_EQ(llamacpp_swa_cells(131072, 1024, 4, true, 512, false), 4608);
    EXPECT_EQ(llamacpp_swa_cells(131072, 1024, 4, true, 512, true), 131072);
    EXPECT_EQ(llamacpp_swa_cells(2048, 4096, 1, false, 512, false), 2048);
}

TEST(EngineLlamaCpp, ReproducesTheQwen36LinesOfTheLmStudioIssue) {
    // lmstudio-ai/lmstudio-bug-tracker issue 1862: "llama_kv_cache: size = 16384.00 MiB (262144
    // cells, 16 layers, 4/1 seqs)" and "llama_memory_recurrent: size = 598.50 MiB (4 cells, ...)".
    const Model& m = record_model("models/qwen3.6-27b");
    EngineSettings s;
    s.context = 262144;
    s.parallel = 4;
    s.kv_unified = true;
    EngineAnswer a = engine_allocation(m, dtype("f16"), Engine::llamacpp, s);
    auto lines = engine_log_lines(a, m);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0],
              "llama_kv_cache: size = 16384.00 MiB (262144 cells,  16 layers,  4/1 seqs), K (f16): 8192.00 MiB, V "
              "(f16): 8192.00 MiB");
    EXPECT_TRUE(test::contains(lines[1], "size =  598.50 MiB (     4 cells,"));
    EXPECT_TRUE(test::contains(lines[1], "R (f32):   22.50 MiB, S (f32):  576.00 MiB"));
}

TEST(EngineLlamaCpp, TheRecurrentLineIsWordedAsTheBuildWordsIt) {
    // b8999 and before: "(4 cells, 64 layers, 4 seqs)" (the LM Studio issue above); b9421's
    // log adds "0 rs_seq"; release v0.4.0 (80fb11ac, the oracle test's) also adds a P part.
    EXPECT_EQ(llamacpp_state_line_for("b8999"), LlamaStateLine::seqs);
    EXPECT_EQ(llamacpp_state_line_for("b5192"), LlamaStateLine::seqs);
    EXPECT_EQ(llamacpp_state_line_for("b9421"), LlamaStateLine::rs_seq);
    EXPECT_EQ(llamacpp_state_line_for(""), LlamaStateLine::rs_seq_p);
    EXPECT_EQ(llamacpp_state_line_for("v0.4.0"), LlamaStateLine::rs_seq_p);
    EXPECT_EQ(llamacpp_state_line_for("b99999999999999999999"), LlamaStateLine::rs_seq_p);
    const Model& m = record_model("models/qwen3.6-27b");
    EngineSettings s;
    s.context = 262144;
    s.parallel = 4;
    s.kv_unified = true;
    const std::string figures = "R (f32):   22.50 MiB, S (f32):  576.00 MiB";
    const std::string start = "llama_memory_recurrent: size =  598.50 MiB (     4 cells,  64 layers,  4 seqs";
    s.version = "b8999";
    EXPECT_EQ(engine_log_lines(engine_allocation(m, dtype("f16"), Engine::llamacpp, s), m)[1], start + "), " + figures);
    s.version = "b9421";
    EXPECT_EQ(engine_log_lines(engine_allocation(m, dtype("f16"), Engine::llamacpp, s), m)[1],
              start + "  0 rs_seq), " + figures);
    s.version = "";
    EXPECT_EQ(engine_log_lines(engine_allocation(m, dtype("f16"), Engine::llamacpp, s), m)[1],
              start + "  0 rs_seq), " + figures + ", P (f32):    0.00 MiB");
}

TEST(EngineLlamaCpp, TheIndexerKeepsACacheOfItsOwn) {
    // DeepSeek-V3.2 in llama.cpp (src/llama-kv-cache-dsa.cpp at 80fb11ac): the MLA latent's
    // cache, then the indexer's keys, 61 layers x 128 at -ctk's type, no V.
    const Model& m = record_model("models/deepseek-v3.2");
    EngineSettings s;
    s.context = 4096;
    EngineAnswer a = engine_allocation(m, dtype("f16"), Engine::llamacpp, s);
    auto lines = engine_log_lines(a, m);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0],
              "llama_kv_cache: size =  274.50 MiB (  4096 cells,  61 layers,  1/1 seqs), K (f16):  274.50 MiB, V "
              "(f16):    0.00 MiB");
    EXPECT_EQ(lines[1],
              "llama_kv_cache: size =   61.00 MiB (  4096 cells,  61 layers,  1/1 seqs), K (f16):   61.00 MiB, V "
              "(f16):    0.00 MiB");
    EXPECT_EQ(a.kv_bytes, Rational(4096LL * 61 * (576 + 128) * 2));
}

TEST(EngineLlamaCpp, Qwen35StateIsF32ForBothTensors) {
    const Model& m = record_model("models/qwen3.5-27b");
    EngineSettings s;
    s.context = 4096;
    EngineAnswer a = engine_allocation(m, dtype("f16"), Engine::llamacpp, s);
    EXPECT_EQ(a.state_bytes, Rational(156893184));
    LlamaStateBytes st = llamacpp_state_bytes(m, 4);
    EXPECT_EQ(st.r, Rational(23592960));   // 22.50 MiB
    EXPECT_EQ(st.s, Rational(603979776));  // 576.00 MiB
}

TEST(EngineLlamaCpp, MlaKeepsTheLatentAsKAndNothingAsV) {
    Model m = deepseek_v32();
    m.indexer.reset();
    LlamaCacheBytes b = llamacpp_cache_bytes(m, LlamaCacheScope::all, dtype("q8_0"), dtype("q8_0"), 65536, 1);
    // 61 x 576 x 34/32 x 65,536: ik_llama.cpp's -mla 2 line prints 2333.25 MiB for the same cache.
    EXPECT_EQ(b.k, Rational(2446589952));
    EXPECT_EQ(llamacpp_mib_text(b.k), "2333.25");
    EXPECT_EQ(b.v, Rational(0));
    LlamaCacheBytes old = llamacpp_cache_bytes(m, LlamaCacheScope::all, dtype("f16"), dtype("f16"), 512, 1, true);
    EXPECT_EQ(old.v, Rational(61 * 512 * 2 * 512));
}

// Mainline llama.cpp cached every head of an MLA model until b5137 (pull 12801): the build
// before prints DeepSeek-R1's 61 x 2048 x 128 heads x (192 + 128) x 2 bytes, as the b4905 log in
// tests/fixtures/engine-logs/ does, and took K and V of different types; the build that brought
// the latent keeps one head of 576 and refuses them.
TEST(EngineLlamaCpp, BuildsBeforeTheLatentCacheEveryHeadOfAnMlaModel) {
    const Model& m = record_model("models/deepseek-r1");
    EngineSettings s;
    s.context = 2048;
    s.flash_attn = false;
    s.version = "b5136";
    EngineAnswer before = engine_allocation(m, dtype("f16"), Engine::llamacpp, s);
    ASSERT_EQ(before.parts.size(), 1u);
    EXPECT_EQ(before.parts[0].kind, EnginePartKind::base_cache);
    EXPECT_EQ(before.parts[0].k_bytes, Rational(61LL * 2048 * 128 * 192 * 2));
    EXPECT_EQ(before.parts[0].v_bytes, Rational(61LL * 2048 * 128 * 128 * 2));
    EXPECT_EQ(llamacpp_mib_text(before.parts[0].k_bytes), "5856.00");
    EXPECT_EQ(llamacpp_mib_text(before.parts[0].v_bytes), "3904.00");
    s.v_dtype = "f16";
    EXPECT_NO_THROW(engine_allocation(m, dtype("q5_0"), Engine::llamacpp, s));
    s.version = "b5137";
    EXPECT_THROW(engine_allocation(m, dtype("q5_0"), Engine::llamacpp, s), EngineRefusal);
    s.v_dtype.reset();
    EngineAnswer from = engine_allocation(m, dtype("f16"), Engine::llamacpp, s);
    EXPECT_EQ(from.parts[0].kind, EnginePartKind::mla_latent);
    EXPECT_EQ(from.parts[0].k_bytes, Rational(61LL * 2048 * 576 * 2));
    // A name that is no build number reads with the newest rules: the latent.
    s.version = "v0.4.0";
    EXPECT_EQ(engine_allocation(m, dtype("f16"), Engine::llamacpp, s).parts[0].kind, EnginePartKind::mla_latent);
}

// llama.cpp padded the cells to 32 without flash attention from b2871 to b6867. A llama-server
// b5273 started with -c 16348 and no -fa printed "kv_size = 16352, ... padding = 32" and K and V
// of 1149.75 MiB each for Qwen3-4B (36 layers x 8 KV heads x 128; README.md lines 79 to 83 of
// fabiomatricardi/Qwen3-4bChatDocs at f8894341). b6868 to b6974 did not pad; b6975 pads to 256.
TEST(EngineLlamaCpp, TheCellsArePaddedAsTheBuildPaddedThem) {
    EXPECT_EQ(llamacpp_cell_pad("b5273", false), 32);
    EXPECT_EQ(llamacpp_cell_pad("b5273", true), 256);
    EXPECT_EQ(llamacpp_cell_pad("b2871", false), 32);
    EXPECT_EQ(llamacpp_cell_pad("b2870", false), 256);
    EXPECT_EQ(llamacpp_cell_pad("b2770", true), 32);
    EXPECT_EQ(llamacpp_cell_pad("b2492", false), 1);
    EXPECT_EQ(llamacpp_cell_pad("b6867", false), 32);
    EXPECT_EQ(llamacpp_cell_pad("b6868", false), 1);
    EXPECT_EQ(llamacpp_cell_pad("b6975", false), 256);
    EXPECT_EQ(llamacpp_cell_pad("", false), 256);
    Model m = gqa(36, 8, 128);
    EngineSettings s;
    s.context = 16348;
    s.flash_attn = false;
    s.version = "b5273";
    EngineAnswer a = engine_allocation(m, dtype("f16"), Engine::llamacpp, s);
    EXPECT_EQ(a.context, 16352);
    EXPECT_EQ(llamacpp_mib_text(a.parts[0].k_bytes), "1149.75");
    EXPECT_EQ(llamacpp_mib_text(a.parts[0].bytes()), "2299.50");
    s.version = "b6900";
    EXPECT_EQ(engine_allocation(m, dtype("f16"), Engine::llamacpp, s).context, 16348);
    s.version = "b6975";
    EXPECT_EQ(engine_allocation(m, dtype("f16"), Engine::llamacpp, s).context, 16384);
}

TEST(EngineLlamaCpp, StreamsMultiplyTheCellsWithoutUnified) {
    Model m = gqa(32, 8, 128);
    EngineSettings s;
    s.context = 16384;
    s.parallel = 4;
    EngineAnswer a = engine_allocation(m, dtype("f16"), Engine::llamacpp, s);
    ASSERT_FALSE(a.parts.empty());
    EXPECT_EQ(a.parts[0].cells, 4096);
    EXPECT_EQ(a.parts[0].streams, 4);
    EXPECT_EQ(a.kv_bytes, Rational(2147483648LL));  // 2048.00 MiB, as for one stream of 16,384
    bool named = false;
    for (const auto& d : a.differences) named = named || d.name == "streams";
    EXPECT_TRUE(named);
}

TEST(EngineLlamaCpp, AvailableMemoryGivesTheLargestContextThatFits) {
    Model m = gqa(32, 8, 128);  // 131,072 bytes per cell at f16
    EngineSettings s;
    s.available_bytes = Rational(131072) * Rational(10000);
    EngineAnswer a = engine_allocation(m, dtype("f16"), Engine::llamacpp, s);
    ASSERT_TRUE(a.tokens);
    EXPECT_EQ(*a.tokens, 9984);  // 39 x 256: 40 x 256 = 10,240 cells would not fit
}

// --- vLLM -------------------------------------------------------------------------------------

TEST(EngineVllm, Llama4ScoutWithTheHybridManagerOnAndOff) {
    const Model& m = record_model("models/llama-4-scout-17b-16e-instruct");
    EngineSettings s;
    s.max_model_len = 131072;
    s.hybrid_manager = EngineSwitch::on;
    EngineAnswer on = engine_allocation(m, dtype("bf16"), Engine::vllm, s);
    EXPECT_EQ(on.hybrid_manager, true);
    EXPECT_EQ(on.engine_bytes_per_token, Rational(49152));
    s.hybrid_manager = EngineSwitch::off;
    EngineAnswer off = engine_allocation(m, dtype("bf16"), Engine::vllm, s);
    EXPECT_EQ(off.hybrid_manager, false);
    EXPECT_EQ(off.engine_bytes_per_token, Rational(196608));
    // One request of 128k tokens: 48 layers x 131,072 x 4,096 bytes = 25.8 GB.
    EXPECT_EQ(off.kv_bytes, Rational(25769803776LL));
    bool named = false;
    for (const auto& d : off.differences) named = named || d.name == "hybrid manager off";
    EXPECT_TRUE(named);
}

TEST(EngineVllm, ChunkedAttentionSwitchesTheManagerOffInReleasesBeforeTheFlip) {
    const Model& m = record_model("models/llama-4-scout-17b-16e-instruct");
    EngineSettings s;
    s.version = "0.10.1.1";
    std::string why;
    EXPECT_FALSE(vllm_hybrid_manager(m, s, &why));
    EXPECT_TRUE(test::contains(why, "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"));
    s.version = "0.10.0";
    EXPECT_TRUE(vllm_hybrid_manager(m, s, &why));
    s.version = "";
    EXPECT_TRUE(vllm_hybrid_manager(m, s, &why));
}

TEST(EngineVllm, Qwen35StateKeepsTheConvStateInTheModelDtype) {
    const Model& m = record_model("models/qwen3.5-27b");
    EngineSettings s;
    s.max_model_len = 32768;
    EngineAnswer a = engine_allocation(m, dtype("bf16"), Engine::vllm, s);
    EXPECT_EQ(a.state_bytes, Rational(153944064));
    EXPECT_EQ(a.textbook_state_bytes, Rational(156893184));
    // A page of one layer's state (3,207,168 bytes) over 4,096 bytes per token of attention: 784.
    EXPECT_EQ(a.block_size, 784);
    s.mamba_ssm_cache_dtype = "bfloat16";
    EXPECT_EQ(engine_allocation(m, dtype("bf16"), Engine::vllm, s).state_bytes, Rational(48 * 1634304));
}

TEST(EngineVllm, MambaHybridFrom024KeepsTwoStatePagesPerRequestWithPrefixCaching) {
    // vllm-0.24.0-qwen3.6-35b-a3b-nvfp4-rtx5090-fp8-128k: "Available KV cache memory: 6.01 GiB",
    // "GPU KV cache size: 569,878 tokens", "Maximum concurrency for 131,072 tokens per request: 4.35x".
    // A Gated DeltaNet layer's state: conv 3 x (2 x 16 x 128 + 32 x 128) bf16 = 49,152 bytes, recurrent
    // 32 x 128 x 128 float32 = 2,097,152 bytes, 2,146,304 in all; a full-attention token is
    // 2 heads x 256 x (K + V) x 1 byte = 1,024 bytes, so the block is 16 x cdiv(2,146,304, 16,384) = 2,096
    // tokens and the state page needs no padding. 10 full and 30 Gated DeltaNet layers make groups of
    // 10: one of attention, three of state; a pool block is 2,096 x 1,024 x 10 = 21,463,040 bytes, and
    // 6.005 to 6.015 GiB hold 300 of them.
    const Model& m = record_model("models/qwen3.6-35b-a3b");
    EngineSettings s;
    s.version = "0.24.0";
    s.max_model_len = 131072;
    s.max_num_batched_tokens = 8192;
    VllmPoolRule r = vllm_pool_rule(m, dtype("fp8"), s);
    EXPECT_EQ(r.block_size, 2096);
    EXPECT_EQ(r.groups, 4);
    EXPECT_EQ(r.group_size, 10);
    EXPECT_EQ(r.divisor, 21463040);
    EXPECT_EQ(r.state_blocks, 2);
    for (std::int64_t available : {6447819653LL, 6453188362LL, 6458557071LL}) {
        VllmPool p = vllm_pool(m, dtype("fp8"), s, available);
        EXPECT_EQ(p.num_blocks, 300);
        // cdiv(131,072, 2,096) = 63 attention blocks and 2 state pages in each of 3 groups: 69.
        EXPECT_EQ(p.per_request_blocks, 69);
        EXPECT_EQ(p.tokens, 569878);  // int(300 / 69 x 131,072)
        EXPECT_NEAR(p.max_concurrency, 4.35, 0.005);
    }
    // The -b twin: 5.98 GiB, 299 blocks, "GPU KV cache size: 567,978 tokens", 4.33x.
    EXPECT_EQ(vllm_pool(m, dtype("fp8"), s, 6420976107LL).tokens, 567978);

    // Without prefix caching a request takes one state page per layer: 63 + 3 = 66 blocks.
    s.prefix_caching = EngineSwitch::off;
    VllmPool off = vllm_pool(m, dtype("fp8"), s, 6453188362LL);
    EXPECT_EQ(off.per_request_blocks, 66);
    EXPECT_EQ(off.tokens, 595781);  // int(300 / 66 x 131,072)

    // Before 0.24 kvcat keeps the one page, prefix caching or not.
    s.prefix_caching = EngineSwitch::automatic;
    s.version = "0.20.1";
    VllmPool older = vllm_pool(m, dtype("fp8"), s, 6453188362LL);
    EXPECT_EQ(vllm_pool_rule(m, dtype("fp8"), s).state_blocks, 1);
    EXPECT_EQ(older.per_request_blocks, 66);
    EXPECT_EQ(older.tokens, 595781);
}

TEST(EngineVllm, SparseMlaFp8IsStoredAs656BytesPerLayer) {
    Model m = deepseek_v32();
    EngineSettings s;
    s.max_model_len = 163840;
    EngineAnswer a = engine_allocation(m, dtype("fp8"), Engine::vllm, s);
    ASSERT_GE(a.parts.size(), 2u);
    EXPECT_EQ(a.parts[0].kind, EnginePartKind::mla_latent);
    EXPECT_EQ(a.parts[0].bytes(), Rational(61) * Rational(656) * Rational(163840));
    EXPECT_EQ(a.parts[1].kind, EnginePartKind::indexer);
    EXPECT_EQ(a.engine_bytes_per_token, Rational(61 * (656 + 132)));
    EngineAnswer bf16 = engine_allocation(m, dtype("bf16"), Engine::vllm, s);
    EXPECT_EQ(bf16.parts[0].bytes(), Rational(61) * Rational(1152) * Rational(163840));
}

TEST(EngineVllm, UniformModelTokensMatchTheQwen2Log) {
    // vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25: "Available KV cache memory: 5.01 GiB",
    // "GPU KV cache size: 93,872 tokens"; the printed GiB allows 5.005 to 5.015 GiB.
    Model m = qwen2_7b();
    EngineSettings s;
    s.version = "0.10.1.1";
    s.max_model_len = 16384;
    auto tokens_at = [&](const char* gib) {
        return vllm_pool(m, dtype("bf16"), s, (*Rational::parse(gib) * Rational(1LL << 30)).floor()).tokens;
    };
    EXPECT_LE(tokens_at("5.005"), 93872);
    EXPECT_GE(tokens_at("5.015"), 93872);
    VllmPool p = vllm_pool(m, dtype("bf16"), s, 5383012352LL);
    EXPECT_EQ(p.tokens, 93872);
    EXPECT_NEAR(p.max_concurrency, 5.73, 0.005);
}

TEST(EngineVllm, HybridSlidingModelIsGroupedAndPrintsBlocksPerGroup) {
    // vllm-0.10.1.1-gpt-oss-120b-tp4: 45.32 GiB per card, "GPU KV cache size: 2,640,144 tokens".
    const Model& m = record_model("models/gpt-oss-120b");
    EngineSettings s;
    s.version = "0.10.1.1";
    s.gpus = 4;
    s.max_model_len = 16384;
    auto at = [&](const char* gib) {
        return vllm_pool(m, dtype("bf16"), s, (*Rational::parse(gib) * Rational(1LL << 30)).floor());
    };
    VllmPool lo = at("45.315"), hi = at("45.325");
    EXPECT_EQ(lo.groups, 2);
    EXPECT_EQ(lo.group_size, 18);
    EXPECT_LE(lo.tokens - 16, 2640144);
    EXPECT_GE(hi.tokens + 16, 2640144);
}

TEST(EngineVllm, RefusesLlamaCppBlockTypes) {
    EXPECT_THROW(engine_allocation(qwen2_7b(), dtype("q8_0"), Engine::vllm, EngineSettings{}), EngineError);
}

// --- SGLang -----------------------------------------------------------------------------------

TEST(EngineSglang, PoolKeepsOnePaddingSlotPerPage) {
    // Llama-3.1-8B at bf16: 32 layers x 8 heads x 128 x 2 bytes = 65,536 bytes of K per token.
    Model m = gqa(32, 8, 128);
    SglangPoolBytes b = sglang_pool_bytes(m, dtype("bf16"), 131072, 1, 1);
    EXPECT_EQ(b.k, Rational(131073) * Rational(65536));
    EXPECT_EQ(python_gib_text(b.k), "8.00");
    EngineSettings s;
    s.available_bytes = Rational(131072) * Rational(10000) + Rational(5);
    EngineAnswer a = engine_allocation(m, dtype("bf16"), Engine::sglang, s);
    EXPECT_EQ(a.tokens, 10000);
    auto lines = engine_log_lines(a, m);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "KV Cache is allocated. #tokens: 10000, K size: 0.61 GB, V size: 0.61 GB");
}

// gpt-oss-20b: 12 full and 12 sliding layers (window 128), 8 KV heads of 64, so at bf16 a layer
// costs 8 x 64 x 2 bytes = 1,024 of K and 1,024 of V per token, 2,048 in all; 24,576 over 12 layers.
// SGLang (pool_configurator.py HybridSWAPoolConfigurator) charges a full-pool token
// 24,576 + 0.8 x 24,576 = 44,236.8 bytes. 10 GiB = 10,737,418,240 bytes // 44,236.8 = 242,725.9,
// so the full pool holds 242,725 tokens and the SWA pool int(242,725 x 0.8) = 194,180. With the
// padded slot each pool keeps one slot more: SWA 194,181 x 24,576 = 4,772,192,256 bytes, K and V
// 2,386,096,128 each (2.22 GB of 2^30); full 242,726 x 24,576 = 5,965,234,176, K and V
// 2,982,617,088 each (2.78 GB); together 10,737,426,432 bytes, "10.00 GB".
TEST(EngineSglang, SlidingModelGetsAFullAndASwaPool) {
    const Model& m = record_model("models/gpt-oss-20b");
    EngineSettings s;
    s.available_bytes = Rational(10) * Rational(1LL << 30);
    EngineAnswer a = engine_allocation(m, dtype("bf16"), Engine::sglang, s);
    EXPECT_EQ(a.tokens, 242725);
    EXPECT_EQ(a.swa_tokens, 194180);
    ASSERT_EQ(a.parts.size(), 2u);
    EXPECT_EQ(a.parts[0].kind, EnginePartKind::swa_cache);
    EXPECT_EQ(a.parts[0].cells, 194181);
    EXPECT_EQ(a.parts[0].bytes(), Rational(4772192256));
    EXPECT_EQ(a.parts[1].kind, EnginePartKind::base_cache);
    EXPECT_EQ(a.parts[1].bytes(), Rational(5965234176));
    EXPECT_EQ(a.kv_bytes, Rational(10737426432));
    EXPECT_EQ(a.engine_bytes_per_token, Rational(442368, 10));
    // The textbook: 24,576 bytes a token in the full layers, 128 tokens in the sliding ones.
    EXPECT_EQ(a.textbook_kv_bytes, Rational(24576) * Rational(242725 + 128));
    auto lines = engine_log_lines(a, m);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0], "Use sliding window memory pool. full_layer_tokens=242725, swa_layer_tokens=194180");
    EXPECT_EQ(lines[1], "KV Cache is allocated. #tokens: 194180, K size: 2.22 GB, V size: 2.22 GB");
    EXPECT_EQ(lines[2], "KV Cache is allocated. #tokens: 242725, K size: 2.78 GB, V size: 2.78 GB");
    EXPECT_EQ(lines[3], "SWAKVPool mem usage: 10.00 GB, swa size: 194180, full size: 242725");
}

// The same memory at --swa-full-tokens-ratio 0.5: a full-pool token costs 24,576 + 0.5 x 24,576 =
// 36,864 bytes; 10,737,418,240 // 36,864 = 291,271.1, so 291,271 full tokens and int(145,635.5) =
// 145,635 SWA tokens: 145,636 x 24,576 = 3,579,150,336 and 291,272 x 24,576 = 7,158,300,672 bytes.
// With pages of 64 at 0.8: 242,725 rounds down to 242,688, int(242,688 x 0.8) = 194,150 to 194,112.
TEST(EngineSglang, RatioAndPagesMoveThePools) {
    const Model& m = record_model("models/gpt-oss-20b");
    EngineSettings s;
    s.available_bytes = Rational(10) * Rational(1LL << 30);
    s.swa_full_tokens_ratio = Rational(1, 2);
    EngineAnswer half = engine_allocation(m, dtype("bf16"), Engine::sglang, s);
    EXPECT_EQ(half.tokens, 291271);
    EXPECT_EQ(half.swa_tokens, 145635);
    EXPECT_EQ(half.parts[0].bytes(), Rational(3579150336));
    EXPECT_EQ(half.parts[1].bytes(), Rational(7158300672));
    s.swa_full_tokens_ratio = Rational(4, 5);
    s.page_size = 64;
    EngineAnswer paged = engine_allocation(m, dtype("bf16"), Engine::sglang, s);
    EXPECT_EQ(paged.tokens, 242688);
    EXPECT_EQ(paged.swa_tokens, 194112);
    EXPECT_EQ(paged.parts[0].bytes(), Rational(194176) * Rational(24576));
}

// SGLang refuses to start when the SWA pool cannot hold one request's window and a page: a pool
// of 160 full tokens gives int(160 x 0.8) = 128 SWA tokens, and 128 + 1 >= 128.
TEST(EngineSglang, RefusesASwaPoolBelowTheWindow) {
    EngineSettings s;
    s.context = 160;
    EXPECT_THROW(engine_allocation(record_model("models/gpt-oss-20b"), dtype("bf16"), Engine::sglang, s), EngineError);
    s.context = 170;  // int(136.0) = 136 > 129
    EXPECT_EQ(engine_allocation(record_model("models/gpt-oss-20b"), dtype("bf16"), Engine::sglang, s).swa_tokens, 136);
}

TEST(EngineSglang, RefusesWhatItDoesNotModel) {
    // Llama 4's chunked layers and a single pool asked of a sliding model.
    EXPECT_THROW(
        engine_allocation(record_model("models/llama-4-scout-17b-16e-instruct"), dtype("bf16"), Engine::sglang, {}),
        EngineError);
    EXPECT_THROW(sglang_pool_bytes(record_model("models/gpt-oss-120b"), dtype("bf16"), 4096, 1, 1), EngineError);
}

// DeepSeek-V3.2 under SGLang (DSATokenToKVPool): pages of 64 whatever --page-size says; an
// fp8_e4m3 latent of 512 + 4 x 4 + 64 x 2 = 656 bytes a token and layer, (975,424 + 64) x 61 x 656 =
// 39,035,127,808 bytes; the indexer's keys in (975,424 + 64 + 1) // 64 = 15,242 pages of 64 tokens
// of 132 bytes over 61 layers, 7,854,629,376 bytes; "KV size" prints both, 43.67 GB, as sglang
// pull 11309 printed it. A bf16 latent is 576 x 2 bytes: 68,549,492,736 + the same indexer.
TEST(EngineSglang, DeepSeekV32PoolKeepsTheIndexerInPagesOf64) {
    Model m = deepseek_v32();
    EngineSettings s;
    s.context = 975424;
    s.page_size = 1;
    EngineAnswer a = engine_allocation(m, dtype("fp8_e4m3"), Engine::sglang, s);
    ASSERT_EQ(a.parts.size(), 2u);
    EXPECT_EQ(a.parts[0].kind, EnginePartKind::mla_latent);
    EXPECT_EQ(a.parts[0].cells, 975488);
    EXPECT_EQ(a.parts[0].bytes(), Rational(39035127808));
    EXPECT_EQ(a.parts[1].kind, EnginePartKind::indexer);
    EXPECT_EQ(a.parts[1].bytes(), Rational(7854629376));
    EXPECT_EQ(a.kv_bytes, Rational(46889757184));
    auto lines = engine_log_lines(a, m);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "KV Cache is allocated. #tokens: 975424, KV size: 43.67 GB");
    EXPECT_EQ(engine_allocation(m, dtype("bf16"), Engine::sglang, s).parts[0].bytes(), Rational(68549492736));
    // From memory: a token costs (656 + 132) x 61 = 48,068 bytes; 46,889,757,184 bytes hold
    // 975,488 of them (15,242 whole pages).
    s.available_bytes = Rational(46889757184);
    EXPECT_EQ(sglang_cell_bytes(m, dtype("fp8_e4m3"), 1), Rational(48068));
    EXPECT_EQ(engine_allocation(m, dtype("fp8_e4m3"), Engine::sglang, s).tokens, 975488);
}

// Qwen3.5-397B-A17B over two cards (kvcache-ai/ktransformers issue 1870, SGLang 0.5.9; the log is
// tests/fixtures/engine-logs/sglang-0.5.9-kt-qwen3.5-397b-a17b-fp8-tp2-4090-mamba.log). Per card:
// a Gated DeltaNet layer convolves (2 x 16 x 128 + 64 x 128) / 2 = 6,144 channels over 3 steps in
// bf16, 36,864 bytes, and keeps 32 heads x 128 x 128 of float32 SSM state, 2,097,152 bytes; 45
// such layers make 1,658,880 and 94,371,840 bytes a request, and the pool keeps 82 + 1 rows:
// 137,687,040 bytes (0.13 GB) and 7,832,862,720 (7.29 GB). The KV pool is the 15 attention
// layers only: 1 head x 256 x 2 bytes x 15 = 7,680 bytes of K a token, x 580,365 slots =
// 4,457,203,200 bytes (4.15 GB), where counting all 60 layers would give 16.60 GB.
TEST(EngineSglang, HybridGetsAMambaPoolBesideAnAttentionOnlyKvPool) {
    const Model& m = record_model("models/qwen3.5-397b-a17b");
    EngineSettings s;
    s.gpus = 2;
    s.context = 580364;
    s.mamba_slots = 82;
    EngineAnswer a = engine_allocation(m, dtype("bf16"), Engine::sglang, s);
    ASSERT_EQ(a.parts.size(), 2u);
    EXPECT_EQ(a.parts[0].kind, EnginePartKind::recurrent_state);
    EXPECT_EQ(a.parts[0].cells, 83);
    EXPECT_EQ(a.parts[0].k_bytes, Rational(137687040));
    EXPECT_EQ(a.parts[0].v_bytes, Rational(7832862720));
    EXPECT_EQ(a.parts[1].kind, EnginePartKind::base_cache);
    EXPECT_EQ(a.parts[1].k_bytes, Rational(4457203200));
    EXPECT_EQ(a.state_bytes, Rational(137687040 + 7832862720LL));
    EXPECT_EQ(a.mamba_slots, 82);
    // The record keeps both states at float32 (state_dtype), SGLang the conv state at bfloat16.
    auto named = [](const EngineAnswer& x, std::string_view name) {
        return std::any_of(x.differences.begin(), x.differences.end(),
                           [&](const EngineDifference& d) { return d.name == name; });
    };
    EXPECT_TRUE(named(a, "state dtype"));
    EXPECT_TRUE(named(a, "Mamba pool"));
    auto lines = engine_log_lines(a, m);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0],
              "Mamba Cache is allocated. max_mamba_cache_size: 82, conv_state size: 0.13GB, ssm_state size: 7.29GB");
    EXPECT_EQ(lines[1], "KV Cache is allocated. #tokens: 580364, K size: 4.15 GB, V size: 4.15 GB");
    // --mamba-ssm-dtype bfloat16 halves the SSM state: 3,916,431,360 bytes, 3.65 GB.
    s.mamba_ssm_cache_dtype = "bfloat16";
    EngineAnswer half = engine_allocation(m, dtype("bf16"), Engine::sglang, s);
    EXPECT_EQ(half.parts[0].v_bytes, Rational(3916431360));
    EXPECT_EQ(half.parts[0].v_type, "bfloat16");
}

// Without --max-mamba-cache-size SGLang gives the Mamba pool r / (1 + r) of the memory
// (--mamba-full-memory-ratio r, 0.9) and the KV pool what is left. One request's state of
// Qwen3.5-397B-A17B on one card is 2 x 1,658,880 + 2 x 94,371,840 = 192,061,440 bytes (twice the
// per-card figures of the two-card test above), and a token of K and V 2 x 15,360. With 20 GiB
// (21,474,836,480 bytes) the Mamba share is 21,474,836,480 x 9 / 19 = 10,172,291,490.5 bytes,
// 52 rows (52 x 192,061,440 = 9,987,194,880), so 51 requests and the padded slot; the KV pool
// gets 21,474,836,480 - 9,987,194,880 = 11,487,641,600 bytes, 30,720 a token: 373,946 tokens.
TEST(EngineSglang, MambaPoolTakesItsShareOfTheMemory) {
    const Model& m = record_model("models/qwen3.5-397b-a17b");
    EngineSettings s;
    s.available_bytes = Rational(20) * Rational(1LL << 30);
    EngineAnswer a = engine_allocation(m, dtype("bf16"), Engine::sglang, s);
    EXPECT_EQ(a.mamba_slots, 51);
    EXPECT_EQ(a.parts[0].cells, 52);
    EXPECT_EQ(a.tokens, 373946);
    s.mamba_full_memory_ratio = Rational(1, 3);  // a quarter of the memory: 27 rows
    EXPECT_EQ(engine_allocation(m, dtype("bf16"), Engine::sglang, s).mamba_slots, 26);
}

TEST(EngineFit, SglangTakesTheSwaRatio) {
    std::string records = (fs::path(KVCAT_SOURCE_DIR) / "records").string();
    test::KvcatRunner kvcat(false);
    test::Outcome o =
        kvcat.run({"fit", "--records", records, "--model", "gpt-oss-20b", "--accelerator", "nvidia-rtx-4090",
                   "--weight-quant", "Q4_0", "--kv-dtype", "bf16", "--engine", "sglang", "--available-kv-gib", "10",
                   "--swa-full-tokens-ratio", "0.5", "--format", "json"});
    ASSERT_EQ(o.status, 0) << o.err;
    nlohmann::json j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["engine_tokens"], 291271);
    EXPECT_EQ(j["engine"]["engine_swa_tokens"], 145635);
    test::Outcome bad = kvcat.run({"fit", "--records", records, "--model", "gpt-oss-20b", "--accelerator",
                                   "nvidia-rtx-4090", "--weight-quant", "Q4_0", "--kv-dtype", "bf16", "--engine",
                                   "sglang", "--swa-full-tokens-ratio", "0"});
    EXPECT_NE(bad.status, 0);
    EXPECT_TRUE(test::contains(bad.err, "--swa-full-tokens-ratio")) << bad.err;
}

}  // namespace
}  // namespace kvcat

namespace kvcat {
namespace {

// docs/engines.md and the README show two commands and the lines they print; both run here
// on the shipped records, and each line a page shows must be in what the command prints.
TEST(EngineDocs, TheLinesTheEnginesPageShowsAreWhatFitPrints) {
    for (const char* name : {"docs/engines.md", "README.md"}) {
        SCOPED_TRACE(name);
        std::string page = test::read_file(fs::path(KVCAT_SOURCE_DIR) / name);
        std::string records = (fs::path(KVCAT_SOURCE_DIR) / "records").string();
        test::KvcatRunner kvcat(false);
        test::Outcome llama = kvcat.run({"fit", "--records", records, "--model", "qwen3.6-27b", "--accelerator",
                                         "apple-m4-max", "--weight-quant", "Q8_0", "--kv-dtype", "f16", "--engine",
                                         "llama.cpp", "--ctx-size", "262144", "--parallel", "4", "--kv-unified"});
        test::Outcome vllm =
            kvcat.run({"fit", "--records", records, "--model", "qwen2-7b-instruct", "--accelerator",
                       "nvidia-a100-80gb-sxm", "--weight-quant", "bf16", "--kv-dtype", "bf16", "--engine", "vllm",
                       "--engine-version", "0.10.1.1", "--max-model-len", "16384", "--available-kv-gib", "5.01"});
        test::Outcome ik = kvcat.run({"fit", "--records", records, "--model", "deepseek-r1", "--accelerator",
                                      "nvidia-a100-80gb-sxm", "--weight-bytes", "40000000000", "--kv-dtype", "q8_0",
                                      "--engine", "ik_llama.cpp", "--ctx-size", "32768", "--mla", "2"});
        test::Outcome sglang =
            kvcat.run({"fit", "--records", records, "--model", "qwen3.5-397b-a17b", "--accelerator", "nvidia-rtx-4090",
                       "--weight-bytes", "1000000000", "--gpus", "2", "--kv-dtype", "bf16", "--engine", "sglang",
                       "--ctx-size", "580364", "--max-mamba-cache-size", "82"});
        ASSERT_EQ(llama.status, 0) << llama.err;
        ASSERT_EQ(vllm.status, 0) << vllm.err;
        ASSERT_EQ(ik.status, 0) << ik.err;
        ASSERT_EQ(sglang.status, 0) << sglang.err;
        int shown = 0;
        std::size_t at = 0;
        while ((at = page.find("\n        ", at)) != std::string::npos) {
            std::size_t end = page.find('\n', at + 1);
            std::string line = page.substr(at + 9, end - at - 9);
            at = end;
            if (line.starts_with("llama_") || line.starts_with("GPU KV") || line.starts_with("Maximum") ||
                line.starts_with("Mamba Cache") || line.starts_with("KV Cache")) {
                ++shown;
                EXPECT_TRUE(test::contains(llama.out, line) || test::contains(vllm.out, line) ||
                            test::contains(ik.out, line) || test::contains(sglang.out, line))
                    << line;
            }
        }
        EXPECT_EQ(shown, std::string(name) == "README.md" ? 6 : 7);
    }
}

// SGLang sizes its pool from the memory left beside the weights: when the weights fill the card
// there is no pool, and fit says so rather than showing one of the default size.
TEST(EngineFit, SglangHasNoPoolWhenTheWeightsFillTheCard) {
    std::string records = (fs::path(KVCAT_SOURCE_DIR) / "records").string();
    test::KvcatRunner kvcat(false);
    test::Outcome full =
        kvcat.run({"fit", "--records", records, "--model", "llama-3.1-70b", "--accelerator", "nvidia-rtx-4090",
                   "--weight-quant", "bf16", "--kv-dtype", "bf16", "--engine", "sglang", "--format", "json"});
    EXPECT_EQ(full.status, 1) << full.err;
    EXPECT_TRUE(test::contains(full.err, "the weights leave no memory for the token pool")) << full.err;
    nlohmann::json j = nlohmann::json::parse(full.out);
    EXPECT_FALSE(j.contains("engine_tokens")) << j.dump();
    test::Outcome roomy =
        kvcat.run({"fit", "--records", records, "--model", "llama-3.1-8b", "--accelerator", "nvidia-rtx-4090",
                   "--weight-quant", "bf16", "--kv-dtype", "bf16", "--engine", "sglang", "--format", "json"});
    ASSERT_EQ(roomy.status, 0) << roomy.err;
    // (nvidia-smi's 24564 MiB - 16,060,522,496 bytes of weights (8,030,261,248 parameters in bf16)
    // - 1 GiB) / 131,072 bytes a token = 65,787.9
    EXPECT_EQ(nlohmann::json::parse(roomy.out)["engine_tokens"], 65787);
}

}  // namespace
}  // namespace kvcat

namespace kvcat {
namespace {

/// The printed figures of an allocation record that the engine-allocation rule judges exactly:
/// llama.cpp's MiB, SGLang's GB, vLLM's maximum concurrency, vLLM's tokens for a release
/// before 0.20, which prints a whole number of blocks, and vLLM's weights as loaded where the
/// checkpoint is loaded in the model's dtype.
std::vector<std::string> judged_keys(const Record& r) {
    std::vector<std::string> keys;
    for (const char* part : {"kv_cache", "swa_cache"}) {
        if (!r.node(std::string(part) + ".k_type")) continue;
        for (const char* f : {"k_mib", "v_mib", "size_mib"}) keys.push_back(std::string(part) + "." + f);
    }
    if (r.node("recurrent.r_type")) {
        for (const char* f : {"r_mib", "s_mib", "size_mib"}) keys.push_back(std::string("recurrent.") + f);
    }
    if (r.node("vllm.available_kv_gib")) {
        keys.push_back("vllm.concurrency");
        const YamlNode* version = r.node("engine_version");
        if (version && version->value != "null" && vllm_version_before(version->value, "0.20")) {
            keys.push_back("vllm.tokens");
        }
    }
    // vLLM's weights as loaded, for a checkpoint loaded in the model's dtype.
    const YamlNode* quantization = r.node("vllm.quantization");
    if (quantization && quantization->value == "None") {
        keys.push_back("vllm.model_loading_gib");
        keys.push_back("vllm.weights_gib");  // the profile line's, the same figure
    }
    for (const char* f : {"k_gb", "v_gb", "kv_gb", "conv_state_gb", "ssm_state_gb"}) {
        keys.push_back(std::string("sglang.") + f);
    }
    std::vector<std::string> present;
    for (const auto& k : keys) {
        const YamlNode* n = r.node(k);
        if (n && n->is_scalar() && n->value != "0.00") present.push_back(k);
    }
    return present;
}

/// The same number, "412,944" and "412944" alike.
bool same_value(std::string a, std::string b) {
    std::erase(a, ',');
    std::erase(b, ',');
    auto x = Rational::parse(a), y = Rational::parse(b);
    return x && y && *x == *y;
}

/// "5.72 to 5.73" holds 5.73.
bool within_range(const std::string& range, const std::string& value) {
    auto cut = range.find(" to ");
    if (cut == std::string::npos) return false;
    auto lo = Rational::parse(range.substr(0, cut)), hi = Rational::parse(range.substr(cut + 4));
    auto v = Rational::parse(value);
    return lo && hi && v && !(*v < *lo) && !(*v > *hi);
}

/// "16384.00" -> "16384.01": one unit more in the last digit.
std::string one_more(std::string v) {
    for (std::size_t i = v.size(); i-- > 0;) {
        if (v[i] == '.') continue;
        if (v[i] < '9') {
            ++v[i];
            return v;
        }
        v[i] = '0';
    }
    return "1" + v;
}

// Every shipped allocation record lints clean, and the same record with one printed figure
// one unit higher in its last digit fails engine-allocation at that figure, with the figure
// as printed as the right one.
TEST(EngineAllocationRecords, EachLintsCleanAndFailsWhenOnePrintedFigureMoves) {
    fs::path root = fs::path(KVCAT_SOURCE_DIR) / "records";
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / "allocations")) {
        if (e.path().extension() == ".yaml") files.push_back(e.path());
    }
    ASSERT_FALSE(files.empty());
    int judged = 0;
    for (const auto& file : files) {
        const Record* r = nullptr;
        for (const auto& rec : shipped().records.records()) {
            if (rec.file.ends_with(file.filename().string()) && rec.kind == RecordKind::allocation) r = &rec;
        }
        ASSERT_TRUE(r) << file;
        for (const auto& d : shipped().diagnostics) {
            EXPECT_FALSE(d.pos.file == r->file && d.severity == Severity::error) << format_text(d);
        }
        std::string text = test::read_file(file);
        for (const auto& key : judged_keys(*r)) {
            const YamlNode* n = r->node(key);
            Position pos = r->where(key);
            // Rewrite the value where it stands: its line, from its column.
            std::vector<std::string> lines;
            std::istringstream in(text);
            for (std::string l; std::getline(in, l);) lines.push_back(l);
            std::string& line = lines[static_cast<std::size_t>(pos.line - 1)];
            std::size_t col = static_cast<std::size_t>(pos.column - 1);
            ASSERT_EQ(line.substr(col, n->value.size()), n->value) << file << " " << key;
            line.replace(col, n->value.size(), one_more(n->value));
            test::TempDir dir;
            test::copy_tree(root / "models", dir.path() / "records" / "models");
            std::string changed;
            for (const auto& l : lines) changed += l + "\n";
            test::write_file(dir.path() / "records" / "allocations" / file.filename(), changed);
            LintResult lint = lint_paths({dir.path() / "records"});
            auto found = test::find_rule(lint.diagnostics, "engine-allocation");
            ASSERT_EQ(found.size(), 1u) << file << " " << key << "\n" << test::describe(lint.diagnostics);
            EXPECT_EQ(found[0]->pos.line, pos.line) << file << " " << key;
            EXPECT_EQ(found[0]->pos.column, pos.column) << file << " " << key;
            ASSERT_TRUE(found[0]->computed) << file << " " << key;
            // vLLM's concurrency is exact for one layer group, else a range the printed GiB allows.
            if (found[0]->computed->find(" to ") == std::string::npos) {
                EXPECT_TRUE(same_value(*found[0]->computed, n->value)) << *found[0]->computed << " vs " << n->value;
            } else {
                EXPECT_EQ(key, "vllm.concurrency");
                EXPECT_TRUE(within_range(*found[0]->computed, n->value)) << *found[0]->computed;
            }
            ++judged;
        }
    }
    EXPECT_GT(judged, 0);
}

}  // namespace
}  // namespace kvcat
