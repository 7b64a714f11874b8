#include "model/physics.h"

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"
#include "check/lint.h"
#include "model/kv_math.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

LintResult shipped_lint() {
    return lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
}

const Model& model(const LintResult& r, const std::string& id) {
    return *r.records.find(id)->model;
}
const Accelerator& accelerator(const LintResult& r, const std::string& id) {
    return *r.records.find(id)->accelerator;
}

TEST(WeightQuant, BlockFormatsAreExact) {
    EXPECT_EQ(find_weight_quant("Q4_K")->bits_per_weight(), Rational(9, 2));
    EXPECT_EQ(find_weight_quant("q4_k")->bits_per_weight(), Rational(9, 2));  // as people type it
    EXPECT_EQ(find_weight_quant("Q8_0")->bits_per_weight(), Rational(17, 2));
    EXPECT_EQ(find_weight_quant("Q6_K")->bits_per_weight(), Rational(105, 16));  // 6.5625
    EXPECT_EQ(find_weight_quant("Q5_K")->bits_per_weight(), Rational(11, 2));
    EXPECT_EQ(find_weight_quant("Q3_K")->bits_per_weight(), Rational(55, 16));  // 3.4375
    EXPECT_EQ(find_weight_quant("Q2_K")->bits_per_weight(), Rational(21, 8));   // 2.625
    EXPECT_EQ(find_weight_quant("bf16")->bytes_per_weight(), Rational(2));
    EXPECT_FALSE(find_weight_quant("Q4_K_M"));  // a mixed recipe has no single exact size
}

TEST(Fit, Qwen35On3090TakesTheDriversMemory) {
    LintResult r = shipped_lint();
    const Accelerator& card = accelerator(r, "accelerators/nvidia-rtx-3090");
    FitTerms t = fit_context(model(r, "models/qwen3.5-27b"), card, *find_weight_quant("Q4_K"),
                             *find_cache_dtype("bf16"), 1, kDefaultReserveBytes);
    // nvidia-smi's 24576 MiB, not the nameplate's 24 x 10^9 bytes.
    constexpr std::int64_t kCard = 24576LL << 20;
    EXPECT_EQ(t.memory, Rational(kCard));
    EXPECT_EQ(t.memory, Rational(25769803776LL));
    EXPECT_EQ(t.memory_how, "nvidia-smi's total, 24,576 MiB");
    EXPECT_EQ(t.weights, Rational(15187500000LL));  // 27e9 x 4.5 / 8
    EXPECT_EQ(t.fixed_state, Rational(156893184));
    EXPECT_EQ(t.available, Rational(kCard - 15187500000LL - 156893184 - (1LL << 30)));
    EXPECT_EQ(t.growing_per_token, Rational(65536));
    EXPECT_EQ(t.max_context, (kCard - 15187500000LL - 156893184 - (1LL << 30)) / 65536);
    EXPECT_GT(t.max_context, 65536);  // seed 004 measured 64k on this card
    auto j = fit_json(t, "models/qwen3.5-27b", "accelerators/nvidia-rtx-3090", *find_weight_quant("Q4_K"),
                      *find_cache_dtype("bf16"));
    EXPECT_EQ(j["max_context"], t.max_context);
    EXPECT_EQ(j["memory_bytes"], kCard);
    EXPECT_EQ(j["memory_how"], "nvidia-smi's total, 24,576 MiB");
    EXPECT_EQ(j["weight_bytes"], 15187500000LL);
    EXPECT_EQ(j["reserve_bytes"], 1LL << 30);
    std::string text = fit_text(t, "models/qwen3.5-27b", "accelerators/nvidia-rtx-3090", *find_weight_quant("Q4_K"),
                                *find_cache_dtype("bf16"));
    EXPECT_NE(text.find("142,695 tokens"), std::string::npos) << text;
    EXPECT_NE(text.find("(nvidia-smi's total, 24,576 MiB)"), std::string::npos) << text;
}

TEST(Fit, ACardWithoutADriverFigureTakesTheNameplateAndSaysSo) {
    Accelerator card;
    card.memory_gb_exact = Rational(24);
    EXPECT_EQ(memory_bytes(card), Rational(24000000000LL));
    EXPECT_EQ(memory_how(card), "the vendor's GB x 10^9; no driver figure on record");
    card.memory_reported = ReportedMemory{Rational(49814, 100), "MB", 498140000, "metal", "a line"};
    EXPECT_EQ(memory_bytes(card), Rational(498140000));
    EXPECT_EQ(memory_how(card), "Metal's recommendedMaxWorkingSetSize, 498.14 MB");
}

