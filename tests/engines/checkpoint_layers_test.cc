// vLLM's and SGLang's weights on each card (engines/checkpoint_layers.h): their layers as their
// model files build them, against the model records' exact parameter counts and against what real starts printed as
// "Model loading took" (tests/fixtures/engine-logs; the records keep the figure as
// vllm.model_loading_gib).
#include "engines/checkpoint_layers.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "check/lint.h"
#include "engines/allocation_check.h"
#include "engines/engine_log.h"
#include "engines/engine_rules.h"
#include "engines/vllm/vllm_budget.h"
#include "shipped_records.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;
using test::kGiB;

double gib(const Rational& bytes) {
    return static_cast<double>(bytes.floor()) / kGiB;
}

/// vLLM's layers for a checkpoint (checkpoint_layers, as vLLM's rules ask it).
std::optional<EngineWeights> vllm_weights(const Model& m, std::string_view format, std::int64_t gpus,
                                          bool expert_parallel = false) {
    return checkpoint_layers(m, format, gpus, expert_parallel, "vLLM");
}

/// vLLM's weights as its rules give them: the layers, and for a float checkpoint what PyTorch's
/// caching allocator counts beside them (vllm_loaded_weights).
std::optional<EngineWeights> vllm_loaded(const Model& m, std::string_view format, std::int64_t gpus,
                                         bool expert_parallel) {
    EngineSettings s;
    s.gpus = gpus;
    s.expert_parallel = expert_parallel;
    return vllm_loaded_weights(m, format, s);
}

/// The rotary table vLLM loads beside the weights, as the budget counts it.
Rational rotary(const Model& m) {
    return vllm_rotary_table(EngineSettings(), model_terms(m)).value();
}

// On one card in bf16 the layers hold every parameter of the model once, two bytes each: for
// every shipped model record whose architecture kvcat read in vLLM, the bytes are twice the
// record's exact parameter count (the checkpoint's: a Llama 3.1 GGUF's rope_freqs, which vLLM
// computes instead, is not among them).
TEST(VllmWeights, OnOneCardInBf16TheyAreEveryParameterOfEveryModelRecordTwice) {
    int checked = 0;
    for (const Record& r : test::shipped_records().records.records()) {
        if (!r.model || !r.model->total_params_b_exact) continue;
        auto w = vllm_weights(*r.model, "bf16", 1);
        if (!w) continue;
        SCOPED_TRACE(r.id);
        Rational params = *r.model->total_params_b_exact * Rational(1000000000);
        EXPECT_EQ(w->bytes.floor(), (params * Rational(2)).floor());
        EXPECT_EQ(vllm_weights(*r.model, "fp32", 1)->bytes.floor(), (params * Rational(4)).floor());
        ++checked;
    }
    // llama-2-7b, llama-3.1-8b, mistral-7b-instruct-v0.2, mixtral-8x7b and 8x22b, qwen2-7b-instruct,
    // the dense Qwen3 and the Qwen3 mixtures of experts: every record with an exact count.
    EXPECT_GE(checked, 12);
}

struct Loaded {
    std::string log, model, format;
    std::int64_t gpus;
    bool expert_parallel;
    std::string printed;  ///< "Model loading took", GiB as printed
    double under;         ///< how far kvcat's weights and rotary table are under it, GiB
};

