// llama-quantize's plan of a model's GGUF (engines/llamacpp/llamacpp_quant over engines/llamacpp/llamacpp_tensors):
// the rules one by one on small models built here, each with a case that trips it, and the
// sizes and parameter counts llama-bench printed for real files of the shipped models
// (tests/fixtures/llama-bench/model-sizes.tsv), to its printed 0.01.
#include "engines/llamacpp/llamacpp_quant.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "kvcat_runner.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

/// A dense model of `layers` layers, 8 heads of 128, 2 KV heads (a GQA ratio of 4).
Model dense(std::int64_t layers, std::int64_t ffn = 2048, bool tied = false, std::string arch = "llama") {
    Model m;
    m.num_layers = layers;
    m.attention_heads = 8;
    m.kv_heads = 2;
    m.head_dim = 128;
    m.tensors = TensorWidths{std::move(arch), 1024, ffn, 32000, tied, false, 0, 0};
    return m;
}

/// Tensors named `part` per type: {"q6_K": 14, "q4_K": 14}.
std::map<std::string, int> types_of(const QuantPlan& plan, const std::string& part) {
    std::map<std::string, int> out;
    for (const auto& t : plan.types) {
        if (t.tensor->name.find(part) != std::string::npos) ++out[ggml_type_name(t.type)];
    }
    return out;
}

std::string type_of(const QuantPlan& plan, const std::string& name) {
    for (const auto& t : plan.types)
        if (t.tensor->name == name) return ggml_type_name(t.type);
    return "(absent)";
}

TEST(LlamaQuant, Q4KMRaisesAttnVAndFfnDownOfTheMoreBitsLayers) {
    // 28 layers: use_more_bits picks 0-2, 24-27 and 5, 8, ..., 23: 14 layers.
    QuantPlan plan = llamacpp_quant_plan(dense(28), *find_llama_mix("Q4_K_M"));
    EXPECT_EQ(types_of(plan, "attn_v"), (std::map<std::string, int>{{"q4_K", 14}, {"q6_K", 14}}));
    EXPECT_EQ(types_of(plan, "ffn_down"), (std::map<std::string, int>{{"q4_K", 14}, {"q6_K", 14}}));
    EXPECT_EQ(type_of(plan, "blk.5.ffn_down.weight"), "q6_K");
    EXPECT_EQ(type_of(plan, "blk.6.ffn_down.weight"), "q4_K");
    EXPECT_EQ(types_of(plan, "attn_q"), (std::map<std::string, int>{{"q4_K", 28}}));
    // Q4_K_S raises none of them to Q6_K: the case that trips the rule.
    QuantPlan small = llamacpp_quant_plan(dense(28), *find_llama_mix("Q4_K_S"));
    EXPECT_EQ(types_of(small, "attn_v").count("q6_K"), 0u);
}

TEST(LlamaQuant, OutputGoesToQ6KAndTiedEmbeddingsWithIt) {
    QuantPlan untied = llamacpp_quant_plan(dense(8), *find_llama_mix("Q4_0"));
    EXPECT_EQ(type_of(untied, "output.weight"), "q6_K");
    EXPECT_EQ(type_of(untied, "token_embd.weight"), "q4_0");
    QuantPlan tied = llamacpp_quant_plan(dense(8, 2048, true), *find_llama_mix("Q4_0"));
    EXPECT_EQ(type_of(tied, "output.weight"), "(absent)");
    EXPECT_EQ(type_of(tied, "token_embd.weight"), "q6_K");
    // Q8_0 keeps its output at Q8_0, norms stay f32, and F16 quantises nothing else.
    QuantPlan q8 = llamacpp_quant_plan(dense(8), *find_llama_mix("Q8_0"));
    EXPECT_EQ(type_of(q8, "output.weight"), "q8_0");
    EXPECT_EQ(type_of(q8, "blk.0.attn_norm.weight"), "f32");
    QuantPlan f16 = llamacpp_quant_plan(dense(8), *find_llama_mix("F16"));
    EXPECT_EQ(type_of(f16, "output.weight"), "f16");
}

