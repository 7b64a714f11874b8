// The memory vLLM and SGLang size their pools from (engines/engine_budget.h): vLLM's card x
// gpu_memory_utilization less the weights and the allowance for what it measures at start, with
// the utilization's default by version; SGLang's card x mem_fraction_static less the weights and
// the reserve; and the figures kvcat fit gives from them beside real starts whose card is known.
#include "engines/engine_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engines/engine_rules.h"
#include "engines/vllm/vllm_allocation.h"
#include "engines/vllm/vllm_budget.h"
#include "kvcat_runner.h"
#include "shipped_records.h"
#include "test_util.h"

namespace kvcat {
namespace {

FitTerms card(std::int64_t memory, std::int64_t weights, std::int64_t reserve) {
    FitTerms t;
    t.memory = Rational(memory);
    t.weights = Rational(weights);
    t.reserve = Rational(reserve);
    return t;
}

using test::kGiB;

/// A start-up log of tests/fixtures/engine-logs, by its name without ".log".
std::string engine_log(const std::string& name) {
    return test::read_file(std::filesystem::path(KVCAT_SOURCE_DIR) / "tests/fixtures/engine-logs" / (name + ".log"));
}

/// `kvcat fit --engine vllm --format json` on the shipped records for a start's settings; more
/// options (a share, a reserve) follow them.
std::vector<std::string> vllm_fit(const std::string& model, const std::string& card, const std::string& gpus,
                                  const std::string& quant, const std::string& kv, const std::string& version,
                                  const std::string& context, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {"fit",
                                     "--records",
                                     KVCAT_SOURCE_DIR "/records",
                                     "--model",
                                     model,
                                     "--accelerator",
                                     card,
                                     "--gpus",
                                     gpus,
                                     "--weight-quant",
                                     quant,
                                     "--kv-dtype",
                                     kv,
                                     "--engine",
                                     "vllm",
                                     "--engine-version",
                                     version,
                                     "--max-model-len",
                                     context,
                                     "--format",
                                     "json"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

/// The bytes a named term of fit's vLLM budget takes off the memory (a term subtracts: its bytes
/// are negative); 0 when the budget has no such term.
std::int64_t budget_term_bytes(const nlohmann::json& fit, std::string_view name) {
    for (const auto& term : fit["engine"]["budget"]) {
        if (term["term"] == name) return -term["bytes"].get<std::int64_t>();
    }
    return 0;
}

/// The bytes a named term of fit's vLLM budget takes, in GiB (a term subtracts: its bytes are
/// negative); 0 when the budget has no such term.
double budget_term_gib(const nlohmann::json& fit, std::string_view name) {
    for (const auto& term : fit["engine"]["budget"]) {
        if (term["term"] == name) return -term["bytes"].get<double>() / kGiB;
    }
    return 0;
}

TEST(VllmBudget, TheDefaultShareIsNinetyPercentUntil0200AndNinetyTwoFromIt) {
    EXPECT_EQ(vllm_default_gpu_memory_utilization("0.10.1.1"), Rational(9, 10));
    EXPECT_EQ(vllm_default_gpu_memory_utilization("0.19.1"), Rational(9, 10));
    EXPECT_EQ(vllm_default_gpu_memory_utilization("0.20.0"), Rational(92, 100));
    EXPECT_EQ(vllm_default_gpu_memory_utilization("0.24.0"), Rational(92, 100));
    EXPECT_EQ(vllm_default_gpu_memory_utilization(""), Rational(92, 100)) << "the newest rules held";
}

// The total vLLM and SGLang take their share of: CUDA's where the card's record gives it; else
// nvidia-smi's less the fitted gap, and any other driver's figure as it is.
TEST(RuntimeTotal, ItIsTheRecordsRuntimeTotalElseTheDriversLessTheLargestGapOnRecord) {
    FitTerms t = card(80LL << 30, 0, 0);
    t.memory_how = "nvidia-smi's total, 81920 MiB";
    t.memory_by = "nvidia-smi";
    RuntimeTotal r = runtime_total(t);
    EXPECT_EQ(r.bytes, Rational((80LL << 30) - kRuntimeTotalGapBytes));
    EXPECT_TRUE(test::contains(r.how, "nvidia-smi's total, 81920 MiB less 870 MiB")) << r.how;
    t.runtime_memory = Rational(79LL << 30);
    t.runtime_memory_how = "CUDA's total, 79 GiB";
    r = runtime_total(t);
    EXPECT_EQ(r.bytes, Rational(79LL << 30));
    EXPECT_EQ(r.how, "CUDA's total, 79 GiB");
    t.runtime_memory.reset();
    t.memory_by = "rocm-smi";  // no gap is on record for another driver: its total as it is
    r = runtime_total(t);
    EXPECT_EQ(r.bytes, Rational(80LL << 30));
    EXPECT_TRUE(test::contains(r.how, "gives no runtime total")) << r.how;
}

// The gap is the largest on record, in whole MiB: every card whose record gives both totals has
// its CUDA total within it of nvidia-smi's, and one comes within a MiB of it.
TEST(RuntimeTotal, TheGapIsTheLargestOfTheShippedRecordsInWholeMib) {
    Rational largest(0);
    int cards = 0;
    for (const Record& rec : test::shipped_records().records.records()) {
        if (!rec.accelerator || !rec.accelerator->memory_runtime_total || !rec.accelerator->memory_reported) continue;
        if (rec.accelerator->memory_reported->by != "nvidia-smi") continue;
        Rational gap = memory_bytes(*rec.accelerator) - *runtime_memory_bytes(*rec.accelerator);
        SCOPED_TRACE(rec.id);
        EXPECT_GT(gap, Rational(0));
        EXPECT_LE(gap, Rational(kRuntimeTotalGapBytes));
        if (gap > largest) largest = gap;
        ++cards;
    }
    EXPECT_GE(cards, 9);
    EXPECT_GT(largest, Rational(kRuntimeTotalGapBytes - (std::int64_t{1} << 20)));
}

// The fused experts' workspace (vllm_moe_workspace): M tokens x k experts x the larger of each
// workspace's width and the hidden width, twice, in the model's dtype; from 0.18.0, for a float
// checkpoint of a mixture of experts.
TEST(VllmBudget, TheExpertsWorkspaceIsTheTritonExpertsTwoBuffersFromTheRelease018) {
    FitTerms qwen = model_terms(test::shipped_model("models/qwen3-30b-a3b"));  // hidden 2,048, 8 of 128 of 768
    qwen.weight_format = "bf16";
    EngineSettings s;
    s.version = "0.19.0";
    s.max_num_batched_tokens = 8192;
    // K = 2,048 is wider than N = 1,536 and N / 2: both buffers are 8,192 x 8 x 2,048 x 2 bytes.
    EXPECT_EQ(vllm_moe_workspace(s, qwen), Rational(2 * 8192LL * 8 * 2048 * 2));
    s.version = "0.17.1";  // before the persistent workspace: none
    EXPECT_FALSE(vllm_moe_workspace(s, qwen).has_value());
    s.version = "";  // the newest rules: the code read up to v0.20.2rc0
    EXPECT_TRUE(vllm_moe_workspace(s, qwen).has_value());
    qwen.weight_format = "fp8_block";  // another experts kernel, not read
    EXPECT_FALSE(vllm_moe_workspace(s, qwen).has_value());
    qwen.weight_format = "f32";
    EXPECT_EQ(vllm_moe_workspace(s, qwen), Rational(2 * 8192LL * 8 * 2048 * 4));
    // Mixtral's experts are wider than its hidden width: N = 2 x 14,336 sets both buffers, and over
    // two cards each rank's half of it; divided whole (expert parallel) they stay whole.
    FitTerms mixtral = model_terms(test::shipped_model("models/mixtral-8x7b"));
    mixtral.weight_format = "bf16";
    EXPECT_EQ(vllm_moe_workspace(s, mixtral), Rational(8192LL * 2 * (14336 + 28672) * 2));
    s.gpus = 2;
    EXPECT_EQ(vllm_moe_workspace(s, mixtral), Rational(8192LL * 2 * (7168 + 14336) * 2));
    s.expert_parallel = true;
    EXPECT_EQ(vllm_moe_workspace(s, mixtral), Rational(8192LL * 2 * (14336 + 28672) * 2));
    // At 2,048 tokens with 2 experts and a small model the pair is under 10 MiB: PyTorch's
    // allocator hands out the block as asked, rounded to 512 bytes.
    FitTerms small = mixtral;
    small.hidden_size = 1000;
    small.expert_ffn_size = 100;
    s.gpus = 1;
    s.expert_parallel = false;
    s.max_num_batched_tokens = 3;
    // 3 x 2 x 1,000 x 2 = 12,000 bytes each, 12,032 once aligned to 256: 24,064, rounded to 24,064.
    EXPECT_EQ(vllm_moe_workspace(s, small), Rational(24064));
    FitTerms dense = model_terms(test::shipped_model("models/llama-3.1-8b"));
    dense.weight_format = "bf16";
    EXPECT_FALSE(vllm_moe_workspace(s, dense).has_value());
}

TEST(VllmBudget, ItIsTheCardsShareLessTheWeightsAndTheAllowance) {
    FitTerms t = card(1000, 300, 50);
    EngineSettings s;
    s.version = "0.11.0";
    EngineBudget b = vllm_budget(s, t);
    EXPECT_EQ(b.available, Rational(900 - 300 - 50));
    ASSERT_EQ(b.terms.size(), 3U);
    EXPECT_EQ(b.terms[0].bytes, Rational(900));
    EXPECT_EQ(b.terms[1].bytes, Rational(-300));
    EXPECT_EQ(b.terms[2].bytes, Rational(-50));
    EXPECT_TRUE(test::contains(b.terms[0].how, "0.9 (vLLM's default)")) << b.terms[0].how;
    EXPECT_EQ(b.terms[2].name, "activation peak and non-torch memory");
    s.version = "0.20.0";  // from here vLLM also takes its CUDA graphs' estimate off
    b = vllm_budget(s, t);
    EXPECT_EQ(b.available, Rational(920 - 300 - 50));
    EXPECT_EQ(b.terms[2].name, "activations, non-torch and CUDA graphs");
    s.gpu_memory_utilization = Rational(1, 4);  // given: the default no longer applies
    b = vllm_budget(s, t);
    EXPECT_EQ(b.available, Rational(250 - 300 - 50));
    EXPECT_FALSE(test::contains(b.terms[0].how, "default")) << b.terms[0].how;
}

/// One vLLM 0.10.1.1 start from tests/fixtures/engine-logs whose card and settings the log and
/// its .source.txt give, with what it printed and kvcat's error beside it.
struct RealStart {
    std::string log;
    std::string card;
    int gpus;
    std::string utilization;
    double available_gib;  ///< "Available KV cache memory", as printed
    std::int64_t tokens;   ///< "GPU KV cache size", as printed
    bool flashinfer;       ///< the log prints "Using FlashInfer for top-p & top-k sampling."
    double over_gib;       ///< kvcat's pool less the printed one, as docs/engines.md states it
    double token_ratio;    ///< kvcat's tokens over the printed ones
    std::int64_t runtime;  ///< CUDA's total as the card's record gives it (memory_runtime_total)
};

// Three vLLM 0.10.1.1 starts on A100s at a share of 0.25 or 0.5, 256 sequences and 2,048 batched
// tokens. Two sample with FlashInfer, as their logs say (--flashinfer-sampler on: 12 bytes an entry
// of the logits in float32, 0.52 GiB); the third, over two nodes, has no FlashInfer and samples
// with PyTorch's sort (36 bytes an entry, 1.40 GiB). The pool is the share of CUDA's total (the card
// record's memory_runtime_total, a deviceQuery's) less the weights, the rotary table, the sampler's
// peak, NCCL's fitted 1.82 GiB a card when split and the fitted 600 MiB allowance, exactly. These
// starts took less than the allowance for all else, and no NCCL term's worth over two A100s: 0.58,
// 2.31 and 2.26 GiB under (tokens 12%, 7% and 20% under), the safe side.
TEST(VllmBudget, FitsAnswerStandsBesideRealStartsWithinTheStatedError) {
    const std::vector<RealStart> starts = {
        {"vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25", "nvidia-a100-80gb-sxm", 1, "0.25", 5.01, 93872, true, -0.58,
         0.883, 84987740160},
        {"vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-80g-0.5", "nvidia-a100-80gb-sxm", 2, "0.5", 31.83, 1192160, true,
         -2.31, 0.927, 84987740160},
        {"vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-40g-0.5", "nvidia-a100-40gb-sxm", 2, "0.5", 11.03, 412944, false,
         -2.26, 0.796, 42298834944},
    };
    test::KvcatRunner k;
    for (const RealStart& r : starts) {
        SCOPED_TRACE(r.log);
        // The log's own lines: the settings, the sampler and the figures this test compares with.
        std::string log = engine_log(r.log);
        ASSERT_TRUE(test::contains(log, fmt::format("'gpu_memory_utilization': {}", r.utilization)));
        ASSERT_TRUE(test::contains(log, fmt::format("Available KV cache memory: {:.2f} GiB", r.available_gib)));
        ASSERT_TRUE(test::contains(log, fmt::format("GPU KV cache size: {} tokens", group_thousands(r.tokens))));
        ASSERT_EQ(test::contains(log, "Using FlashInfer for top-p & top-k sampling."), r.flashinfer);
        ASSERT_EQ(test::contains(log, "FlashInfer is not available."), !r.flashinfer);
        std::vector<std::string> more = {"--gpu-memory-utilization", r.utilization, "--flashinfer-sampler",
                                         r.flashinfer ? "on" : "off"};
        test::Outcome o = k.run(
            vllm_fit("qwen2-7b-instruct", r.card, std::to_string(r.gpus), "bf16", "bf16", "0.10.1.1", "16384", more));
        ASSERT_EQ(o.status, 0) << o.err;
        nlohmann::json j = nlohmann::json::parse(o.out);
        // The sampler's peak: 256 requests over the 152,064-entry vocabulary, the logits in bf16,
        // the hidden states (2,048 + 512 rows of 3,584) and 12 or 36 bytes an entry.
        std::int64_t entry = r.flashinfer ? 12 : 36;
        std::int64_t sampler = budget_term_bytes(j, "the sampler's peak");
        EXPECT_EQ(sampler, static_cast<std::int64_t>(256 * 152064 * (entry + 2) + (2048 + 512) * 3584 * 2));
        // The share is of CUDA's total, not of nvidia-smi's 81,920 or 40,960 MiB.
        ASSERT_EQ(j["runtime_memory_bytes"].get<std::int64_t>(), r.runtime);
        EXPECT_GT(j["memory_bytes"].get<std::int64_t>(), r.runtime);
        std::int64_t weights = j["weight_bytes"].get<std::int64_t>();  // one card's
        std::int64_t share = r.utilization == "0.25" ? r.runtime / 4 : r.runtime / 2;
        std::int64_t nccl = r.gpus > 1 ? std::int64_t{1864} << 20 : 0;
        EXPECT_EQ(j["engine"]["budget_bytes"].get<std::int64_t>(),
                  share - weights - 32768 * 128 * 2 - sampler - nccl - (std::int64_t{600} << 20));
        // Beside what vLLM printed: the error docs/engines.md states for each start.
        double gib = j["engine"]["budget_bytes"].get<double>() / kGiB;
        EXPECT_NEAR(gib - r.available_gib, r.over_gib, 0.01);
        EXPECT_NEAR(j["engine_tokens"].get<double>() / static_cast<double>(r.tokens), r.token_ratio, 0.001);
    }
}

// A 0.27.1 start whose profile line splits what vLLM took off its share
// (tests/fixtures/engine-logs/vllm-0.27.1-qwen3-235b-a22b-fp8-tp4-rtx-pro-6000): kvcat's pool is
// over the printed one by the sum of the differences the line names, each stated in
// docs/engines.md: vLLM's share is of CUDA's total, 95.01 GiB, which the card's record gives from
// this very line, so the share agrees; its weights as loaded (55.19 GiB) are 0.06 GiB over kvcat's
// fp8 layers (checkpoint_layers) and the rotary table; the memory outside torch (NCCL over four
// cards without NVLink) is the rest of the "consumed" 56.89 GiB, not kvcat's fitted 1.82 GiB and
// the fitted 600 MiB allowance; and its peak activation is 0.76 GiB, not kvcat's derived sampler
// peak (32 requests and 8,192 batched tokens, the card's default: 0.13 GiB).
TEST(VllmBudget, AProfileLineNamesWhereTheFitsPoolDiffersFromARealStart) {
    std::string log = engine_log("vllm-0.27.1-qwen3-235b-a22b-fp8-tp4-rtx-pro-6000");
    ASSERT_TRUE(test::contains(log,
                               "Free memory on device (94.05/95.01 GiB) on startup. Desired GPU memory "
                               "utilization is (0.9, 85.51 GiB). Actual usage is 56.89 GiB for consumed memory "
                               "(weights + non-torch), 0.76 GiB for peak activation"));
    ASSERT_TRUE(test::contains(log, "Current kv cache memory in use is 27.85 GiB."));
    ASSERT_TRUE(test::contains(log, "GPU KV cache size: 621,392 tokens"));
    test::KvcatRunner k;
    test::Outcome o =
        k.run(vllm_fit("qwen3-235b-a22b", "nvidia-rtx-pro-6000-blackwell-server", "4", "fp8_block", "bf16", "0.27.1",
                       "32768", {"--gpu-memory-utilization", "0.90", "--max-num-seqs", "32"}));
    ASSERT_EQ(o.status, 0) << o.err;
    nlohmann::json j = nlohmann::json::parse(o.out);
    double memory = j["runtime_memory_bytes"].get<double>() / kGiB, weights = j["weight_bytes"].get<double>() / kGiB;
    EXPECT_NEAR(memory, 95.01, 0.0001);  // the record's memory_runtime_total, from this log
    double pool = j["engine"]["budget_bytes"].get<double>() / kGiB;
    // The sampler's peak kvcat derives: 32 requests (--max-num-seqs 32) over the 151,936-token vocabulary.
    double sampler = budget_term_gib(j, "the sampler's peak");
    EXPECT_NEAR(sampler, 0.13, 0.005);
    // Over four cards, the memory outside torch kvcat holds back a rank (fitted, 1,864 MiB).
    double nccl = budget_term_gib(j, "memory outside torch over several cards");
    EXPECT_DOUBLE_EQ(nccl, 1864.0 / 1024.0);
    // The rotary table kvcat counts beside the weights: 40,960 positions x 128 in bf16.
    double rotary = budget_term_gib(j, "the rotary table");
    EXPECT_DOUBLE_EQ(rotary, 40960.0 * 128 * 2 / kGiB);
    // The start's consumed memory less its weights as loaded is its memory outside torch.
    // From 0.20.0 the peak activation counts the CUDA graphs' estimate; kvcat's for 32 sequences:
    // 260 MiB and 6 MiB for each of the other 10 piecewise (sizes up to 64) and 6 full graphs.
    double graphs = budget_term_gib(j, "the CUDA graphs' estimate");
    EXPECT_DOUBLE_EQ(graphs, (260.0 + 16 * 6) / 1024);
    double share = 0.9 * memory - 85.51, loaded = 56.89 - weights - rotary - (56.89 - 55.19),
           outside = (56.89 - 55.19) - nccl - 600.0 / 1024, reserve = 0.76 - sampler - graphs;
    // Each printed figure is within 0.005 GiB of its bytes: five of them, so the sum within 0.025.
    EXPECT_NEAR(pool - 27.85, share + loaded + outside + reserve, 0.025);
    EXPECT_NEAR(share, 0.0, 0.01);
    EXPECT_NEAR(loaded, 0.06, 0.01);    // the weights as loaded, over vLLM's fp8 layers as kvcat derives them
    EXPECT_NEAR(outside, -0.71, 0.01);  // 1.70 printed against 1.82 GiB + 600 MiB held back
    EXPECT_NEAR(reserve, 0.28, 0.01);   // the forward pass's peak above the sampler's and the graphs
    // The error docs/engines.md states for this start: 0.35 GiB under, tokens 1.3% under.
    EXPECT_NEAR(pool - 27.85, -0.35, 0.01);
    EXPECT_NEAR(j["engine_tokens"].get<double>() / 621392.0, 0.987, 0.001);
}

// vLLM refuses to load Qwen3-235B-A22B's block-scaled fp8 checkpoint over eight cards: each expert's width,
// 1,536 / 8 = 192, is no whole number of its 128 x 128 blocks. fit says so in vLLM's words and
// exits 1, plan answers no for each such row and says why; with --enable-expert-parallel (as the
// 0.10.0 start in the records ran) the experts are divided whole and fit gives vLLM's layers.
TEST(VllmBudget, AnFp8SplitVllmRefusesIsRefusedInItsWordsAndExpertParallelLoadsIt) {
    const std::string words =
        "ValueError: The output_size of gate's and up's weight = 192 is not divisible by weight quantization "
        "block_n = 128.";
    test::KvcatRunner k;
    test::Outcome refused =
        k.run(vllm_fit("qwen3-235b-a22b", "nvidia-h100-sxm", "8", "fp8_block", "fp8", "0.10.0", "32768"));
    EXPECT_EQ(refused.status, 1) << refused.err;
    EXPECT_TRUE(test::contains(refused.err, "would not start with these settings: " + words)) << refused.err;
    nlohmann::json no = nlohmann::json::parse(refused.out);
    EXPECT_EQ(no["engine_refusal"], words);
    test::Outcome loads = k.run(vllm_fit("qwen3-235b-a22b", "nvidia-h100-sxm", "8", "fp8_block", "fp8", "0.10.0",
                                         "32768", {"--enable-expert-parallel"}));
    ASSERT_EQ(loads.status, 0) << loads.err;
    nlohmann::json yes = nlohmann::json::parse(loads.out);
    // vLLM's layers a card: 27.6532 GiB, where every parameter at one byte over eight is 27.3685.
    EXPECT_EQ(yes["weight_bytes"].get<std::int64_t>(), 29692619264);
    EXPECT_TRUE(test::contains(yes["weights_how"].get<std::string>(), "derived: vLLM's layers for an fp8 checkpoint"));
    test::Outcome plan = k.run({"plan", "--records", KVCAT_SOURCE_DIR "/records", "--model", "qwen3-235b-a22b",
                                "--accelerator", "nvidia-h100-sxm", "--gpus", "8", "--weights", "fp8_block,bf16",
                                "--engine", "vllm", "--kv-dtypes", "fp8", "--format", "csv"});
    EXPECT_EQ(plan.status, 0) << plan.err;  // bf16 loads and fits
    EXPECT_TRUE(test::contains(plan.out, "\nfp8_block,no,fp8,1,235093634560,,no,no,no,no,no\r\n")) << plan.out;
    EXPECT_TRUE(test::contains(plan.err, "fp8_block with fp8 and 1 slot: " + words)) << plan.err;
    EXPECT_TRUE(test::contains(plan.err, "bf16: derived: vLLM's layers as its model files build them")) << plan.err;
    // No file was given, so the last line offers none; the engine's layers are not llama-quantize's.
    EXPECT_FALSE(test::contains(plan.err, "--weight-file F")) << plan.err;
    EXPECT_FALSE(test::contains(plan.err, "sized as llama-quantize writes")) << plan.err;
    // plan takes --enable-expert-parallel as fit does: the same layers, eight cards' worth, and the
    // fit command it names for one row's every term carries the flag.
    test::Outcome ep = k.run({"plan", "--records", KVCAT_SOURCE_DIR "/records", "--model", "qwen3-235b-a22b",
                              "--accelerator", "nvidia-h100-sxm", "--gpus", "8", "--weights", "fp8_block", "--engine",
                              "vllm", "--kv-dtypes", "fp8", "--enable-expert-parallel", "--format", "csv"});
    EXPECT_EQ(ep.status, 0) << ep.err;
    EXPECT_TRUE(test::contains(ep.out, fmt::format("\nfp8_block,no,fp8,1,{},40960,", 8 * 29692619264LL))) << ep.out;
    EXPECT_TRUE(test::contains(ep.err, "--gpus 8 --engine vllm --enable-expert-parallel and its context option"))
        << ep.err;
}

// Seven starts with vLLM's defaults for a card of at least 70 GiB that is no A100 (8,192 batched
// tokens, 1,024 sequences; tests/fixtures/engine-logs): two 0.10.0 starts over eight H100 80GB
// HBM3, one 0.11.2 start on one H200, and four 0.19.0 starts on one or two H100s at a 0.95 share.
// kvcat derives the sampler's peak beside the allowance (PyTorch's sort before 0.17.0, 5.6 GiB a
// rank for Qwen3's vocabulary; in place from it) and holds back NCCL's fitted 1.82 GiB a rank when
// the model is split, and takes vLLM's share of CUDA's total (79.19 GiB on these H100s, 139.80 on
// the H200). The pool is 0.03 to 0.42 GiB under before 0.17.0 (tokens 0.1% to 0.4% under) and 0.23
// to 0.24 GiB under from it (tokens 0.4% under). Before kvcat derived the sort, the 1 GiB allowance
// alone left the three older pools 4.4 to 7.4 GiB too large. The errors
// docs/engines.md states for this term, held here so that they are restated when the rule changes.
TEST(VllmBudget, WithVllmsDefaultsForALargeCardThePoolIsWithinTheStatedError) {
    struct LargeStart {
        std::string log, model, quant, kv, card, gpus, version, context, utilization;
        std::string available;  ///< "Available KV cache memory", GiB as printed
        std::int64_t tokens;
        double over_gib, token_ratio;
        bool expert_parallel = false;  ///< the log's enable_expert_parallel
    };
    const std::vector<LargeStart> starts = {
        {"vllm-0.10.0-qwen3-32b-tp8-h100-fp8kv", "qwen3-32b", "bf16", "fp8", "nvidia-h100-sxm", "8", "0.10.0", "32768",
         "", "55.62", 3644816, -0.046, 0.999},
        {"vllm-0.10.0-qwen3-235b-a22b-fp8-tp8-ep-h100-fp8kv", "qwen3-235b-a22b", "fp8_block", "fp8", "nvidia-h100-sxm",
         "8", "0.10.0", "32768", "", "35.65", 1590736, -0.035, 0.999, true},
        {"vllm-0.11.2-llama-3-8b-instruct-h200-1024", "llama-3-8b", "bf16", "bf16", "nvidia-h200", "1", "0.11.2",
         "1024", "", "105.97", 868080, -0.42, 0.996},
        {"vllm-0.19.0-llama-3.1-8b-h100-0.95-8k", "llama-3.1-8b", "bf16", "bf16", "nvidia-h100-sxm", "1", "0.19.0",
         "8192", "0.95", "58.11", 476016, -0.24, 0.996},
        {"vllm-0.19.0-llama-3.1-8b-tp2-h100-0.95-8k", "llama-3.1-8b", "bf16", "bf16", "nvidia-h100-sxm", "2", "0.19.0",
         "8192", "0.95", "63.76", 1044688, -0.24, 0.996},
        {"vllm-0.19.0-qwen3-8b-h100-0.95-8k", "qwen3-8b", "bf16", "bf16", "nvidia-h100-sxm", "1", "0.19.0", "8192",
         "0.95", "57.5", 418688, -0.23, 0.996},
        {"vllm-0.19.0-qwen2.5-7b-h100-0.95-8k", "qwen2-7b-instruct", "bf16", "bf16", "nvidia-h100-sxm", "1", "0.19.0",
         "8192", "0.95", "58.53", 1096000, -0.23, 0.996},
    };
    test::KvcatRunner k;
    for (const LargeStart& r : starts) {
        SCOPED_TRACE(r.log);
        std::string log = engine_log(r.log);
        ASSERT_TRUE(test::contains(log, "Initializing a V1 LLM engine (v" + r.version + ")"));
        ASSERT_TRUE(test::contains(log, "tensor_parallel_size=" + r.gpus + ","));
        // The share: the default (0.9) where the arguments give none.
        ASSERT_EQ(test::contains(log, "'gpu_memory_utilization': " + r.utilization), !r.utilization.empty());
        ASSERT_FALSE(test::contains(log, "max_num_seqs':"));  // the default for the card
        ASSERT_TRUE(test::contains(log, "max_num_batched_tokens=8192"));
        ASSERT_EQ(test::contains(log, "'enable_expert_parallel': True"), r.expert_parallel);
        ASSERT_TRUE(test::contains(log, "Available KV cache memory: " + r.available + " GiB"));
        ASSERT_TRUE(test::contains(log, fmt::format("GPU KV cache size: {} tokens", group_thousands(r.tokens))));
        // The start's settings; vLLM's defaults for the rest (share, sequences, batch).
        auto fit = [&](std::vector<std::string> more) {
            if (!r.utilization.empty()) more.insert(more.end(), {"--gpu-memory-utilization", r.utilization});
            if (r.expert_parallel) more.emplace_back("--enable-expert-parallel");
            return k.run(vllm_fit(r.model, r.card, r.gpus, r.quant, r.kv, r.version, r.context, more));
        };
        test::Outcome o = fit({});
        ASSERT_EQ(o.status, 0) << o.err;
        nlohmann::json j = nlohmann::json::parse(o.out);
        EXPECT_NEAR(j["engine"]["budget_bytes"].get<double>() / kGiB - std::stod(r.available), r.over_gib, 0.01);
        EXPECT_NEAR(j["engine_tokens"].get<double>() / static_cast<double>(r.tokens), r.token_ratio, 0.001);
        // The sampler's peak is a term of its own, in the words of the sampler the release runs: none
        // of these starts samples with FlashInfer (the two 0.10.0 logs say it is not installed; from
        // 0.11.1 vLLM leaves it off unless told).
        EXPECT_FALSE(test::contains(log, "Using FlashInfer"));
        if (r.version == "0.10.0") {
            EXPECT_TRUE(test::contains(log, "FlashInfer is not available."));
        }
        bool sorts = r.version != "0.19.0";
        EXPECT_EQ(test::contains(o.out, "36 bytes an entry while PyTorch sorts them"), sorts);
        EXPECT_EQ(test::contains(o.out, "12 bytes an entry in float32"), !sorts);
        if (&r == &starts.front()) {
            // Told that vLLM samples with FlashInfer (as it would have with FlashInfer installed),
            // kvcat counts 12 bytes an entry, not the sort's 36 (asked once: each fit under CI's
            // sanitizers takes a second or two).
            test::Outcome fi = fit({"--flashinfer-sampler", "on"});
            ASSERT_EQ(fi.status, 0) << fi.err;
            nlohmann::json f = nlohmann::json::parse(fi.out);
            EXPECT_NEAR((budget_term_gib(j, "the sampler's peak") - budget_term_gib(f, "the sampler's peak")) * kGiB,
                        1024.0 * 151936 * 24, 1);
            EXPECT_TRUE(test::contains(fi.out, "FlashInfer's sampler: the copy, the masked logits")) << fi.out;
        }
    }
}

// vLLM's CUDA graphs' estimate from 0.20.0 (vllm_cuda_graph_estimate): the capture sizes are
// vLLM's rule, the two figures fitted. Beside the estimate the study's 0.19.0 starts print (the
// same code; 0.19.0 prints it and does not take it off): on one card 0.23 over to 0.40 under
// (Qwen3-30B-A3B), over two or four cards 0.27 over to 0.98 under (Llama 3.3 70B FP8 over two).
TEST(VllmBudget, TheCudaGraphsEstimateIsVllmsSizesAndTwoFittedFiguresWithinTheStatedError) {
    EngineSettings s;
    s.version = "0.20.0";
    s.max_num_seqs = 1024;
    s.max_num_batched_tokens = 8192;
    EXPECT_EQ(vllm_cuda_graph_sizes(s, false), 51);  // 1, 2, 4, 8..248 (31), 256..512 (17)
    EXPECT_EQ(vllm_cuda_graph_sizes(s, true), 51);
    EXPECT_EQ(vllm_cuda_graph_estimate(s), Rational((260 + 100 * 6) * (std::int64_t{1} << 20)));
    s.max_num_seqs = 256;
    s.max_num_batched_tokens = 2048;
    EXPECT_EQ(vllm_cuda_graph_sizes(s, false), 51);  // up to 512
    EXPECT_EQ(vllm_cuda_graph_sizes(s, true), 35);   // up to 256: 1, 2, 4, 8..248, 256
    s.max_num_seqs = 32;
    EXPECT_EQ(vllm_cuda_graph_sizes(s, false), 11);  // up to 64
    EXPECT_EQ(vllm_cuda_graph_sizes(s, true), 7);    // up to 32
    s.max_num_seqs = 1;
    EXPECT_EQ(vllm_cuda_graph_sizes(s, false), 2);  // 1, 2
    EXPECT_EQ(vllm_cuda_graph_sizes(s, true), 1);
    s.max_num_batched_tokens = 1;
    EXPECT_EQ(vllm_cuda_graph_sizes(s, false), 1);
    s.max_num_seqs = std::numeric_limits<std::int64_t>::max();  // no overflow: twice the sequences caps at 512
    s.max_num_batched_tokens = 8192;
    EXPECT_EQ(vllm_cuda_graph_sizes(s, false), 51);
    s.version = "0.19.1";
    EXPECT_FALSE(vllm_cuda_graph_estimate(s).has_value());
    s.version = "0.20.0";
    s.enforce_eager = true;  // --enforce-eager: no graphs, no estimate
    EXPECT_FALSE(vllm_cuda_graph_estimate(s).has_value());
    s.enforce_eager = false;
    s.version = "";
    EXPECT_TRUE(vllm_cuda_graph_estimate(s).has_value());
    // The printed estimates, every study start in tests/fixtures/engine-logs at vLLM's defaults for
    // the card (1,024 sequences, 8,192 batched tokens: kvcat's 0.84 GiB).
    s.max_num_seqs = 1024;
    s.max_num_batched_tokens = 8192;
    double kvcat = vllm_cuda_graph_estimate(s)->to_double() / kGiB;
    std::vector<double> one, several;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(KVCAT_SOURCE_DIR) / "tests/fixtures/engine-logs")) {
        std::string name = entry.path().filename().string();
        if (name.rfind("vllm-0.19.0-", 0) != 0 || entry.path().extension() != ".log") continue;
        std::string log = test::read_file(entry.path());
        if (!test::contains(log, "Defaulting max_num_seqs to 1024")) continue;
        if (test::contains(log, "gpt-oss")) continue;  // its model file raises the largest size to 1,024
        auto at = log.find("Estimated CUDA graph memory: ");
        if (at == std::string::npos) continue;
        double printed = std::stod(log.substr(at + 29));
        (test::contains(log, "tensor_parallel_size=1,") ? one : several).push_back(printed - kvcat);
    }
    ASSERT_EQ(one.size(), 12U);
    ASSERT_EQ(several.size(), 6U);
    auto [one_low, one_high] = std::minmax_element(one.begin(), one.end());
    auto [several_low, several_high] = std::minmax_element(several.begin(), several.end());
    EXPECT_NEAR(*one_low, -0.23, 0.005);
    EXPECT_NEAR(*one_high, 0.40, 0.005);
    EXPECT_NEAR(*several_low, -0.27, 0.005);
    EXPECT_NEAR(*several_high, 0.98, 0.005);
    // fit takes the estimate off for the newest rules, and --enforce-eager takes it away again.
    test::KvcatRunner k;
    test::Outcome graphs = k.run(vllm_fit("llama-3.1-8b", "nvidia-h100-sxm", "1", "bf16", "bf16", "", "8192"));
    test::Outcome eager =
        k.run(vllm_fit("llama-3.1-8b", "nvidia-h100-sxm", "1", "bf16", "bf16", "", "8192", {"--enforce-eager"}));
    ASSERT_EQ(graphs.status, 0) << graphs.err;
    ASSERT_EQ(eager.status, 0) << eager.err;
    nlohmann::json with = nlohmann::json::parse(graphs.out), without = nlohmann::json::parse(eager.out);
    EXPECT_NEAR(budget_term_gib(with, "the CUDA graphs' estimate"), 860.0 / 1024, 1e-9);
    EXPECT_EQ(
        without["engine"]["budget_bytes"].get<std::int64_t>() - with["engine"]["budget_bytes"].get<std::int64_t>(),
        std::int64_t{860} << 20);
}

// Fourteen more vLLM 0.19.0 starts of the same memory study (llm-d-planner, tests/fixtures/
// engine-logs, one H100 80GB HBM3 a rank, a 0.95 share, vLLM's defaults for the batch), which the
// 600 MiB allowance was not fitted to: other contexts, 2 and 4 cards, float32 weights, an fp8 cache,
// fp8 weights (quantized when loaded, and two fp8 checkpoints, one of them Llama 3.3 70B over two and
// four cards) and a mixture of experts. kvcat's pool is under every printed one, by 0.08 to 0.25
// GiB (tokens 0.2% to 1.4% under). Two of them moved kvcat's rules, both to vLLM's code and not to
// a fitted figure: the float32 start's sampler and rotary table are in float32 (checkpoint_float_dtype;
// 0.11 GiB over before), and Qwen3-30B-A3B's experts keep their workspace beside the sampler
// (vllm_moe_workspace; 0.29 GiB over before).
TEST(VllmBudget, HeldOutStartsOfTheSameStudyAreUnderThePrintedPoolByTheStatedError) {
    struct Start {
        std::string log, model, quant, kv, gpus, context;
        std::string available;  ///< "Available KV cache memory", GiB as printed
        std::int64_t tokens;
        double over_gib, token_ratio;
    };
    const std::vector<Start> starts = {
        {"vllm-0.19.0-llama-3.1-8b-h100-0.95-2k", "llama-3.1-8b", "bf16", "bf16", "1", "2048", "58.11", 476016, -0.245,
         0.9958},
        {"vllm-0.19.0-llama-3.1-8b-h100-0.95-32k", "llama-3.1-8b", "bf16", "bf16", "1", "32768", "58.11", 476016,
         -0.245, 0.9958},
        {"vllm-0.19.0-llama-3.1-8b-tp4-h100-0.95-8k", "llama-3.1-8b", "bf16", "bf16", "4", "8192", "67.44", 2209792,
         -0.177, 0.9974},
        {"vllm-0.19.0-llama-3.1-8b-f32-h100-0.95-8k", "llama-3.1-8b", "f32", "f32", "1", "8192", "42.8", 175296, -0.246,
         0.9942},
        {"vllm-0.19.0-llama-3.1-8b-fp8kv-h100-0.95-8k", "llama-3.1-8b", "bf16", "fp8", "1", "8192", "58.11", 952032,
         -0.245, 0.9958},
        {"vllm-0.19.0-llama-3.1-8b-qfp8-h100-0.95-8k", "llama-3.1-8b", "fp8", "bf16", "1", "8192", "64.61", 529248,
         -0.245, 0.9963},
        {"vllm-0.19.0-qwen2.5-7b-h100-0.95-32k", "qwen2-7b-instruct", "bf16", "bf16", "1", "32768", "58.53", 1096000,
         -0.233, 0.9960},
        {"vllm-0.19.0-qwen2.5-7b-tp2-h100-0.95-8k", "qwen2-7b-instruct", "bf16", "bf16", "2", "8192", "63.84", 2390592,
         -0.236, 0.9964},
        {"vllm-0.19.0-qwen2.5-7b-tp4-h100-0.95-8k", "qwen2-7b-instruct", "bf16", "bf16", "4", "8192", "67.34", 5043280,
         -0.169, 0.9976},
        {"vllm-0.19.0-qwen2.5-7b-fp8kv-h100-0.95-8k", "qwen2-7b-instruct", "bf16", "fp8", "1", "8192", "58.53", 2192000,
         -0.233, 0.9960},
        {"vllm-0.19.0-qwen2.5-7b-fp8-dynamic-h100-0.95-8k", "qwen2-7b-instruct", "fp8", "bf16", "1", "8192", "64.64",
         1210304, -0.210, 0.9968},
        {"vllm-0.19.0-qwen3-30b-a3b-h100-0.95-8k", "qwen3-30b-a3b", "bf16", "bf16", "1", "8192", "15.41", 168288,
         -0.214, 0.9862},
        {"vllm-0.19.0-llama-3.3-70b-fp8-dynamic-tp2-h100-0.95-8k", "llama-3.3-70b", "fp8", "bf16", "2", "8192", "37.28",
         244304, -0.190, 0.9950},
        {"vllm-0.19.0-llama-3.3-70b-fp8-dynamic-tp4-h100-0.95-8k", "llama-3.3-70b", "fp8", "bf16", "4", "8192", "54.09",
         708992, -0.084, 0.9984},
    };
    test::KvcatRunner k;
    for (const Start& r : starts) {
        SCOPED_TRACE(r.log);
        std::string log = engine_log(r.log);
        ASSERT_TRUE(test::contains(log, "Initializing a V1 LLM engine (v0.19.0)"));
        ASSERT_TRUE(test::contains(log, "tensor_parallel_size=" + r.gpus + ","));
        ASSERT_TRUE(test::contains(log, "'gpu_memory_utilization': 0.95"));
        ASSERT_TRUE(test::contains(log, "'max_model_len': " + r.context));
        ASSERT_TRUE(test::contains(log, "Defaulting max_num_seqs to 1024"));
        ASSERT_TRUE(test::contains(log, "total_memory=79.19GiB"));
        ASSERT_TRUE(test::contains(log, "Available KV cache memory: " + r.available + " GiB"));
        ASSERT_TRUE(test::contains(log, fmt::format("GPU KV cache size: {} tokens", group_thousands(r.tokens))));
        test::Outcome o = k.run(vllm_fit(r.model, "nvidia-h100-sxm", r.gpus, r.quant, r.kv, "0.19.0", r.context,
                                         {"--gpu-memory-utilization", "0.95"}));
        ASSERT_EQ(o.status, 0) << o.err;
        nlohmann::json j = nlohmann::json::parse(o.out);
        double over = j["engine"]["budget_bytes"].get<double>() / kGiB - std::stod(r.available);
        EXPECT_NEAR(over, r.over_gib, 0.005);
        EXPECT_LT(over, 0.0);
        EXPECT_NEAR(j["engine_tokens"].get<double>() / static_cast<double>(r.tokens), r.token_ratio, 0.0005);
    }
}

// The sampler's peak kvcat derives (vllm_sampler_peak), beside the torch peak increase five vLLM
// 0.19.0 starts print in their DEBUG profile line (tests/fixtures/engine-logs; 8,192 batched tokens
// and 1,024 sequences, vLLM's defaults on an H100): under each by 0.09 to 0.14 GiB (0.099 to 0.130
// from the printed hundredths), of which the float32 buffer of one row per SM (132 on an H100)
// that kvcat does not count is 0.06 to 0.10.
// docs/engines.md states this error.
TEST(VllmBudget, TheSamplersPeakIsUnderEachPrintedTorchPeakByTheStatedError) {
    struct Start {
        std::string log, model, peak;
    };
    const std::vector<Start> starts = {
        {"vllm-0.19.0-llama-3.1-8b-h100-0.95-8k", "models/llama-3.1-8b", "1.89"},
        {"vllm-0.19.0-llama-3.1-8b-tp2-h100-0.95-8k", "models/llama-3.1-8b", "1.89"},
        {"vllm-0.19.0-qwen3-8b-h100-0.95-8k", "models/qwen3-8b", "2.21"},
        {"vllm-0.19.0-qwen2.5-7b-h100-0.95-8k", "models/qwen2-7b-instruct", "2.21"},
        {"vllm-0.19.0-gpt-oss-20b-tp2-h100-8k", "models/gpt-oss-20b", "2.87"},
    };
    for (const Start& r : starts) {
        SCOPED_TRACE(r.log);
        std::string log = engine_log(r.log);
        ASSERT_TRUE(test::contains(log, "Initializing a V1 LLM engine (v0.19.0)"));
        ASSERT_TRUE(test::contains(log, "max_num_batched_tokens=8192"));
        ASSERT_FALSE(test::contains(log, "max_num_seqs':"));  // the card's default, 1,024
        ASSERT_TRUE(test::contains(log, "torch peak memory increase: " + r.peak + "GiB"));
        const Model& m = test::shipped_model(r.model);
        ASSERT_TRUE(m.tensors.has_value());
        FitTerms t = model_terms(m);
        EngineSettings s;
        s.version = "0.19.0";
        s.max_num_batched_tokens = 8192;
        s.max_num_seqs = kVllmLargeCardMaxNumSeqs;
        std::optional<Rational> peak = vllm_sampler_peak(s, t);
        ASSERT_TRUE(peak.has_value());
        double under = std::stod(r.peak) - peak->to_double() / kGiB;
        EXPECT_GE(under, 0.09);
        EXPECT_LE(under, 0.14);
        // Before 0.17.0 PyTorch's sampler sorts: 24 bytes more an entry of the n x vocab logits.
        // FlashInfer's holds what the in-place one does; without the model's widths, nothing.
        s.version = "0.16.0";
        std::optional<Rational> sorting = vllm_sampler_peak(s, t);
        ASSERT_TRUE(sorting.has_value());
        EXPECT_EQ(*sorting - *peak, Rational(1024) * Rational(t.vocab_size) * Rational(24));
        s.flashinfer_sampler = true;
        EXPECT_EQ(vllm_sampler_peak(s, t), peak);
        s.flashinfer_sampler.reset();
        s.version = "0.19.0";
        EXPECT_FALSE(vllm_sampler_peak(s, FitTerms{}).has_value());
    }
}

// The term's bytes, one by one, for a small made-up model: the hidden states of N + 2n rows, the
// logits over the vocabulary padded to 64 in the model's dtype, and 12 bytes an entry in float32.
TEST(VllmBudget, TheSamplersPeakIsItsThreeTermsToTheByte) {
    FitTerms t;
    t.vocab_size = 1000;  // padded to 1024
    t.hidden_size = 64;
    EngineSettings s;  // the newest rules: the in-place sampler
    s.max_num_batched_tokens = 512;
    s.max_num_seqs = 16;
    EXPECT_EQ(vllm_sampler_peak(s, t), Rational((512 + 2 * 16) * 64 * 2 + 16 * 1024 * 2 + 16 * 1000 * 12));
    s.max_num_seqs = 4096;  // more sequences than batched tokens: n is the tokens
    EXPECT_EQ(vllm_sampler_peak(s, t), Rational((512 + 2 * 512) * 64 * 2 + 512 * 1024 * 2 + 512 * 1000 * 12));
    s.model_dtype = "float32";
    EXPECT_EQ(vllm_sampler_peak(s, t), Rational((512 + 2 * 512) * 64 * 4 + 512 * 1024 * 4 + 512 * 1000 * 12));
    // Before 0.17.0, 36 bytes an entry while PyTorch sorts the logits.
    EngineSettings sorting = s;
    sorting.version = "0.16.0";
    EXPECT_EQ(vllm_sampler_peak(sorting, t), Rational((512 + 2 * 512) * 64 * 4 + 512 * 1024 * 4 + 512 * 1000 * 36));
    sorting.version = "0.17.0";
    EXPECT_EQ(vllm_sampler_peak(sorting, t), vllm_sampler_peak(s, t));
    // PyTorch sorts fewer than 128 rows (but more than one) all at once and then by row: 48 bytes
    // an entry. From 0.17.0 it still sorts fewer than 8 rows, which the in-place kernel does not take.
    EngineSettings few = s;
    few.model_dtype = "bfloat16";
    few.version = "0.16.0";
    auto peak_at = [&](std::int64_t seqs) {
        few.max_num_seqs = seqs;
        return vllm_sampler_peak(few, t);
    };
    EXPECT_EQ(peak_at(127), Rational((512 + 2 * 127) * 64 * 2 + 127 * 1024 * 2 + 127 * 1000 * 48));
    EXPECT_EQ(peak_at(128), Rational((512 + 2 * 128) * 64 * 2 + 128 * 1024 * 2 + 128 * 1000 * 36));
    EXPECT_EQ(peak_at(2), Rational((512 + 2 * 2) * 64 * 2 + 2 * 1024 * 2 + 2 * 1000 * 48));
    EXPECT_EQ(peak_at(1), Rational((512 + 2) * 64 * 2 + 1024 * 2 + 1000 * 36));
    few.version = "0.19.0";
    EXPECT_EQ(peak_at(7), Rational((512 + 2 * 7) * 64 * 2 + 7 * 1024 * 2 + 7 * 1000 * 48));
    EXPECT_EQ(peak_at(8), Rational((512 + 2 * 8) * 64 * 2 + 8 * 1024 * 2 + 8 * 1000 * 12));
    few.flashinfer_sampler = true;  // FlashInfer's takes any batch as it is
    EXPECT_EQ(peak_at(7), Rational((512 + 2 * 7) * 64 * 2 + 7 * 1024 * 2 + 7 * 1000 * 12));
    // Which sampler: PyTorch's (sorting, then in place) until 0.20.2, FlashInfer's from it and for
    // the newest rules; --flashinfer-sampler overrides vLLM's default either way.
    EngineSettings which;
    which.version = "0.16.0";
    EXPECT_EQ(vllm_sampler(which), VllmSampler::sorting);
    which.version = "0.20.1";
    EXPECT_EQ(vllm_sampler(which), VllmSampler::in_place);
    which.max_num_seqs = 7;  // too few rows for the in-place kernel
    EXPECT_EQ(vllm_sampler(which), VllmSampler::sorting);
    which.max_num_seqs.reset();
    which.version = "0.20.2";
    EXPECT_EQ(vllm_sampler(which), VllmSampler::flashinfer);
    which.version = "";
    EXPECT_EQ(vllm_sampler(which), VllmSampler::flashinfer);
    which.flashinfer_sampler = false;
    EXPECT_EQ(vllm_sampler(which), VllmSampler::in_place);
    which.version = "0.10.0";
    EXPECT_EQ(vllm_sampler(which), VllmSampler::sorting);
    which.flashinfer_sampler = true;
    EXPECT_EQ(vllm_sampler(which), VllmSampler::flashinfer);
    // Batched tokens beyond 2^31 - 1 are refused in words, not left to overflow.
    EngineSettings huge = s;
    huge.max_num_batched_tokens = std::int64_t{3} << 40;
    try {
        (void)vllm_sampler_peak(huge, t);
        ADD_FAILURE() << "no refusal";
    } catch (const EngineError& e) {
        EXPECT_TRUE(test::contains(e.what(),
                                   "max_num_batched_tokens of 3298534883328: kvcat works vLLM's profiling "
                                   "run out for at most 2147483647 tokens"))
            << e.what();
    }
    // In the budget: a term of its own between the weights and the allowance, and none once
    // --reserve-gib is given (it then stands for all vLLM takes beside the weights).
    t.memory = Rational(std::int64_t{80} << 30);
    t.reserve = Rational(std::int64_t{1} << 30);
    EngineBudget b = vllm_budget(s, t);
    ASSERT_EQ(b.terms.size(), 5U);  // with the CUDA graphs' estimate of the newest rules
    EXPECT_EQ(b.terms[2].name, "the sampler's peak");
    EXPECT_EQ(b.terms[2].bytes, Rational(0) - *vllm_sampler_peak(s, t));
    EXPECT_EQ(b.available,
              b.terms[0].bytes + b.terms[1].bytes + b.terms[2].bytes + b.terms[3].bytes + b.terms[4].bytes);
    t.reserve_given = true;
    b = vllm_budget(s, t);
    EXPECT_EQ(b.terms.size(), 3U);
    EXPECT_EQ(b.available, Rational(std::int64_t{80} << 30) * Rational(92, 100) - Rational(std::int64_t{1} << 30));
}

// NCCL's memory outside torch over several cards (kTensorParallelNonTorchBytes, fitted): a
// term of its own beside the sampler's peak when the model is split, in every release; none on
// one card, without a sampler peak (a model record without its widths: the allowance stands for
// the whole there) or once --reserve-gib is given.
TEST(VllmBudget, NcclsMemoryIsHeldBackOnEachCardOnlyWhenTheModelIsSplitBesideTheSampler) {
    FitTerms t;
    t.vocab_size = 1000;
    t.hidden_size = 64;
    t.memory = Rational(std::int64_t{80} << 30);
    t.reserve = Rational(std::int64_t{1} << 30);
    EngineSettings s;
    s.max_num_batched_tokens = 512;
    s.max_num_seqs = 16;
    auto names = [](const EngineBudget& b) {
        std::vector<std::string> out;
        for (const auto& term : b.terms) out.push_back(term.name);
        return out;
    };
    EngineBudget one = vllm_budget(s, t);
    s.gpus = 2;
    EngineBudget two = vllm_budget(s, t);
    EXPECT_EQ(names(two), (std::vector<std::string>{"the card x gpu_memory_utilization", "weights",
                                                    "the sampler's peak", "memory outside torch over several cards",
                                                    "the CUDA graphs' estimate", "non-torch and the rest"}));
    EXPECT_EQ(two.terms[3].bytes, Rational(-(std::int64_t{1864} << 20)));
    EXPECT_EQ(one.available - two.available, Rational(std::int64_t{1864} << 20));
    EXPECT_TRUE(test::contains(two.terms[3].how, "fitted: NCCL and the all-reduce buffers on each of the 2 cards"));
    s.version = "0.16.0";  // PyTorch's sort: both terms (and no CUDA graphs before 0.20.0)
    EXPECT_EQ(names(vllm_budget(s, t)),
              (std::vector<std::string>{"the card x gpu_memory_utilization", "weights", "the sampler's peak",
                                        "memory outside torch over several cards", "non-torch and the rest"}));
    FitTerms bare = t;  // no widths, no sampler term: the allowance stands for the whole
    bare.vocab_size = 0;
    EXPECT_EQ(vllm_budget(s, bare).terms.size(), 3U);
    s.version = "";
    t.reserve_given = true;  // --reserve-gib: all vLLM takes beside the weights
    EXPECT_EQ(vllm_budget(s, t).terms.size(), 3U);
}

// vLLM's rotary table (vllm_rotary_table): max_position_embeddings x head_dim in the model's dtype
// for the architectures whose model file rotates the whole head, right after the weights and
// whether or not --reserve-gib is given (it is part of what loading took); none for another
// architecture or without the figures.
TEST(VllmBudget, TheRotaryTableIsThePositionsTimesTheHeadWidthInTheModelsDtype) {
    FitTerms t;
    t.arch = "llama";
    t.native_context = 131072;
    t.head_dim = 128;
    EngineSettings s;
    EXPECT_EQ(vllm_rotary_table(s, t), Rational(131072 * 128 * 2));
    s.model_dtype = "float32";
    EXPECT_EQ(vllm_rotary_table(s, t), Rational(131072 * 128 * 4));
    s.model_dtype = "";
    for (const char* arch : {"qwen2", "qwen3", "qwen3moe"}) {
        t.arch = arch;
        EXPECT_EQ(vllm_rotary_table(s, t), Rational(131072 * 128 * 2)) << arch;
    }
    for (const char* arch : {"gemma3", "glm4", "gpt-oss", "qwen35", "llama4", ""}) {
        t.arch = arch;
        EXPECT_EQ(vllm_rotary_table(s, t), std::nullopt) << arch;
    }
    t.arch = "qwen3";
    t.head_dim = 0;
    EXPECT_EQ(vllm_rotary_table(s, t), std::nullopt);
    t.head_dim = 128;
    t.memory = Rational(std::int64_t{80} << 30);
    t.reserve = Rational(std::int64_t{1} << 30);
    t.reserve_given = true;
    EngineBudget b = vllm_budget(s, t);
    ASSERT_EQ(b.terms.size(), 4U);
    EXPECT_EQ(b.terms[2].name, "the rotary table");
    EXPECT_EQ(b.terms[2].bytes, Rational(-131072 * 128 * 2));
    EXPECT_EQ(b.available, b.terms[0].bytes + b.terms[1].bytes + b.terms[2].bytes + b.terms[3].bytes);
}

// "Model loading took" at vLLM 0.19.0 (tests/fixtures/engine-logs) against kvcat fit's weights
// and rotary table, both one card's: Llama 3.1 8B's 8,030,261,248 parameters in bf16 and a table of
// 131,072 x 128, Qwen3-8B's 8,190,735,360 and 40,960 x 128, each to the printed hundredth of a
// GiB, on one card and a rank of two. Qwen2's loads are 0.06 GiB above what kvcat counts, not
// explained (docs/engines.md).
TEST(VllmBudget, TheWeightsAndTheRotaryTableAreWhatLoadingTookToThePrintedHundredth) {
    struct Load {
        std::string log, model, gpus, printed;
    };
    const std::vector<Load> loads = {
        {"vllm-0.19.0-llama-3.1-8b-h100-0.95-8k", "llama-3.1-8b", "1", "14.99"},
        {"vllm-0.19.0-llama-3.1-8b-tp2-h100-0.95-8k", "llama-3.1-8b", "2", "7.51"},
        {"vllm-0.19.0-qwen3-8b-h100-0.95-8k", "qwen3-8b", "1", "15.27"},
    };
    test::KvcatRunner k;
    for (const Load& l : loads) {
        SCOPED_TRACE(l.log);
        std::string log = engine_log(l.log);
        ASSERT_TRUE(test::contains(log, "Model loading took " + l.printed + " GiB memory"));
        test::Outcome o = k.run(vllm_fit(l.model, "nvidia-h100-sxm", l.gpus, "bf16", "bf16", "0.19.0", "8192"));
        ASSERT_EQ(o.status, 0) << o.err;
        nlohmann::json j = nlohmann::json::parse(o.out);
        double loaded = budget_term_gib(j, "weights") + budget_term_gib(j, "the rotary table");
        EXPECT_EQ(fmt::format("{:.2f}", loaded), l.printed);
    }
}

TEST(VllmBudget, AShareOutsideZeroToOneIsRefusedInWords) {
    test::KvcatRunner k;
    for (const char* bad : {"0", "1.5", "-0.2", "most"}) {
        test::Outcome o = k.run({"fit", "--records", KVCAT_SOURCE_DIR "/records", "--model", "qwen2-7b-instruct",
                                 "--accelerator", "nvidia-a100-80gb-sxm", "--weight-quant", "bf16", "--kv-dtype",
                                 "bf16", "--engine", "vllm", "--gpu-memory-utilization", bad});
        EXPECT_EQ(o.status, 2) << bad;
        EXPECT_TRUE(test::contains(o.err, "--gpu-memory-utilization must be a fraction above 0 and at most 1"))
            << o.err;
    }
}

TEST(SglangBudget, WithAShareItIsTheShareLessTheWeightsAndTheReserveAndWithoutTheCardLessThem) {
    FitTerms t = card(1000, 300, 50);
    EngineSettings s;
    const EngineRules& sglang = rules_of(Engine::sglang);
    EXPECT_EQ(sglang.budget(s, t).available, Rational(1000 - 300 - 50));
    s.mem_fraction_static = Rational(93, 100);
    // With a share, the CUDA context is kvcat's fitted figure, not the reserve; given, the reserve
    // stands for all the process holds.
    t.memory = Rational(4000LL << 20);
    Rational share = Rational(4000LL << 20) * Rational(93, 100);
    EngineBudget b = sglang.budget(s, t);
    EXPECT_EQ(b.available, share - Rational(300) - Rational(kTorchContextBytes));
    ASSERT_EQ(b.terms.size(), 3U);
    EXPECT_EQ(b.terms[0].name, "the card x mem_fraction_static");
    EXPECT_EQ(b.terms[0].bytes, share);
    EXPECT_EQ(b.terms[2].name, "CUDA context");
    EXPECT_EQ(b.terms[2].bytes, Rational(-kTorchContextBytes));
    // CUDA's total where the card's record gives it, not the driver's.
    t.runtime_memory = Rational(3000LL << 20);
    t.runtime_memory_how = "CUDA's total, 3000 MiB";
    b = sglang.budget(s, t);
    EXPECT_EQ(b.terms[0].bytes, Rational(3000LL << 20) * Rational(93, 100));
    EXPECT_TRUE(test::contains(b.terms[0].how, "0.93 of CUDA's total, 3000 MiB")) << b.terms[0].how;
    t.runtime_memory.reset();
    // Split over cards, NCCL's fitted memory a card is a term of its own after the weights, as
    // vLLM's; none once --reserve-gib is given (it then stands for all the process holds).
    s.gpus = 4;
    b = sglang.budget(s, t);
    ASSERT_EQ(b.terms.size(), 4U);
    EXPECT_EQ(b.terms[2].name, "memory outside torch over several cards");
    EXPECT_EQ(b.terms[2].bytes, Rational(-kTensorParallelNonTorchBytes));
    EXPECT_EQ(b.available,
              share - Rational(300) - Rational(kTorchContextBytes) - Rational(kTensorParallelNonTorchBytes));
    t.reserve_given = true;
    b = sglang.budget(s, t);
    EXPECT_EQ(b.terms.size(), 3U);
    EXPECT_EQ(b.available, share - Rational(300 + 50));
}

TEST(SglangBudget, FitsPoolStandsBesideARealStartWithinTheStatedError) {
    // tests/fixtures/engine-logs/sglang-qwen3-235b-a22b-fp8-tp4-h100-0.93: four H100 80GB,
    // --tp 4 --mem-fraction-static 0.93, "KV Cache is allocated. #tokens: 367404".
    std::string log = engine_log("sglang-qwen3-235b-a22b-fp8-tp4-h100-0.93");
    ASSERT_TRUE(test::contains(log, "#tokens: 367404"));
    test::KvcatRunner k;
    test::Outcome o =
        k.run({"fit", "--records", KVCAT_SOURCE_DIR "/records", "--model", "qwen3-235b-a22b", "--accelerator",
               "nvidia-h100-sxm", "--gpus", "4", "--weight-quant", "fp8_block", "--kv-dtype", "bf16", "--engine",
               "sglang", "--mem-fraction-static", "0.93", "--format", "json"});
    ASSERT_EQ(o.status, 0) << o.err;
    nlohmann::json j = nlohmann::json::parse(o.out);
    // SGLang's share is of CUDA's total, the 79.19 GiB the H100 record gives (memory_runtime_total).
    std::int64_t memory = j["runtime_memory_bytes"].get<std::int64_t>();
    EXPECT_EQ(memory, 85029615042);
    std::int64_t weights = j["weight_bytes"].get<std::int64_t>();  // one card's
    EXPECT_EQ(
        j["engine"]["budget_bytes"].get<std::int64_t>(),
        (Rational(memory) * Rational(93, 100)).floor() - weights - kTorchContextBytes - kTensorParallelNonTorchBytes);
    // The weights are SGLang's layers for the block-scaled checkpoint, 55.12 GiB a card.
    EXPECT_TRUE(test::contains(j["weights_how"].get<std::string>(), "derived: SGLang's layers for an fp8 checkpoint"));
    EXPECT_NEAR(static_cast<double>(weights) / kGiB, 55.12, 0.005);
    // docs/engines.md: the pool 0.26 GiB under the 16.46 GiB of K and V SGLang printed, tokens 1.6%
    // under, beside NCCL's fitted 1.82 GiB a card and the fitted 512 MiB CUDA context. Without the
    // NCCL term (and with nvidia-smi's total and a 1 GiB reserve) it was 1.49 GiB over, tokens 9.0% over.
    double pool = j["engine"]["budget_bytes"].get<double>() / kGiB;
    EXPECT_NEAR(pool - 2 * 8.23, -0.26, 0.01);
    EXPECT_NEAR(j["engine_tokens"].get<double>() / 367404.0, 0.984, 0.001);
}

}  // namespace
}  // namespace kvcat