// Each start's "Model loading took" beside kvcat's weights and rotary table, with what PyTorch's
// caching allocator counts beside a float checkpoint's tensors (torch_allocator.h): a tensor that
// leaves 1 MiB or less of its 2 MiB-rounded segment takes it whole. Equal to the printed hundredth
// for Llama 3.1 8B (0.19.0, one card and two; every width a whole number of segments) and Qwen3-8B
// and Qwen2.5-7B (0.19.0), and to the printed ten-thousandth for Qwen2-7B on one card and a rank
// of two (0.10.1.1) and Qwen3-32B over eight (0.10.0), with the attention layers' seven float32
// scalars (3,584 bytes a layer once rounded); before kvcat counted the allocator they were 0.02 to
// 0.06 GiB under, and 0.0001 to 0.0003 before it counted the scalars. Llama 3 8B (0.11.2) is equal to the printed
// ten-thousandth with its own record: its rotary table has 8,192 positions, Llama 3.1's 131,072 (0.03 GiB
// over when the start was read as Llama 3.1's). The fp8
// checkpoints get no allocator term (vLLM replaces their layers once loaded): 0.002 GiB under for
// Qwen3-235B-A22B FP8 over eight H100s with expert parallel (0.10.0), 0.06 over four (0.27.1), not
// explained. docs/engines.md states this error.
TEST(VllmWeights, WithTheRotaryTableTheyAreWhatRealStartsPrintedWithinTheStatedError) {
    const std::vector<Loaded> starts = {
        {"vllm-0.11.2-llama-3-8b-instruct-h200-1024", "models/llama-3-8b", "bf16", 1, false, "14.9596", 0.0},
        {"vllm-0.19.0-llama-3.1-8b-h100-0.95-8k", "models/llama-3.1-8b", "bf16", 1, false, "14.99", 0.0},
        {"vllm-0.19.0-llama-3.1-8b-tp2-h100-0.95-8k", "models/llama-3.1-8b", "bf16", 2, false, "7.51", 0.0},
        {"vllm-0.19.0-qwen3-8b-h100-0.95-8k", "models/qwen3-8b", "bf16", 1, false, "15.27", 0.0},
        {"vllm-0.10.0-qwen3-235b-a22b-fp8-tp8-ep-h100-fp8kv", "models/qwen3-235b-a22b", "fp8_block", 8, true, "27.6656",
         0.0024},
        {"vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25", "models/qwen2-7b-instruct", "bf16", 1, false, "14.2488", 0.0},
        {"vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-80g-0.5", "models/qwen2-7b-instruct", "bf16", 2, false, "7.1217",
         0.0},
        {"vllm-0.19.0-qwen2.5-7b-h100-0.95-8k", "models/qwen2-7b-instruct", "bf16", 1, false, "14.25", 0.0},
        {"vllm-0.10.0-qwen3-32b-tp8-h100-fp8kv", "models/qwen3-32b", "bf16", 8, false, "7.6871", 0.0},
        {"vllm-0.27.1-qwen3-235b-a22b-fp8-tp4-rtx-pro-6000", "models/qwen3-235b-a22b", "fp8_block", 4, false, "55.19",
         0.058},
    };
    for (const Loaded& s : starts) {
        SCOPED_TRACE(s.log);
        std::string log =
            test::read_file(std::filesystem::path(KVCAT_SOURCE_DIR) / "tests/fixtures/engine-logs" / (s.log + ".log"));
        ASSERT_TRUE(test::contains(log, "Model loading took " + s.printed + " GiB"));
        const Model& m = test::shipped_model(s.model);
        auto w = vllm_loaded(m, s.format, s.gpus, s.expert_parallel);
        ASSERT_TRUE(w.has_value());
        double kvcat = gib(w->bytes + rotary(m));
        // A figure printed to four places is within 0.00005 of its bytes, to two within 0.005.
        bool four = s.printed.size() - s.printed.find('.') > 3;
        if (s.under == 0.0) {
            // Equal: kvcat's bytes read as the printed figure, to its places.
            EXPECT_EQ(four ? fmt::format("{:.4f}", kvcat) : fmt::format("{:.2f}", kvcat), s.printed);
        } else {
            double rounding = four ? 0.00005 : 0.005;
            EXPECT_NEAR(std::stod(s.printed) - kvcat, s.under, rounding + (four ? 0.0001 : 0.001)) << kvcat;
        }
    }
}