TEST(LlamaQuant, ARowThatDoesNotDivideIntoBlocksFallsBack) {
    // ffn_down's rows are ffn wide: 2080 is 65 blocks of 32 but no whole block of 256.
    QuantPlan plan = llamacpp_quant_plan(dense(8, 2080), *find_llama_mix("Q4_K_S"));
    EXPECT_EQ(type_of(plan, "blk.7.ffn_down.weight"), "q5_0");  // Q4_K falls back to Q5_0
    EXPECT_EQ(type_of(plan, "blk.0.ffn_down.weight"), "q5_1");  // the first eighth's Q5_K, to Q5_1
    EXPECT_EQ(type_of(plan, "blk.7.ffn_up.weight"), "q4_K");    // rows of 1024: whole blocks
    // 2072 is not even a whole block of 32: f16.
    QuantPlan odd = llamacpp_quant_plan(dense(8, 2072), *find_llama_mix("Q4_K_S"));
    EXPECT_EQ(type_of(odd, "blk.7.ffn_down.weight"), "f16");
    // Each tensor's bytes are its rows x a row of its type: 1024 rows of 2080 in Q5_0.
    for (const auto& t : plan.types) {
        if (t.tensor->name == "blk.7.ffn_down.weight") {
            EXPECT_EQ(t.bytes, 1024 * (2080 / 32) * 22);
        }
    }
}

TEST(LlamaQuant, SeventyBModelsAndEightExpertsRaiseTheirAttention) {
    QuantPlan plan = llamacpp_quant_plan(dense(80), *find_llama_mix("Q4_K_S"));
    // LLM_TYPE_70B: every attn_v at Q4_K goes to Q5_K (80 of 80).
    EXPECT_EQ(types_of(plan, "attn_v"), (std::map<std::string, int>{{"q5_K", 80}}));
    QuantPlan qwen3 = llamacpp_quant_plan(dense(80, 2048, false, "qwen3"), *find_llama_mix("Q4_K_S"));
    EXPECT_EQ(types_of(qwen3, "attn_v").count("q4_K"), 1u) << "qwen3 has no 70B type";
    Model mixtral = dense(32);
    mixtral.tensors->experts = 8;
    mixtral.tensors->expert_ffn_size = 2048;
    QuantPlan moe = llamacpp_quant_plan(mixtral, *find_llama_mix("Q4_K_M"));
    EXPECT_EQ(types_of(moe, "attn_v"), (std::map<std::string, int>{{"q8_0", 32}}));
    EXPECT_EQ(types_of(moe, "attn_k"), (std::map<std::string, int>{{"q8_0", 32}}));
    EXPECT_EQ(types_of(moe, "attn_output"), (std::map<std::string, int>{{"q5_K", 32}}));
    EXPECT_EQ(type_of(moe, "blk.0.ffn_gate_inp.weight"), "f32");
    EXPECT_EQ(type_of(moe, "blk.0.ffn_down_exps.weight"), "q6_K");
}

TEST(LlamaQuant, AnImportanceMatrixChangesQ40AndIq4Xs) {
    QuantPlan plain = llamacpp_quant_plan(dense(16), *find_llama_mix("Q4_0"), false);
    QuantPlan with = llamacpp_quant_plan(dense(16), *find_llama_mix("Q4_0"), true);
    EXPECT_EQ(types_of(plain, "ffn_down"), (std::map<std::string, int>{{"q4_0", 16}}));
    EXPECT_EQ(types_of(with, "ffn_down"), (std::map<std::string, int>{{"q4_0", 14}, {"q4_1", 2}}));
    QuantPlan xs = llamacpp_quant_plan(dense(16), *find_llama_mix("IQ4_XS"), false);
    QuantPlan xs_with = llamacpp_quant_plan(dense(16), *find_llama_mix("IQ4_XS"), true);
    EXPECT_EQ(types_of(xs, "ffn_down"), (std::map<std::string, int>{{"iq4_xs", 14}, {"q5_K", 2}}));
    EXPECT_EQ(types_of(xs_with, "ffn_down"), (std::map<std::string, int>{{"iq4_xs", 16}}));
    // A K mix is the same either way.
    EXPECT_EQ(llamacpp_quant_plan(dense(16), *find_llama_mix("Q4_K_M"), true).bytes,
              llamacpp_quant_plan(dense(16), *find_llama_mix("Q4_K_M"), false).bytes);
}

