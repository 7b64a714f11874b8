#include "model/kv_math.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "vocab/dtype.h"

namespace kvcat {
namespace {

// Model shapes from ../shared/reference/kv-facts.md.
Model gqa(std::int64_t layers, std::int64_t q_heads, std::int64_t kv_heads, std::int64_t head_dim) {
    Model m;
    m.attention_variant = "gqa";
    m.num_layers = layers;
    m.attention_heads = q_heads;
    m.kv_heads = kv_heads;
    m.head_dim = head_dim;
    m.kv_layers.count = layers;
    return m;
}

Model llama_8b() {
    return gqa(32, 32, 8, 128);
}
Model llama_70b() {
    return gqa(80, 64, 8, 128);
}

Model deepseek_v3() {
    Model m;
    m.attention_variant = "mla";
    m.num_layers = 61;
    m.attention_heads = 128;
    m.kv_layers.count = 61;
    m.mla = MlaShape{512, 64};
    return m;
}

Model gemma3_27b() {
    Model m = gqa(62, 32, 16, 128);
    m.attention_variant = "sliding";
    m.kv_layers.count = 10;
    m.sliding = SlidingShape{1024, 52};
    return m;
}

Model qwen35_27b() {
    Model m = gqa(64, 24, 4, 256);
    m.attention_variant = "hybrid";
    m.kv_layers.count = 16;
    m.kv_layers.interval = 4;
    m.kv_layers.first_index = 3;
    m.linear = LinearShape{StateKind::gated_deltanet, 48, 16, 48, 128, 128, 0, 0, 4, "float32", "", false};
    return m;
}

Model qwen35_35b_a3b() {
    Model m = gqa(40, 16, 2, 256);
    m.attention_variant = "hybrid";
    m.kv_layers.count = 10;
    m.kv_layers.interval = 4;
    m.linear = LinearShape{StateKind::gated_deltanet, 30, 16, 32, 128, 128, 0, 0, 4, "float32", "", false};
    return m;
}

Rational per_token(const Model& m, std::string_view dtype) {
    auto basis = model_basis(m);
    EXPECT_TRUE(basis);
    return Rational(basis->layers) * elements_per_layer_token(*basis) * find_cache_dtype(dtype)->bytes_per_element();
}

TEST(KvMath, GqaUsesKvHeadsNotQueryHeads) {
    EXPECT_EQ(per_token(llama_8b(), "bf16"), Rational(131072));
    EXPECT_EQ(per_token(llama_70b(), "bf16"), Rational(327680));
}

TEST(KvMath, MlaLatentHasNoKvFactor) {
    auto basis = model_basis(deepseek_v3());
    ASSERT_TRUE(basis);
    EXPECT_EQ(basis->kv_factor, 1);
    EXPECT_EQ(*basis->latent_dim, 576);
    EXPECT_EQ(per_token(deepseek_v3(), "bf16"), Rational(70272));
}

TEST(KvMath, HybridCountsOnlyFullAttentionLayers) {
    EXPECT_EQ(per_token(qwen35_27b(), "bf16"), Rational(65536));
    EXPECT_EQ(per_token(qwen35_35b_a3b(), "bf16"), Rational(20480));
    EXPECT_EQ(per_token(qwen35_35b_a3b(), "fp8"), Rational(10240));
}

TEST(KvMath, LayerIntervalGivesTheFullAttentionCount) {
    std::string problem;
    EXPECT_EQ(kv_layer_count(qwen35_27b(), &problem).count, 16);  // 3, 7, ..., 63
    EXPECT_TRUE(problem.empty()) << problem;
    EXPECT_EQ(kv_layer_count(qwen35_35b_a3b(), &problem).count, 10);  // from index 3 by default
    Model wrong = qwen35_27b();
    wrong.kv_layers.count = 15;
    kv_layer_count(wrong, &problem);
    EXPECT_NE(problem.find("kv_layers.count is 15"), std::string::npos) << problem;
}

// The places are the ones the count counts: an interval without its first index starts at
// interval - 1, as llama.cpp's full_attention_interval does; the inventory and the oracles'
// GGUF writers once refused that record while the count took it.
TEST(KvMath, LayerPlacesAreTheOnesTheCountCounts) {
    for (const Model& m : {qwen35_27b(), qwen35_35b_a3b()}) {
        auto places = kv_layer_places(m);
        ASSERT_TRUE(places);
        std::string problem;
        EXPECT_EQ(std::count(places->begin(), places->end(), true), kv_layer_count(m, &problem).count);
        EXPECT_TRUE((*places)[3] && (*places)[7] && !(*places)[0] && !(*places)[4]);
    }
    Model listed = qwen35_27b();
    listed.kv_layers.indices = {0, 63};
    auto two = kv_layer_places(listed);
    ASSERT_TRUE(two);
    EXPECT_EQ(std::count(two->begin(), two->end(), true), 2);
    listed.kv_layers.indices = {64};
    EXPECT_FALSE(kv_layer_places(listed));  // past the 64 layers
    Model counted = llama_8b();
    EXPECT_FALSE(kv_layer_places(counted));  // a count places no layer
}

TEST(KvMath, LayersMustAddUpToTheModel) {
    Model m = qwen35_27b();
    m.linear->layers = 40;
    std::string problem;
    kv_layer_count(m, &problem);
    EXPECT_NE(problem.find("16 KV-caching + 0 sliding + 40 linear layers = 56, but num_layers is 64"),
              std::string::npos)
        << problem;
}

TEST(KvMath, ExplicitIndicesAreChecked) {
    Model m = qwen35_27b();
    m.kv_layers.interval.reset();
    m.kv_layers.indices = {3, 7, 64};
    m.kv_layers.count = 3;
    std::string problem;
    kv_layer_count(m, &problem);
    EXPECT_NE(problem.find("names layer 64"), std::string::npos) << problem;
}

TEST(KvMath, SlidingLayersStopGrowingAtTheWindow) {
    Model g = gemma3_27b();
    Rational global = per_token(g, "bf16");
    EXPECT_EQ(global, Rational(81920));
    Rational bpe = find_cache_dtype("bf16")->bytes_per_element();
    // 81,920 x 32,768 + 52 x 16 x 128 x 2 x 2 x 1,024
    EXPECT_EQ(kv_bytes_at_context(g, global, 32768, bpe), Rational(3120562176LL));
    // Below the window every layer still grows.
    EXPECT_EQ(kv_bytes_at_context(g, global, 512, bpe), Rational((81920 + 425984) * 512LL));
}

TEST(KvMath, QuantisedCacheKeepsItsBlockFraction) {
    EXPECT_EQ(per_token(llama_8b(), "q8_0"), Rational(69632));
    EXPECT_EQ(per_token(llama_8b(), "q4_0"), Rational(36864));
    EXPECT_EQ(per_token(llama_8b(), "q5_1"), Rational(49152));
    EXPECT_EQ(per_token(llama_8b(), "q5_0"), Rational(45056));
    EXPECT_EQ(per_token(llama_8b(), "q4_1"), Rational(40960));
    EXPECT_EQ(per_token(llama_8b(), "iq4_nl"), Rational(36864));
    EXPECT_EQ(per_token(llama_8b(), "f32"), Rational(262144));
}

TEST(KvMath, LinearLayersHoldAFixedState) {
    // 48 layers x (3 x 10,240 conv + 48 x 128 x 128 recurrent) elements x 4 bytes.
    EXPECT_EQ(fixed_state_bytes(qwen35_27b()), Rational(156893184));
    EXPECT_EQ(fixed_state_bytes(llama_8b()), Rational(0));
}

TEST(KvMath, WhatIfBaselines) {
    Rational two(2);
    EXPECT_EQ(*all_layers_gqa_bytes(qwen35_27b(), two), Rational(262144));
    EXPECT_EQ(*all_layers_mha_bytes(qwen35_27b(), two), Rational(1572864));
    EXPECT_EQ(*all_layers_gqa_bytes(qwen35_35b_a3b(), two), Rational(81920));
}

TEST(KvMath, BasisProductAndExpression) {
    KvBasis b;
    b.layers = 16;
    b.kv_heads = 4;
    b.head_dim = 256;
    b.kv_factor = 2;
    b.bytes_per_element = Rational(2);
    EXPECT_EQ(*basis_product(b), Rational(65536));
    EXPECT_EQ(basis_expression(b), "16 x 4 x 256 x 2 x 2");
    b.bytes_per_element = Rational(34, 32);
    EXPECT_EQ(basis_expression(b), "16 x 4 x 256 x 2 x 17/16");
    b.head_dim.reset();
    EXPECT_FALSE(basis_product(b));
}

TEST(KvMath, OverflowingBasisThrows) {
    KvBasis b;
    b.layers = 1LL << 40;
    b.kv_heads = 1LL << 20;
    b.head_dim = 1LL << 10;
    b.kv_factor = 2;
    b.bytes_per_element = Rational(2);
    EXPECT_THROW(basis_product(b), OverflowError);
}

}  // namespace
}  // namespace kvcat