// The lint judges "Model loading took" where the config line prints quantization=None: the record
// import-log writes for each of the memory study's held-out 0.19.0 starts (none of them a record,
// none read when the rule was written) holds to the printed hundredth, bf16 and f32, dense and a
// mixture of experts, on one card and over two and four. The fp8 and compressed-tensors ones are
// noted, not judged; Llama 3.1 8B's start over four cards prints its profile line twice, which
// import-log refuses as two starts.
TEST(VllmWeights, TheLintHoldsHeldOutStartsLoadedInTheirDtypeToThePrintedFigure) {
    const std::vector<std::pair<std::string, std::string>> starts = {
        {"vllm-0.19.0-llama-3.1-8b-h100-0.95-2k", "llama-3.1-8b"},
        {"vllm-0.19.0-llama-3.1-8b-h100-0.95-32k", "llama-3.1-8b"},
        {"vllm-0.19.0-llama-3.1-8b-f32-h100-0.95-8k", "llama-3.1-8b"},
        {"vllm-0.19.0-llama-3.1-8b-fp8kv-h100-0.95-8k", "llama-3.1-8b"},
        {"vllm-0.19.0-qwen2.5-7b-h100-0.95-32k", "qwen2-7b-instruct"},
        {"vllm-0.19.0-qwen2.5-7b-tp2-h100-0.95-8k", "qwen2-7b-instruct"},
        {"vllm-0.19.0-qwen2.5-7b-tp4-h100-0.95-8k", "qwen2-7b-instruct"},
        {"vllm-0.19.0-qwen2.5-7b-fp8kv-h100-0.95-8k", "qwen2-7b-instruct"},
        {"vllm-0.19.0-qwen3-30b-a3b-h100-0.95-8k", "qwen3-30b-a3b"},
        {"vllm-0.19.0-llama-3.1-8b-qfp8-h100-0.95-8k", "llama-3.1-8b"},
        {"vllm-0.19.0-qwen2.5-7b-fp8-dynamic-h100-0.95-8k", "qwen2-7b-instruct"},
    };
    int judged = 0;
    for (const auto& [name, model] : starts) {
        SCOPED_TRACE(name);
        fs::path source = fs::path(KVCAT_SOURCE_DIR) / "tests/fixtures/engine-logs" / (name + ".log");
        ParsedLog log = parse_engine_log(test::read_file(source), source.string());
        test::TempDir dir;
        fs::create_directories(dir / "allocations");
        fs::create_directories(dir / "models");
        fs::copy_file(fs::path(KVCAT_SOURCE_DIR) / "records/models" / (model + ".yaml"),
                      dir / "models" / (model + ".yaml"));
        test::write_file(dir / "allocations" / (name + ".yaml"),
                         allocation_record_text(log, "allocations/" + name, "models/" + model, "0.19.0",
                                                "https://example.org/" + name, "A held-out start.", name + ".log"));
        LintResult lint = lint_paths({dir.path()});
        EXPECT_TRUE(test::find_rule(lint.diagnostics, "engine-allocation").empty()) << test::describe(lint.diagnostics);
        const Record* r = lint.records.find("allocations/" + name);
        ASSERT_TRUE(r);
        AllocationCheck c = check_allocation(*r, *lint.records.find("models/" + model)->model);
        // "Model loading took" and the profile line's "X GiB for weight", the same figure.
        for (const char* key : {"vllm.model_loading_gib", "vllm.weights_gib"}) {
            SCOPED_TRACE(key);
            const AllocationFigure* f = find_figure(c, key);
            if (log.quantization != "None") {
                // Not judged: noted at "Model loading took"; the profile line's sums still hold the other.
                EXPECT_FALSE(f);
                EXPECT_EQ(std::any_of(c.not_judged.begin(), c.not_judged.end(),
                                      [&](const NotJudged& n) { return n.key == key; }),
                          std::string(key) == "vllm.model_loading_gib");
                continue;
            }
            ASSERT_TRUE(f);
            EXPECT_TRUE(f->holds) << f->computed;
            EXPECT_EQ(f->computed, f->printed);
            ++judged;
        }
    }
    EXPECT_EQ(judged, 18);
}