TEST(LlamaQuant, ARecordWithoutItsWidthsIsRefusedSayingWhatIsMissing) {
    Model m = dense(8);
    m.tensors.reset();
    EXPECT_FALSE(has_tensor_inventory(m));
    try {
        llamacpp_quant_plan(m, *find_llama_mix("Q4_K_M"));
        FAIL() << "no refusal";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no tensors mapping"), std::string::npos) << e.what();
    }
    Model unknown = dense(8, 2048, false, "mamba");
    EXPECT_THROW(llamacpp_quant_plan(unknown, *find_llama_mix("Q4_K_M")), std::invalid_argument);
    // An architecture's shape that llama.cpp's loader would refuse is refused here too.
    Model dense_scout = dense(8, 2048, false, "llama4");
    EXPECT_THROW(llamacpp_quant_plan(dense_scout, *find_llama_mix("Q4_K_M")), std::invalid_argument);
    Model tied_oss = dense(8, 2048, true, "gpt-oss");
    tied_oss.tensors->experts = 4;
    tied_oss.tensors->expert_ffn_size = 256;
    EXPECT_THROW(llamacpp_quant_plan(tied_oss, *find_llama_mix("Q4_K_M")), std::invalid_argument);
    Model gemma_moe = dense(8, 2048, false, "gemma3");
    gemma_moe.tensors->experts = 4;
    gemma_moe.tensors->expert_ffn_size = 256;
    EXPECT_THROW(llamacpp_quant_plan(gemma_moe, *find_llama_mix("Q4_K_M")), std::invalid_argument);
}

// --- the shipped records against llama-bench's printed sizes --------------------------------

struct BenchRow {
    std::string model, mix, size, params, source, line;
    bool imatrix = false;
    int line_no = 0;
};

std::vector<BenchRow> bench_rows() {
    std::ifstream in(fs::path(KVCAT_FIXTURES_DIR) / "llama-bench" / "model-sizes.tsv");
    std::vector<BenchRow> rows;
    std::string text;
    int n = 0;
    while (std::getline(in, text)) {
        ++n;
        if (text.empty() || text[0] == '#') continue;
        std::vector<std::string> cells;
        std::stringstream ss(text);
        std::string cell;
        while (std::getline(ss, cell, '\t')) cells.push_back(cell);
        EXPECT_EQ(cells.size(), 7u) << "line " << n << ": " << text;
        if (cells.size() != 7) continue;
        rows.push_back({cells[0], cells[1], cells[3], cells[4], cells[5], cells[6], cells[2] == "yes", n});
    }
    return rows;
}

/// As llama-bench prints model_size and model_n_params (tools/llama-bench/llama-bench.cpp).
std::string bench_size(std::int64_t bytes) {
    double b = static_cast<double>(bytes);
    return bytes < (1LL << 30) ? fmt::format("{:.2f} MiB", b / 1024.0 / 1024.0)
                               : fmt::format("{:.2f} GiB", b / 1024.0 / 1024.0 / 1024.0);
}
std::string bench_params(std::int64_t n) {
    return n < 1000000000 ? fmt::format("{:.2f} M", static_cast<double>(n) / 1e6)
                          : fmt::format("{:.2f} B", static_cast<double>(n) / 1e9);
}

const LintResult& shipped() {
    static const LintResult r = lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    return r;
}

/// The tensor of that name among a model's, or null.
const GgufTensorShape* tensor_named(const std::vector<GgufTensorShape>& tensors, std::string_view name) {
    auto it = std::find_if(tensors.begin(), tensors.end(), [&](const auto& t) { return t.name == name; });
    return it == tensors.end() ? nullptr : &*it;
}

/// Every element of a model's tensors: its parameters.
std::int64_t elements(const std::vector<GgufTensorShape>& tensors) {
    std::int64_t n = 0;
    for (const GgufTensorShape& t : tensors) n += t.ne[0] * t.ne[1] * t.ne[2];
    return n;
}

const Model* shipped_model(const std::string& id) {
    const Record* r = shipped().records.find(id);
    return r && r->model ? &*r->model : nullptr;
}