namespace kvcat {
namespace {

TEST(KvMath, LayersSharingAnotherCacheAddNothing) {
    // A 32-layer model where 16 layers read the cache of the layer before them.
    Model m = gqa(32, 32, 8, 128);
    m.kv_layers.count = 16;
    m.kv_layers.shared = 16;
    std::string problem;
    EXPECT_EQ(kv_layer_count(m, &problem).count, 16);
    EXPECT_TRUE(problem.empty()) << problem;
    EXPECT_EQ(per_token(m, "bf16"), Rational(65536));  // half of Llama-3.1-8B's 131,072
    m.kv_layers.shared = 8;
    kv_layer_count(m, &problem);
    EXPECT_NE(problem.find("+ 8 sharing another's cache = 24, but num_layers is 32"), std::string::npos) << problem;
}

TEST(KvMath, LayersOfDifferentShapesAreSummed) {
    // 20 layers with 8 KV heads of 128 and 12 with 4 heads of 256 (invented for the test).
    Model m = gqa(32, 32, 8, 128);
    m.kv_heads.reset();
    m.head_dim.reset();
    m.kv_groups = {KvGroup{20, 8, 128}, KvGroup{12, 4, 256}};
    auto basis = model_basis(m);
    ASSERT_TRUE(basis);
    // (20 x 8 x 128 + 12 x 4 x 256) x 2 x 2 = (20,480 + 12,288) x 4 = 131,072
    EXPECT_EQ(growing_elements_per_token(*basis) * Rational(2), Rational(131072));
    std::string problem;
    m.kv_groups[1].layers = 11;
    kv_layer_count(m, &problem);
    EXPECT_NE(problem.find("kv_groups cover 31 layers, but 32 layers grow a KV cache"), std::string::npos) << problem;

    KvBasis b;
    b.layers = 32;
    b.groups = {KvGroup{20, 8, 128}, KvGroup{12, 4, 256}};
    b.kv_factor = 2;
    b.bytes_per_element = Rational(2);
    EXPECT_EQ(*basis_product(b), Rational(131072));
    EXPECT_EQ(basis_expression(b), "(20 x 8 x 128 + 12 x 4 x 256) x 2 x 2");
}

TEST(KvMath, ConvStateMayBeKeptInItsOwnDtype) {
    // vLLM's default for Qwen3.5: the conv state in the model's bf16, the recurrent state in f32.
    Model m = qwen35_27b();
    Rational both_f32 = fixed_state_bytes(m);
    m.linear->conv_state_dtype = "bfloat16";
    // 48 layers x (3 x 10,240 conv elements x 2 bytes + 786,432 state elements x 4 bytes).
    EXPECT_EQ(fixed_state_bytes(m), Rational(48LL * (3 * 10240 * 2 + 786432 * 4)));
    EXPECT_EQ(both_f32 - fixed_state_bytes(m), Rational(48LL * 3 * 10240 * 2));
}

}  // namespace
}  // namespace kvcat