// Before the layers, kvcat counted every parameter at the format's bytes: an fp8 checkpoint's
// embeddings, output head and router are bf16 in vLLM, so Qwen3-235B-A22B FP8 over four cards
// was 0.38 GiB under its layers (54.74 against 55.12 GiB), and the router a card holds whole is
// 94 layers x 128 experts x 4,096 in bf16. Over more cards than K and V heads each keeps one.
TEST(VllmWeights, AnFp8CheckpointKeepsItsEmbeddingsHeadAndRouterInBf16AndEachCardItsOwnHeads) {
    const Model& m = test::shipped_model("models/qwen3-235b-a22b");
    Rational params = *m.total_params_b_exact * Rational(1000000000);
    auto four = vllm_weights(m, "fp8_block", 4);
    ASSERT_TRUE(four);
    EXPECT_NEAR(gib(params / Rational(4)), 54.74, 0.005);
    EXPECT_NEAR(gib(four->bytes), 55.12, 0.005);
    // Scaled per tensor or channel, the scales are not counted: the per-block ones are a float32 for
    // each of a card's 3,567,488 blocks (attention's and the experts'), 13.6 MiB. fp8_e4m3 is the
    // same as fp8.
    Rational unscaled = vllm_weights(m, "fp8", 4)->bytes;
    EXPECT_EQ(vllm_weights(m, "fp8_e4m3", 4)->bytes, unscaled);
    EXPECT_EQ(four->bytes - unscaled, Rational(3567488 * 4));
    // In bf16 the router is the only part a card holds whole beside the norms: one card's bf16
    // bytes less a quarter of them is three quarters of the router and the norms.
    Rational one = vllm_weights(m, "bf16", 1)->bytes, split = vllm_weights(m, "bf16", 4)->bytes;
    Rational router = Rational(94 * 128 * 4096 * 2), norms = Rational((94 * (2 * 4096 + 2 * 128) + 4096) * 2);
    EXPECT_EQ(split - one / Rational(4), (router + norms) * Rational(3, 4));
    // Eight cards for 4 K and V heads: each card keeps one whole head of K and of V, so the split
    // over eight holds more than an eighth of the one card's K and V projections.
    Rational eight = vllm_weights(m, "bf16", 8)->bytes;
    Rational kv_one = Rational(94 * 2 * 4096 * 4 * 128 * 2);
    EXPECT_EQ(eight - one / Rational(8),
              (router + norms) * Rational(7, 8) + kv_one / Rational(4) - kv_one / Rational(8));
}

// vLLM refuses to load a block-scaled fp8 checkpoint whose split the 128 x 128 block does not divide, in its own
// words: Qwen3-235B-A22B's experts of 1,536 over eight ranks are 192 wide. Expert parallel keeps
// each expert whole and loads. Query heads the ranks do not divide are refused by its config check.
TEST(VllmWeights, ASplitVllmRefusesIsRefusedInItsWords) {
    const Model& m = test::shipped_model("models/qwen3-235b-a22b");
    try {
        vllm_weights(m, "fp8_block", 8);
        ADD_FAILURE() << "no refusal";
    } catch (const EngineRefusal& e) {
        EXPECT_STREQ(e.what(),
                     "ValueError: The output_size of gate's and up's weight = 192 is not divisible by weight "
                     "quantization block_n = 128.");
    }
    EXPECT_TRUE(vllm_weights(m, "fp8_block", 8, true));
    EXPECT_TRUE(vllm_weights(m, "bf16", 8));  // no block to divide
    EXPECT_TRUE(vllm_weights(m, "fp8", 8));   // scaled per tensor or channel: no block either
    try {
        vllm_weights(m, "bf16", 3);
        ADD_FAILURE() << "no refusal";
    } catch (const EngineRefusal& e) {
        EXPECT_STREQ(e.what(),
                     "ValueError: Total number of attention heads (64) must be divisible by tensor parallel size (3).");
    }
}

// Where kvcat has not read the model's file, or the format is not a float one, it derives nothing
// and fit keeps all parameters x bits / 8.
TEST(VllmWeights, AnArchitectureOrFormatNotReadGivesNothing) {
    EXPECT_FALSE(vllm_weights(test::shipped_model("models/gpt-oss-20b"), "bf16", 1));  // openai-moe
    EXPECT_FALSE(vllm_weights(test::shipped_model("models/llama-3.1-8b"), "Q4_K", 1));
    EXPECT_FALSE(vllm_weights(test::shipped_model("models/llama-3.1-8b"), "int8", 1));
    EXPECT_TRUE(vllm_weights(test::shipped_model("models/llama-3.1-8b"), "BF16", 1));
}