TEST(LlamaQuantShipped, SizesAndParametersAreWhatLlamaBenchPrintedForThoseFiles) {
    std::vector<BenchRow> rows = bench_rows();
    ASSERT_GE(rows.size(), 60u);
    std::map<std::string, std::set<std::string>> mixes_per_model;
    for (const BenchRow& row : rows) {
        SCOPED_TRACE(fmt::format("model-sizes.tsv:{}: {} {} ({})", row.line_no, row.model, row.mix, row.source));
        EXPECT_FALSE(row.source.empty());
        const Model* m = shipped_model(row.model);
        ASSERT_NE(m, nullptr);
        auto mix = find_llama_mix(row.mix);
        ASSERT_TRUE(mix.has_value());
        QuantPlan plan = llamacpp_quant_plan(*m, *mix, row.imatrix);
        EXPECT_EQ(bench_size(plan.bytes), row.size) << plan.bytes << " bytes";
        if (!row.params.empty()) {
            std::int64_t params = elements(plan.tensors);
            EXPECT_EQ(bench_params(params), row.params);
        }
        mixes_per_model[row.model].insert(row.mix);
    }
    std::size_t three_or_more = 0;
    for (const auto& [model, mixes] : mixes_per_model) three_or_more += mixes.size() >= 3 ? 1 : 0;
    EXPECT_GE(three_or_more, 15u);  // issue 37: at least 15 models with three mixes or more
}

TEST(LlamaQuantShipped, ThreeExactFiguresToTheByte) {
    // llama-bench's JSON and CSV give model_size in bytes: Qwen2.5-7B-Instruct Q4_K_M in the
    // tool's own README (ggml-org/llama.cpp tools/llama-bench/README.md at 08d0baa), unsloth's
    // Qwen3-0.6B Q4_K_M (index 70872566388: "model_size": 390753280), and a Qwen3-Coder-30B-A3B
    // Q4_K_S (the CSV row of model-sizes.tsv: 17450039296 bytes, 30532122624 parameters).
    EXPECT_EQ(llamacpp_quant_plan(*shipped_model("models/qwen2-7b-instruct"), *find_llama_mix("Q4_K_M")).bytes,
              4677120000);
    EXPECT_EQ(llamacpp_quant_plan(*shipped_model("models/qwen3-0.6b"), *find_llama_mix("Q4_K_M")).bytes, 390753280);
    QuantPlan coder = llamacpp_quant_plan(*shipped_model("models/qwen3-coder-30b-a3b"), *find_llama_mix("Q4_K_S"));
    EXPECT_EQ(coder.bytes, 17450039296);
    std::int64_t params = elements(coder.tensors);
    EXPECT_EQ(params, 30532122624);
    // llama.cpp's own count of a Q4_K_M file's tensors by type (ggml-org/llama.cpp issue 17067:
    // unsloth's Qwen3-Coder-30B-A3B-Instruct Q4_K_M, "f32 241, q4_K 289, q6_K 49").
    EXPECT_EQ(
        llamacpp_quant_plan(*shipped_model("models/qwen3-coder-30b-a3b"), *find_llama_mix("Q4_K_M")).tensors_per_type(),
        (std::map<std::string, int>{{"f32", 241}, {"q4_K", 289}, {"q6_K", 49}}));
}

TEST(LlamaQuantShipped, TheTypesLlamaCppCountedInFilesOfTheNewerArchitectures) {
    // llama.cpp's loader counts a file's tensors by type. bartowski's GLM-Z1-32B-0414 IQ4_XS,
    // quantised with an importance matrix (ikawrakow/ik_llama.cpp pull request 370: "f32 245,
    // q5_K 61, q6_K 1, iq4_xs 306"); ggml-org's gpt-oss-20b and lmstudio-community's gpt-oss-120b
    // "MXFP4 MoE" files (the fixture logs llamacpp-b8185-gpt-oss-20b-mxfp4-f16-131072-m5 and
    // lmstudio-metal-1.44.0-gpt-oss-120b-mxfp4-f16-4096-m4-max: "f32 289, q8_0 98, mxfp4 72" and
    // "f32 433, q8_0 146, mxfp4 108").
    EXPECT_EQ(llamacpp_quant_plan(*shipped_model("models/glm-z1-32b-0414"), *find_llama_mix("IQ4_XS"), true)
                  .tensors_per_type(),
              (std::map<std::string, int>{{"f32", 245}, {"q5_K", 61}, {"q6_K", 1}, {"iq4_xs", 306}}));
    EXPECT_EQ(
        llamacpp_quant_plan(*shipped_model("models/gpt-oss-20b"), *find_llama_mix("MXFP4_MOE")).tensors_per_type(),
        (std::map<std::string, int>{{"f32", 289}, {"q8_0", 98}, {"mxfp4", 72}}));
    EXPECT_EQ(
        llamacpp_quant_plan(*shipped_model("models/gpt-oss-120b"), *find_llama_mix("MXFP4_MOE")).tensors_per_type(),
        (std::map<std::string, int>{{"f32", 433}, {"q8_0", 146}, {"mxfp4", 108}}));
    // unsloth's Qwen3.5-9B Q8_0 (ghghang2/v1.6 llama_server.log at 3f8418f1: "f32 177, q8_0 250"):
    // the convolutions and the DeltaNet's per-head vectors stay f32.
    EXPECT_EQ(llamacpp_quant_plan(*shipped_model("models/qwen3.5-9b"), *find_llama_mix("Q8_0")).tensors_per_type(),
              (std::map<std::string, int>{{"f32", 177}, {"q8_0", 250}}));
}