TEST(Fit, EveryShippedAcceleratorGivesItsDriversFigure) {
    LintResult r = shipped_lint();
    std::vector<std::string> without;
    std::size_t cards = 0;
    for (const auto& rec : r.records.records()) {
        if (!rec.accelerator) continue;
        ++cards;
        if (!rec.accelerator->memory_reported) without.push_back(rec.id);
    }
    EXPECT_EQ(cards, 24u);
    std::sort(without.begin(), without.end());
    // Every card carries the total its driver or runtime printed (the M4 Max's since the stop
    // that found a Metal line of it; its notes say how its memory configuration is known).
    EXPECT_EQ(without, std::vector<std::string>{});
}

TEST(Fit, BatchMultipliesCacheAndState) {
    LintResult r = shipped_lint();
    const Model& m = model(r, "models/qwen3.5-27b");
    const Accelerator& a = accelerator(r, "accelerators/nvidia-rtx-3090");
    FitTerms one = fit_context(m, a, *find_weight_quant("Q4_K"), *find_cache_dtype("bf16"), 1, kDefaultReserveBytes);
    FitTerms two = fit_context(m, a, *find_weight_quant("Q4_K"), *find_cache_dtype("bf16"), 2, kDefaultReserveBytes);
    EXPECT_EQ(two.growing_per_token, Rational(131072));
    EXPECT_EQ(two.fixed_state, Rational(2 * 156893184));
    EXPECT_LT(two.max_context, one.max_context / 2 + 1);
}

TEST(Fit, SlidingLayersCostAWindowOnly) {
    Model g;
    g.attention_variant = "sliding";
    g.num_layers = 62;
    g.attention_heads = 32;
    g.kv_heads = 16;
    g.head_dim = 128;
    g.kv_layers.count = 10;
    g.sliding = SlidingShape{1024, 52};
    g.total_params_b_exact = Rational(27);
    g.active_params_b_exact = Rational(27);
    Accelerator a;
    a.memory_gb_exact = Rational(80);
    FitTerms t = fit_context(g, a, *find_weight_quant("bf16"), *find_cache_dtype("bf16"), 1, Rational(0));
    // 80e9 - 54e9 = 26e9 bytes; the 52 sliding layers hold 52 x 8,192 x 1,024 bytes, the rest grows at 81,920.
    Rational expected = (Rational(26000000000LL) - Rational(52LL * 8192 * 1024)) / Rational(81920);
    EXPECT_EQ(t.max_context, expected.floor());
    EXPECT_EQ(t.sliding_per_token, Rational(52 * 8192));
}

TEST(Fit, WeightsThatDoNotFitGiveZero) {
    LintResult r = shipped_lint();
    Model big = model(r, "models/qwen3.5-27b");
    big.total_params_b_exact = Rational(70);
    FitTerms t = fit_context(big, accelerator(r, "accelerators/nvidia-rtx-3090"), *find_weight_quant("bf16"),
                             *find_cache_dtype("bf16"), 1, kDefaultReserveBytes);
    EXPECT_EQ(t.max_context, 0);
}

TEST(Roofline, SeedFourCeiling) {
    LintResult r = shipped_lint();
    Roofline roof = decode_roofline(model(r, "models/qwen3.5-27b"), accelerator(r, "accelerators/nvidia-rtx-3090"),
                                    *find_weight_quant("Q4_K"), Rational(65536LL * 65536));
    // 936e9 / (15,187,500,000 + 4,294,967,296 + 156,893,184)
    EXPECT_EQ(roof.ceiling_tps, Rational(936000000000LL) / Rational(15187500000LL + 4294967296LL + 156893184LL));
    EXPECT_EQ(two_decimals(roof.ceiling_tps), "47.66");
    EXPECT_LT(Rational(288, 10), roof.ceiling_tps);  // the measured 28.8 is physically possible
}

TEST(Roofline, MixtureOfExpertsReadsItsActiveWeightsOnly) {
    // Qwen3.5-35B-A3B: 35B parameters in all, 3B active per token. Decoding reads the 3B;
    // the memory holds the 35B. fp8 weights are one byte each; at 64k the fp8 cache is
    // 10 layers x 2 kv heads x 256 x 2 x 1 byte = 10,240 B/token.
    LintResult r = shipped_lint();
    const Model& moe = model(r, "models/qwen3.5-35b-a3b");
    const Accelerator& h100 = accelerator(r, "accelerators/nvidia-h100-sxm");
    const WeightQuant fp8 = *find_weight_quant("fp8");  // a copy: the optional it comes from is a temporary
    const Rational kv = Rational(65536LL * 10240);
    Roofline roof = decode_roofline(moe, h100, fp8, kv);
    EXPECT_EQ(roof.bandwidth, Rational(3350000000000LL));
    EXPECT_EQ(roof.weights, Rational(3000000000LL));  // active, not the 35,000,000,000 of all experts
    EXPECT_EQ(roof.kv, kv);
    EXPECT_EQ(roof.fixed_state, fixed_state_bytes(moe));
    EXPECT_EQ(roof.ceiling_tps, Rational(3350000000000LL) / (Rational(3000000000LL) + kv + fixed_state_bytes(moe)));
    const Rational if_all_were_read =
        Rational(3350000000000LL) / (Rational(35000000000LL) + kv + fixed_state_bytes(moe));
    EXPECT_GT(roof.ceiling_tps, Rational(8) * if_all_were_read);
    // The memory the weights take is the total.
    EXPECT_EQ(resident_weight_bytes(moe, fp8), Rational(35000000000LL));
}