// A record's widths are not bounded by its schema: past any real model's they give nothing, and
// where their products pass 64 bits the exact arithmetic refuses them, never wraps.
TEST(VllmWeights, WidthsPastAnyModelsGiveNothingAndProductsPast64BitsAreRefused) {
    Model wide = test::shipped_model("models/llama-3.1-8b");
    wide.tensors->hidden_size = std::int64_t{1} << 50;
    EXPECT_FALSE(vllm_weights(wide, "bf16", 1));
    wide.tensors->hidden_size = std::int64_t{1} << 39;
    wide.tensors->vocab_size = std::int64_t{1} << 39;
    EXPECT_THROW(vllm_weights(wide, "bf16", 1), OverflowError);
    Model heads = test::shipped_model("models/llama-3.1-8b");
    heads.attention_heads = std::int64_t{1} << 40;
    EXPECT_FALSE(vllm_weights(heads, "bf16", 1));
}

// SGLang's layers are vLLM's (ported), and its rules ask for the same bytes: its own words in the
// weights' description, the same refusal of a block its split does not divide.
TEST(CheckpointLayers, SglangAsksForTheSameLayersInItsOwnName) {
    const Model& m = test::shipped_model("models/qwen3-235b-a22b");
    EngineSettings four;
    four.gpus = 4;
    auto sglang = rules_of(Engine::sglang).loaded_weights(m, "fp8_block", four);
    auto vllm = rules_of(Engine::vllm).loaded_weights(m, "fp8_block", four);
    ASSERT_TRUE(sglang && vllm);
    EXPECT_EQ(sglang->bytes, vllm->bytes);
    EXPECT_TRUE(sglang->how.starts_with("derived: SGLang's layers for an fp8 checkpoint")) << sglang->how;
    EngineSettings eight;
    eight.gpus = 8;
    EXPECT_THROW(rules_of(Engine::sglang).loaded_weights(m, "fp8_block", eight), EngineRefusal);
    // llama.cpp's weights are its files' (llama-quantize's plan): no layers asked of it.
    EXPECT_FALSE(rules_of(Engine::llamacpp).loaded_weights(m, "bf16", four));
}

// SGLang prints its weights as the free memory loading took ("Load weight end ... mem usage", in
// GB of 2^30 bytes, one a rank): QwQ-32B in bf16 over four L4s
// (tests/fixtures/engine-logs/sglang-2025-03-qwq-32b-tp4-l4-0.85) took 15.54, where SGLang's
// layers are 15.26 GiB a rank. The free memory counts more than the layers (the allocator's
// reserve, the rotary table, whatever the CUDA context grew by), so it stands 0.28 GiB above
// them; docs/engines.md states this error.
TEST(CheckpointLayers, SglangsLoadedWeightsStandAboveItsLayersByTheStatedError) {
    std::string log = test::read_file(std::filesystem::path(KVCAT_SOURCE_DIR) / "tests/fixtures/engine-logs" /
                                      "sglang-2025-03-qwq-32b-tp4-l4-0.85.log");
    ASSERT_TRUE(test::contains(log, "--tensor-parallel-size 4"));
    ASSERT_TRUE(
        test::contains(log, "type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=6.09 GB, mem usage=15.54 GB"));
    EngineSettings four;
    four.gpus = 4;
    auto layers = rules_of(Engine::sglang).loaded_weights(test::shipped_model("models/qwq-32b"), "bf16", four);
    ASSERT_TRUE(layers);
    EXPECT_NEAR(gib(layers->bytes), 15.26, 0.005);
    EXPECT_NEAR(15.54 - gib(layers->bytes), 0.28, 0.01);
}

}  // namespace
}  // namespace kvcat