// A file made with a recipe of its own still holds every tensor of its architecture, and the ones
// llama-quantize never quantises stay f32: the inventory's count of tensors, its f32 ones and its
// parameters, to the places llama.cpp printed them, for files whose mix is not a plain run.
TEST(LlamaQuantShipped, TheInventoryIsWhatLlamaCppCountedInFilesOfCustomRecipes) {
    struct Counted {
        const char* model;
        std::size_t tensors;
        int f32;             ///< -1 where the log did not print the types
        const char* params;  ///< nullptr where no log printed them
        int decimals;
    };
    const Counted counted[] = {
        // unsloth's Qwen3.5-27B-Q4_K_M, build 8248 (ROCm issue 6027): "851 tensors", "f32: 353
        // tensors"; its Q2_K under llama-bench, build 8148 (llama.cpp issue 19910): "26.90 B".
        {"models/qwen3.5-27b", 851, 353, "26.90", 2},
        // unsloth's Qwen3.6-27B-Q4_K_M: "851 tensors" (b9026, praeclarum.github.io at c7b447fb),
        // "model params = 26.90 B" (v8954, guardkit/guardkit at 4342e80f).
        {"models/qwen3.6-27b", 851, -1, "26.90", 2},
        // ubergarm's Qwen3-Coder-480B-A35B IQ2_KL under ik_llama.cpp build 3821 (its issue 649):
        // "747 tensors", "f32: 311 tensors", "model params = 480.155 B".
        {"models/qwen3-coder-480b-a35b", 747, 311, "480.155", 3},
        // unsloth's Qwen3.5-35B-A3B-UD-Q4_K_XL, build 8245 (ROCm issue 6027): "733 tensors", "f32:
        // 301 tensors": routed experts and a shared one with its gate in each of 40 layers.
        {"models/qwen3.5-35b-a3b", 733, 301, nullptr, 0},
    };
    for (const Counted& c : counted) {
        SCOPED_TRACE(c.model);
        std::vector<GgufTensorShape> tensors = llamacpp_tensors(*shipped_model(c.model));
        EXPECT_EQ(tensors.size(), c.tensors);
        std::int64_t params = elements(tensors);
        if (c.params) {
            EXPECT_EQ(fmt::format("{:.{}f}", static_cast<double>(params) / 1e9, c.decimals), c.params);
        }
        if (c.f32 >= 0) {
            auto per_type = llamacpp_quant_plan(*shipped_model(c.model), *find_llama_mix("Q4_K_M")).tensors_per_type();
            EXPECT_EQ(per_type["f32"], c.f32);
        }
    }
}