TEST(PhysicsRules, TpsAboveRooflineTrips) {
    LintResult r = lint_paths({test::fixture_path("tps-above-roofline/fail")});
    // The Q4_K row, and a Q4_K_M row judged on its cache and state alone: 936 GB/s /
    // (4,294,967,296 + 156,893,184) bytes = 210.25 tokens/s, far under its 99,999.
    ASSERT_EQ(r.diagnostics.size(), 2u);
    EXPECT_EQ(r.diagnostics[1].computed, "210.25");
    EXPECT_EQ(r.diagnostics[1].stated, "99,999");
    const Diagnostic& d = r.diagnostics[0];
    EXPECT_EQ(d.rule, "tps-above-roofline");
    EXPECT_EQ(d.severity, Severity::error);
    EXPECT_EQ(d.pos.line, 20);
    EXPECT_EQ(d.pos.column, 22);
    EXPECT_EQ(d.stated, "500");
    EXPECT_EQ(d.computed, "47.66");
    EXPECT_NE(d.message.find("936 GB/s / (15,187,500,000 bytes of Q4_K weights + 4,294,967,296 bytes of KV"),
              std::string::npos)
        << d.message;
}

TEST(PhysicsRules, TpsWithinRooflinePasses) {
    EXPECT_TRUE(lint_paths({test::fixture_path("tps-above-roofline/pass")}).diagnostics.empty());
}

TEST(PhysicsRules, ExceedsMemoryTrips) {
    LintResult r = lint_paths({test::fixture_path("exceeds-memory/fail")});
    // The llama.cpp row at 256k, a Q4_K_M row whose weights count as none (two requests' caches
    // and states alone), and a vLLM row whose state is bfloat16 (explain_test.cc).
    ASSERT_EQ(r.diagnostics.size(), 3u);
    EXPECT_EQ(r.diagnostics[1].computed, "34,673,524,736");  // 2 x (262,144 x 65,536 + 156,893,184)
    EXPECT_EQ(r.diagnostics[2].computed, "24,405,007,328");
    const Diagnostic& d = r.diagnostics[0];
    EXPECT_EQ(d.rule, "exceeds-memory");
    EXPECT_EQ(d.severity, Severity::warning);
    EXPECT_EQ(d.pos.line, 10);
    EXPECT_EQ(d.pos.column, 17);
    // 15,187,500,000 + 262,144 x 65,536 + 156,893,184
    EXPECT_EQ(d.computed, "32,524,262,368");
    EXPECT_EQ(d.stated, "24,000,000,000");
    // The bytes as written, and in GiB to read: 32,524,262,368 / 2^30 and 24e9 / 2^30.
    EXPECT_NE(
        d.message.find("needs 32,524,262,368 bytes (30.29 GiB) but the accelerator has 24,000,000,000 (22.35 GiB)"),
        std::string::npos)
        << d.message;
}

TEST(PhysicsRules, StatedOffloadSilencesExceedsMemory) {
    EXPECT_TRUE(lint_paths({test::fixture_path("exceeds-memory/pass")}).diagnostics.empty());
}

TEST(PhysicsCatalog, RowsCarryCeilingAndBaselines) {
    test::TempDir dir;
    build_catalog(shipped_lint().records, dir / "kvcat.db");
    Table t = run_read_only(dir / "kvcat.db",
                            "SELECT roofline_tps, roofline_fraction, gqa_reduction, mha_reduction, weight_bytes, "
                            "gqa_baseline_bytes_per_token FROM kv_rows WHERE id = ?",
                            {std::string("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k")});
    ASSERT_EQ(t.rows.size(), 1u);
    EXPECT_NEAR(std::get<double>(t.rows[0][0]), 47.659, 0.001);
    EXPECT_NEAR(std::get<double>(t.rows[0][1]), 28.8 / 47.6594, 0.0001);
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][2]), 4.0);
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[0][3]), 24.0);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][4]), 15187500000LL);
    EXPECT_EQ(std::get<std::int64_t>(t.rows[0][5]), 262144);
    // No accelerator, no weight format: no ceiling, and no made-up one.
    Table none = run_read_only(dir / "kvcat.db", "SELECT roofline_tps, weight_bytes FROM kv_rows WHERE id = ?",
                               {std::string("kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k")});
    EXPECT_TRUE(std::holds_alternative<std::monostate>(none.rows[0][0]));
    EXPECT_TRUE(std::holds_alternative<std::monostate>(none.rows[0][1]));
}

}  // namespace
}  // namespace kvcat