// LFM2's GGUF (conversion/lfm2.py, src/models/lfm2.cpp at 80fb11ac): ten gated short convolutions
// and six attention layers, the final norm named token_embd_norm, the output tied to the token
// embeddings. Its elements are the 742,489,344 parameters Liquid AI's card gives for LFM2-700M,
// and llama-quantize leaves the convolution kernels f32 with the norms: 16 + 16 + 1 norms, the six
// attention layers' Q and K norms and the ten kernels (the oracle holds the types of every mix).
TEST(LlamaQuantShipped, LfmTwosTensorsAreItsCardsParametersWithTheKernelsLeftF32) {
    const Model& m = *shipped_model("models/lfm2-700m");
    std::vector<GgufTensorShape> tensors = llamacpp_tensors(m);
    EXPECT_EQ(tensors.size(), 148u);
    EXPECT_EQ(elements(tensors), 742489344);
    auto named = [&](std::string_view name) { return tensor_named(tensors, name) != nullptr; };
    EXPECT_TRUE(named("token_embd_norm.weight"));
    EXPECT_FALSE(named("output.weight"));
    EXPECT_TRUE(named("blk.0.shortconv.in_proj.weight"));
    EXPECT_FALSE(named("blk.2.shortconv.in_proj.weight"));  // an attention layer
    EXPECT_EQ(llamacpp_quant_plan(m, *find_llama_mix("Q8_0")).tensors_per_type(),
              (std::map<std::string, int>{{"f32", 55}, {"q8_0", 93}}));
    // llama-quantize reads the GQA ratio of layer 0 (hparams.n_gqa()), a short convolution with no
    // KV heads: LFM2-1.2B's 32 heads over 8 do not raise IQ4_NL's attn_v to Q5_K, as its ratio of 4
    // would in a model of attention only (the oracle found this).
    auto iq4 = llamacpp_quant_plan(*shipped_model("models/lfm2-1.2b"), *find_llama_mix("IQ4_NL"));
    for (const auto& t : iq4.types) {
        if (t.tensor->name.ends_with("attn_v.weight")) {
            EXPECT_EQ(ggml_type_name(t.type), "iq4_nl") << t.tensor->name;
        }
    }
}

// DeepSeek-R1's GGUF (conversion/deepseek.py, src/models/deepseek2.cpp at 80fb11ac): the MTP layer
// left out, three dense layers, then 58 with 256 routed experts, one shared expert and the router's
// score bias; kv_b_proj split into two 3-D tensors per layer. Its elements are the 671,026,419,200
// parameters llama.cpp prints as "671.03 B" for R1's GGUF. attn_k_b's rows are 128 wide, so the
// 256-block K-quants fall back for it (Q4_K to Q5_0: the oracle holds every type of every mix); and
// with no attn_v-like tensor, Q4_K_M raises only the more-bits layers' ffn_down and the output.
TEST(LlamaQuantShipped, DeepSeekTwosLatentAttentionSplitsKvBIntoTwoThreeDimensionalTensors) {
    const Model& m = *shipped_model("models/deepseek-r1");
    std::vector<GgufTensorShape> tensors = llamacpp_tensors(m);
    EXPECT_EQ(tensors.size(), 1086u);
    EXPECT_EQ(elements(tensors), 671026419200);
    auto find = [&](std::string_view name) { return tensor_named(tensors, name); };
    ASSERT_NE(find("blk.0.attn_k_b.weight"), nullptr);
    EXPECT_EQ(find("blk.0.attn_k_b.weight")->ne, (std::array<std::int64_t, 3>{128, 512, 128}));
    EXPECT_EQ(find("blk.0.attn_v_b.weight")->ne, (std::array<std::int64_t, 3>{512, 128, 128}));
    EXPECT_EQ(find("blk.0.attn_kv_b.weight"), nullptr);
    EXPECT_NE(find("blk.2.ffn_down.weight"), nullptr);   // a dense layer
    EXPECT_EQ(find("blk.3.ffn_down.weight"), nullptr);   // the first with experts
    EXPECT_NE(find("blk.3.exp_probs_b.bias"), nullptr);  // noaux_tc's score bias
    EXPECT_NE(find("blk.3.ffn_down_shexp.weight"), nullptr);
    EXPECT_EQ(find("blk.61.attn_norm.weight"), nullptr);  // no prediction layer
    EXPECT_EQ(llamacpp_quant_plan(m, *find_llama_mix("Q4_K_M")).tensors_per_type(),
              (std::map<std::string, int>{{"f32", 361}, {"q4_K", 606}, {"q5_0", 61}, {"q6_K", 58}}));
    // Kimi K2 is the same architecture with 384 experts, one dense layer and a larger vocabulary.
    EXPECT_EQ(elements(llamacpp_tensors(*shipped_model("models/kimi-k2-instruct"))), 1026408232448);
}

// Qwen3-Next's GGUF (conversion/qwen.py, src/models/qwen3next.cpp at 80fb11ac): Qwen3.5's layers
// with one projection for beta and alpha (ssm_ba, twice the value heads wide) where Qwen3.5 has
// two, and experts in every layer beside a gated shared one; the prediction block left out. The
// oracle holds every type of every mix; the converter's attn_qkv counts among attn_v's, so
// Q4_K_M raises its more-bits layers' fused projections as it does Qwen3.5's.
TEST(LlamaQuantShipped, QwenThreeNextFusesBetaAndAlphaIntoOneProjection) {
    const Model& m = *shipped_model("models/qwen3-next-80b-a3b");
    std::vector<GgufTensorShape> tensors = llamacpp_tensors(m);
    EXPECT_EQ(tensors.size(), 843u);
    EXPECT_EQ(elements(tensors), 79674391296);
    auto find = [&](std::string_view name) { return tensor_named(tensors, name); };
    ASSERT_NE(find("blk.0.ssm_ba.weight"), nullptr);
    EXPECT_EQ(find("blk.0.ssm_ba.weight")->ne, (std::array<std::int64_t, 3>{2048, 64, 1}));
    EXPECT_EQ(find("blk.0.ssm_beta.weight"), nullptr);
    EXPECT_EQ(find("blk.3.ssm_ba.weight"), nullptr);  // an attention layer
    EXPECT_NE(find("blk.3.attn_q.weight"), nullptr);
    EXPECT_NE(find("blk.0.ffn_gate_inp_shexp.weight"), nullptr);
    auto q4 = llamacpp_quant_plan(m, *find_llama_mix("Q4_K_M"));
    EXPECT_EQ(q4.tensors_per_type(), (std::map<std::string, int>{{"f32", 361}, {"q4_K", 409}, {"q6_K", 73}}));
    int raised_qkv = 0;
    for (const auto& t : q4.types) {
        if (t.tensor->name.ends_with("attn_qkv.weight") && ggml_type_name(t.type) == "q6_K") ++raised_qkv;
    }
    // use_more_bits over the 36 attn_qkv and 12 attn_v counted together in the loader's order:
    // 18 of the 36 and 6 of the 12 (the pinned llama-quantize's dry run gives the same types).
    EXPECT_EQ(raised_qkv, 18);
}

TEST(LlamaQuantShipped, FitGivesThePlansBytesForEveryModelWithTensors) {
    test::KvcatRunner k;
    std::set<std::string> seen;
    for (const BenchRow& row : bench_rows()) {
        if (!seen.insert(row.model).second) continue;  // one command per model
        std::vector<std::string> args = {"fit",
                                         "--records",
                                         KVCAT_SOURCE_DIR "/records",
                                         "--model",
                                         row.model,
                                         "--accelerator",
                                         "nvidia-h100-sxm",
                                         "--weight-quant",
                                         row.mix,
                                         "--kv-dtype",
                                         "f16",
                                         "--format",
                                         "json"};
        if (row.mix == "F16" || row.mix == "BF16") args.insert(args.end(), {"--engine", "llama.cpp"});
        if (row.imatrix) args.push_back("--imatrix");
        test::Outcome o = k.run(args);
        ASSERT_TRUE(o.status == 0 || o.status == 1) << o.err;
        nlohmann::json j = nlohmann::json::parse(o.out);
        QuantPlan plan = llamacpp_quant_plan(*shipped_model(row.model), *find_llama_mix(row.mix), row.imatrix);
        EXPECT_EQ(j["weight_bytes"].get<std::int64_t>(), plan.bytes) << row.model;
        EXPECT_EQ(j["weights_lower_bound"], false) << row.model;
        EXPECT_EQ(bench_size(plan.bytes), row.size) << row.model;
        EXPECT_TRUE(j.contains("weight_tensors")) << row.model;
    }
    EXPECT_GE(seen.size(), 15u);
}

TEST(LlamaQuantShipped, AMixOfAModelWithoutTensorsStaysALowerBound) {
    test::KvcatRunner k;
    test::Outcome o =
        k.run({"fit", "--records", KVCAT_SOURCE_DIR "/records", "--model", "deepseek-v2-lite", "--accelerator",
               "nvidia-h100-sxm", "--weight-quant", "Q4_K_M", "--kv-dtype", "f16", "--format", "json"});
    ASSERT_TRUE(o.status == 0 || o.status == 1) << o.err;
    nlohmann::json j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["weights_lower_bound"], true);
    EXPECT_FALSE(j.contains("weight_tensors"));
}

}  // namespace
}  // namespace kvcat
