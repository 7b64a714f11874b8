// The models of 2025-2026, each from its published config.json (tests/fixtures/configs/, each
// with a .source.txt naming where it was read), imported and linted, with the figures worked
// out by hand: bytes each token adds to the growing layers at bf16 (2 bytes) and fp8 (1 byte),
// the most the bounded (sliding or chunked) layers hold, and the fixed state per sequence.
//
// The hand-worked figures follow vLLM's accounting: an attention layer's page holds
// kv_heads x (K width + V width) elements per token (vllm/v1/kv_cache_interface.py,
// FullAttentionSpec and SlidingWindowSpec; MLA: one latent of kv_lora_rank + qk_rope_head_dim,
// MLAAttentionSpec), and a fixed-state layer the shapes of
// vllm/model_executor/layers/mamba/mamba_utils.py. Where llama.cpp differs it is said at the
// figure. The fixed state is shown as kvcat's model record keeps it: every part at the record's
// state_dtype (float32 when the config names none, the larger reading; vLLM keeps conv states
// in the model's dtype).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "config_fixture.h"
#include "engines/engine_memory.h"
#include "engines/engine_rules.h"
#include "import/import_config.h"
#include "import/import_config_keys.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "test_util.h"
#include "vocab/dtype.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using kvcat::ImportOptions;
using kvcat::ImportResult;
using kvcat::Model;
using kvcat::Rational;
using kvcat::test::config_fixture;
using kvcat::test::contains;
using kvcat::test::fixture_path;
using kvcat::test::flat;
using kvcat::test::read_file;
using kvcat::test::TempDir;
using kvcat::test::write_file;

Rational bytes_per_elem(std::string_view dtype) {
    return kvcat::find_cache_dtype(dtype)->bytes_per_element();
}

/// A config imported into a records tree of its own and linted.
struct Imported2026 {
    TempDir tmp;
    fs::path records = tmp.path() / "records";
    ImportResult result;
    kvcat::LintResult lint;

    Imported2026(const json& config, const std::string& file, double total, double active, bool count_mtp = false) {
        ImportOptions o;
        o.config_file = file;
        o.name = "M";
        o.total_params_b = total;
        o.active_params_b = active;
        o.count_mtp = count_mtp;
        result = kvcat::import_model_config(config, o);
        if (!result.ok()) return;
        write_file(records / (result.id + ".yaml"), result.text);
        lint = kvcat::lint_paths({records});
    }
    bool clean() const { return result.ok() && lint.diagnostics.empty(); }
    std::string why() const {
        return result.ok() ? kvcat::test::describe(lint.diagnostics) + result.text : result.message();
    }
    const Model& model() const {
        const kvcat::Record* r = lint.records.find(result.id);
        if (!r || !r->model) throw std::runtime_error("no model " + result.id);
        return *r->model;
    }
};

/// One fixture and its hand-worked figures.
struct Figures {
    const char* file;
    double total_b, active_b;
    std::int64_t growing_bf16;  ///< bytes per token, growing layers, bf16
    std::int64_t growing_fp8;
    std::int64_t bounded_bf16;  ///< the most the bounded layers hold, one sequence, bf16
    std::int64_t bounded_fp8;
    std::int64_t state;  ///< fixed state per sequence, bytes, at the record's state dtype
    const char* how;     ///< the hand working
};

// Every figure below is worked from the config by hand; the comment is the working.
const Figures kFigures[] = {
    {"llama-3.3-nemotron-super-49b-v1.json", 49.9, 49.9, 200704, 100352, 0, 0, 0,
     "block_configs: 49 attention layers of 64 / 8 = 8 KV heads x 128 (8192 / 64) x 2 = 100,352 elements; "
     "31 no_op layers keep nothing (vLLM nemotron_nas.py builds no attention for them)"},
    {"llama-4-maverick-17b-128e-instruct.json", 400, 17, 49152, 24576, 1207959552, 603979776, 0,
     "48 layers, every 4th NoPE and global: 12 x 8 x 128 x 2 = 24,576 elements; 36 chunked layers x 2,048 "
     "elements x one chunk of 8,192 tokens = 603,979,776 elements"},
    {"qwen3-vl-235b-a22b-instruct.json", 235, 22, 192512, 96256, 0, 0, 0,
     "text_config: 94 x 4 x 128 x 2 = 96,256 elements; the vision tower caches nothing per text token"},
    {"qwen3.5-397b-a17b.json", 397, 17, 30720, 15360, 0, 0, 195379200,
     "60 layers, full every 4th: 15 x 2 x 256 x 2 = 15,360 elements; 45 Gated DeltaNet layers, each a conv "
     "of 3 x (2 x 16 x 128 + 64 x 128) = 36,864 and a state of 64 x 128 x 128 = 1,048,576 elements, "
     "x 4 bytes (mamba_ssm_dtype float32) = 4,341,760 bytes"},
    {"deepseek-v3.1-nvfp4.json", 671, 37, 70272, 35136, 0, 0, 0, "61 MLA layers x (512 + 64) = 35,136 elements"},
    {"mimo-7b-base.json", 7.8, 7.8, 147456, 73728, 0, 0, 0,
     "use_sliding_window false: 36 x 8 x 128 x 2 = 73,728 elements"},
    {"mimo-v2-flash.json", 309, 15, 23040, 11520, 25559040, 12779520, 0,
     "9 full layers x 4 KV heads x (192 K + 128 V) = 11,520 elements; 39 sliding layers x 8 x (192 + 128) = "
     "99,840 elements x a window of 128 tokens = 12,779,520 elements"},
    {"gemma-4-26b-a4b.json", 25.2, 3.8, 20480, 10240, 209715200, 104857600, 0,
     "5 full layers x 2 global KV heads x 512 x 2 = 10,240 elements; 25 sliding layers x 8 x 256 x 2 = "
     "102,400 elements x a window of 1,024 = 104,857,600 elements"},
    {"kimi-k2.5.json", 1000, 32, 70272, 35136, 0, 0, 0, "text_config: 61 MLA layers x (512 + 64) = 35,136 elements"},
    {"glm-5.json", 744, 40, 100152, 55224, 0, 0, 0,
     "78 MLA layers x (576 elements + the indexer's 128 fp8 keys and one 4-byte scale = 132 bytes): "
     "78 x (1,152 + 132) at bf16, 78 x (576 + 132) at fp8"},
    {"minimax-m2.5.json", 229, 10, 253952, 126976, 0, 0, 0, "62 x 8 x 128 x 2 = 126,976 elements"},
    {"step-3.7-flash.json", 196, 11, 49152, 24576, 69206016, 34603008, 0,
     "layer_types: 12 full x 8 x 128 x 2 = 24,576 elements; 33 sliding x 2,048 x a window of 512 = "
     "34,603,008 elements"},
    {"kimi-k3.json", 2000, 60, 27648, 13824, 0, 0, 464633856,
     "linear_attn_config: 24 full MLA layers x 576 = 13,824 elements; 69 KDA layers, each a conv of "
     "3 x 3 x 96 x 128 = 110,592 and a state of 96 x 128 x 128 = 1,572,864 elements, x 4 bytes = 6,733,824 "
     "bytes"},
    {"qwen3-coder-480b-a35b-instruct.json", 480, 35, 253952, 126976, 0, 0, 0, "62 x 8 x 128 x 2 = 126,976 elements"},
    {"nemotron-3-nano-30b-a3b.json", 31.6, 3.2, 6144, 3072, 0, 0, 49930240,
     "hybrid_override_pattern: 6 attention layers x 2 x 128 x 2 = 3,072 elements; 23 Mamba-2 layers, each a "
     "conv of 3 x (64 x 64 + 2 x 8 x 128) = 18,432 and a state of 64 x 64 x 128 = 524,288 elements, x 4 bytes "
     "= 2,170,880 bytes; 23 MLP-only layers keep nothing"},
    {"nemotron-3-super-120b-a12b-fp8.json", 120, 12, 8192, 4096, 0, 0, 172687360,
     "8 attention layers x 2 x 128 x 2 = 4,096 elements; 40 Mamba-2 layers, each a conv of 3 x (128 x 64 + "
     "2 x 8 x 128) = 30,720 and a state of 128 x 64 x 128 = 1,048,576 elements, x 4 bytes = 4,317,184 bytes"},
};

constexpr std::int64_t kLongContext = 1 << 20;

TEST(Models2026, EachFixtureImportsToItsHandWorkedFigures) {
    for (const Figures& f : kFigures) {
        SCOPED_TRACE(f.file);
        Imported2026 m(config_fixture(f.file), f.file, f.total_b, f.active_b);
        ASSERT_TRUE(m.clean()) << m.why();
        const Model& model = m.model();
        auto basis = kvcat::model_basis(model);
        ASSERT_TRUE(basis);
        EXPECT_EQ(kvcat::growing_bytes_per_token(*basis, bytes_per_elem("bf16")), Rational(f.growing_bf16)) << f.how;
        EXPECT_EQ(kvcat::growing_bytes_per_token(*basis, bytes_per_elem("fp8")), Rational(f.growing_fp8)) << f.how;
        auto rows = kvcat::layer_rows(model);
        EXPECT_EQ(kvcat::rows_growing_bytes_per_token(rows, bytes_per_elem("bf16")), Rational(f.growing_bf16)) << f.how;
        EXPECT_EQ(kvcat::rows_bounded_bytes(rows, kLongContext, bytes_per_elem("bf16")), Rational(f.bounded_bf16))
            << f.how;
        EXPECT_EQ(kvcat::rows_bounded_bytes(rows, kLongContext, bytes_per_elem("fp8")), Rational(f.bounded_fp8))
            << f.how;
        // The per-layer sums and the model-wide formula say the same at every context.
        for (std::int64_t ctx : {64LL, 4096LL, 131072LL}) {
            EXPECT_EQ(kvcat::rows_bytes_at_context(rows, ctx, bytes_per_elem("bf16")),
                      kvcat::kv_bytes_at_context(model, kvcat::growing_bytes_per_token(*basis, bytes_per_elem("bf16")),
                                                 ctx, bytes_per_elem("bf16")))
                << ctx;
        }
        EXPECT_EQ(kvcat::fixed_state_bytes(model), Rational(f.state)) << f.how;
        // Every layer is in exactly one row.
        std::int64_t layers = 0;
        for (const auto& row : rows) {
            if (!row.beside_attention) layers += row.layers;
        }
        EXPECT_EQ(layers, model.num_layers.value_or(0));
    }
}

TEST(Models2026, AtMostTwoOfTheFixturesAreRefusedAndEachNamesItsDesign) {
    // MiniMax-M3's block-sparse attention caches block index keys in its sparse layers; kvcat
    // does not model them, and says so by the key.
    ImportOptions o;
    o.config_file = "minimax-m3.json";
    o.name = "MiniMax-M3";
    o.total_params_b = o.active_params_b = 1;
    ImportResult r = kvcat::import_model_config(config_fixture("minimax-m3.json"), o);
    ASSERT_FALSE(r.ok());
    ASSERT_EQ(r.problems.size(), 1u) << r.message();
    EXPECT_TRUE(contains(r.message(), "sparse_attention_config is set: block-sparse attention (MiniMax-M3)"))
        << r.message();
    EXPECT_GE(std::size(kFigures), 14u);
}

// ---- no needless refusals ---------------------------------------------------------------

TEST(Models2026, NemotronNasNullKvHeadsIsReadPerLayerNeverDefaulted) {
    Imported2026 m(config_fixture("llama-3.3-nemotron-super-49b-v1.json"), "c.json", 49.9, 49.9);
    ASSERT_TRUE(m.clean()) << m.why();
    const Model& model = m.model();
    EXPECT_EQ(model.kv_heads, 8);  // 64 / n_heads_in_group 8, not the 64 query heads
    EXPECT_EQ(model.kv_layers.count, 49);
    EXPECT_EQ(model.kv_layers.stateless, 31);
    EXPECT_FALSE(contains(flat(m.result.text), "defaults to num_attention_heads")) << m.result.text;
    EXPECT_TRUE(contains(flat(m.result.text),
                         "num_key_value_heads is null: the KV heads are stated per layer in "
                         "block_configs"))
        << m.result.text;
    // 2,621,440 B/token was the old reading (80 layers x 64 heads); the per-layer one is 13x less.
    EXPECT_EQ(kvcat::growing_bytes_per_token(*kvcat::model_basis(model), bytes_per_elem("bf16")), Rational(200704));
}

TEST(Models2026, NasLayersOfDifferingHeadsBecomeKvGroupsTheLintRecomputes) {
    json config = config_fixture("llama-3.3-nemotron-super-49b-v1.json");
    // Give the first ten attention layers 16 KV heads (n_heads_in_group 4).
    int changed = 0;
    for (auto& block : config["block_configs"]) {
        if (changed < 10 && !block["attention"]["no_op"].get<bool>()) {
            block["attention"]["n_heads_in_group"] = 4;
            ++changed;
        }
    }
    Imported2026 m(config, "c.json", 49.9, 49.9);
    ASSERT_TRUE(m.clean()) << m.why();
    const Model& model = m.model();
    ASSERT_EQ(model.kv_groups.size(), 2u) << m.result.text;
    EXPECT_EQ(model.kv_groups[0], (kvcat::KvGroup{10, 16, 128}));
    EXPECT_EQ(model.kv_groups[1], (kvcat::KvGroup{39, 8, 128}));
    EXPECT_FALSE(model.kv_heads);
    // (10 x 16 + 39 x 8) x 128 x 2 x 2 bytes.
    EXPECT_EQ(kvcat::growing_bytes_per_token(*kvcat::model_basis(model), bytes_per_elem("bf16")),
              Rational((10 * 16 + 39 * 8) * 128 * 2 * 2));
}

TEST(Models2026, NasLayerWithAWindowIsRefusedNamingTheLayer) {
    json config = config_fixture("llama-3.3-nemotron-super-49b-v1.json");
    config["block_configs"][3]["attention"]["window_length"] = 4096;
    ImportResult r = Imported2026(config, "c.json", 1, 1).result;
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "block_configs[3].attention.window_length is 4096")) << r.message();
}

TEST(Models2026, KeysThatCannotTouchTheCacheAreListedAsIrrelevantWithTheirReason) {
    struct Case {
        const char* key;
        const char* why;
    };
    for (Case c : {Case{"qkv_bias", "bias"}, Case{"share_expert_dim", "mixture-of-experts"},
                   Case{"moe_shared_expert_intermediate_size", "mixture-of-experts"},
                   Case{"add_cross_attention", "PretrainedConfig"}, Case{"chunk_size_feed_forward", "PretrainedConfig"},
                   Case{"output_attentions", "PretrainedConfig"}, Case{"pruned_heads", "PretrainedConfig"},
                   Case{"indexer_rope_interleave", "position"}, Case{"use_unified_vision_chunk", "vision"},
                   Case{"ignore_index", "training"}}) {
        const kvcat::ConfigKey* k = kvcat::find_config_key(c.key);
        ASSERT_TRUE(k) << c.key;
        EXPECT_EQ(k->use, kvcat::KeyUse::ignored) << c.key;
        EXPECT_TRUE(contains(k->why, c.why)) << c.key << ": " << k->why;
    }
    // The multi-token-prediction keys are read, not passed over.
    for (const char* key : {"mtp_transformer_layers", "num_mtp_modules", "use_mtp", "mtp_hybrid_override_pattern"}) {
        ASSERT_TRUE(kvcat::find_config_key(key)) << key;
        EXPECT_EQ(kvcat::find_config_key(key)->use, kvcat::KeyUse::read) << key;
    }
}

TEST(Models2026, AKeyThatMayChangeTheCacheStillRefusesByName) {
    json config = config_fixture("qwen3-coder-480b-a35b-instruct.json");
    config["kv_sparse_window_layers"] = 4;
    ImportResult r = Imported2026(config, "c.json", 480, 35).result;
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "kv_sparse_window_layers is a key kvcat does not know")) << r.message();
}

// ---- multi-token prediction -------------------------------------------------------------

TEST(Models2026, MtpLayersAreNamedAndCountedOnlyWhenAsked) {
    Imported2026 plain(config_fixture("minimax-m2.5.json"), "c.json", 229, 10);
    ASSERT_TRUE(plain.clean()) << plain.why();
    EXPECT_EQ(plain.model().num_layers, 62);
    EXPECT_TRUE(contains(flat(plain.result.text),
                         "num_mtp_modules 3 of mtp_transformer_layers 1): 3 MTP attention "
                         "layers are not counted in num_layers"))
        << plain.result.text;
    EXPECT_TRUE(contains(flat(plain.result.text), "only while an engine runs MTP speculative decoding"));

    Imported2026 counted(config_fixture("minimax-m2.5.json"), "c.json", 229, 10, /*count_mtp=*/true);
    ASSERT_TRUE(counted.clean()) << counted.why();
    EXPECT_EQ(counted.model().num_layers, 65);
    // 65 x 8 x 128 x 2 x 2 bytes: the three MTP layers cache like the others while they run.
    EXPECT_EQ(kvcat::growing_bytes_per_token(*kvcat::model_basis(counted.model()), bytes_per_elem("bf16")),
              Rational(65 * 8 * 128 * 2 * 2));

    // Nemotron-3-Super's MTP layer is a block pattern "*E": one attention block and an MoE.
    Imported2026 s(config_fixture("nemotron-3-super-120b-a12b-fp8.json"), "c.json", 120, 12, true);
    ASSERT_TRUE(s.clean()) << s.why();
    EXPECT_EQ(s.model().num_layers, 89);
    EXPECT_EQ(s.model().kv_layers.count, 9);
}

// ---- layer types with shapes of their own -----------------------------------------------

TEST(Models2026, MimoV2FlashKAndVOfDifferentWidthsPerLayerType) {
    Imported2026 m(config_fixture("mimo-v2-flash.json"), "c.json", 309, 15);
    ASSERT_TRUE(m.clean()) << m.why();
    const Model& model = m.model();
    EXPECT_EQ(model.kv_heads, 4);
    EXPECT_EQ(model.head_dim, 192);
    EXPECT_EQ(model.v_head_dim, 128);
    ASSERT_TRUE(model.sliding);
    EXPECT_EQ(model.sliding->layers, 39);
    EXPECT_EQ(model.sliding->window, 128);
    EXPECT_EQ(model.sliding->kv_heads, 8);
    EXPECT_EQ(model.sliding->v_head_dim, 128);
    auto rows = kvcat::layer_rows(model);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].role, kvcat::LayerRole::full);
    EXPECT_EQ(rows[0].elements_per_token(), 4 * (192 + 128));
    EXPECT_EQ(rows[1].role, kvcat::LayerRole::sliding);
    EXPECT_EQ(rows[1].elements_per_token(), 8 * (192 + 128));
    // Counting V as wide as K would have said 9 x 4 x 192 x 2 x 2 = 27,648.
    EXPECT_NE(kvcat::rows_growing_bytes_per_token(rows, bytes_per_elem("bf16")), Rational(27648));
}

TEST(Models2026, Gemma4FullLayersHaveTheirOwnHeadsAndWidth) {
    Imported2026 m(config_fixture("gemma-4-26b-a4b.json"), "c.json", 25.2, 3.8);
    ASSERT_TRUE(m.clean()) << m.why();
    const Model& model = m.model();
    EXPECT_EQ(model.kv_heads, 2);    // num_global_key_value_heads, as attention_k_eq_v is set
    EXPECT_EQ(model.head_dim, 512);  // global_head_dim
    ASSERT_TRUE(model.sliding);
    EXPECT_EQ(model.sliding->kv_heads, 8);
    EXPECT_EQ(model.sliding->head_dim, 256);
    EXPECT_FALSE(model.sliding->v_head_dim);
    EXPECT_TRUE(contains(flat(m.result.text), "so the cache keeps both")) << m.result.text;
    // Without attention_k_eq_v the full layers keep num_key_value_heads.
    json config = config_fixture("gemma-4-26b-a4b.json");
    config["text_config"]["attention_k_eq_v"] = false;
    Imported2026 plain(config, "c.json", 25.2, 3.8);
    ASSERT_TRUE(plain.clean()) << plain.why();
    EXPECT_EQ(plain.model().kv_heads, 8);
    EXPECT_EQ(plain.model().head_dim, 512);
}

TEST(Models2026, EnginesAndCardSplitsRefuseTheShapesTheyDoNotFollow) {
    // The engine models keep K and V of one width and bounded layers of the growing layers'
    // shape; for MiMo-V2-Flash and Gemma 4 they say so instead of giving a figure.
    struct Case {
        const char* file;
        const char* says;
    };
    for (Case c : {Case{"mimo-v2-flash.json", "K and V heads differ in width (v_head_dim)"},
                   Case{"gemma-4-26b-a4b.json", "bounded layers have heads or widths of their own"}}) {
        SCOPED_TRACE(c.file);
        Imported2026 m(config_fixture(c.file), "c.json", 25, 4);
        ASSERT_TRUE(m.clean()) << m.why();
        // (SGLang refuses both earlier: they have sliding layers, and its SWA pool is not modelled.)
        for (auto engine : {kvcat::Engine::llamacpp, kvcat::Engine::vllm}) {
            kvcat::EngineSettings settings;
            settings.context = 32768;
            try {
                kvcat::engine_allocation(m.model(), *kvcat::find_cache_dtype("bf16"), engine, settings);
                ADD_FAILURE() << "an engine figure was given for a shape the engine models do not follow";
            } catch (const kvcat::EngineError& e) {
                EXPECT_TRUE(contains(e.what(), c.says)) << e.what();
            }
        }
    }
    // Gemma 4's sliding layers have 8 KV heads, its full layers 2: one share per card cannot
    // split both, so two cards are refused; one card is answered.
    Imported2026 gemma(config_fixture("gemma-4-26b-a4b.json"), "c.json", 25.2, 3.8);
    ASSERT_TRUE(gemma.clean()) << gemma.why();
    kvcat::Accelerator card;
    card.memory_gb_exact = Rational(80);
    kvcat::FitSetup setup;
    setup.weight_bytes = Rational(0);
    setup.reserve = Rational(0);
    const kvcat::CacheDtype bf16 = *kvcat::find_cache_dtype("bf16");  // a copy: the optional is a temporary
    EXPECT_TRUE(kvcat::fit_context(gemma.model(), card, nullptr, bf16, setup).fits);
    setup.gpus = 2;
    try {
        kvcat::fit_context(gemma.model(), card, nullptr, bf16, setup);
        ADD_FAILURE() << "two cards were answered for layers of two KV-head counts";
    } catch (const kvcat::PhysicsError& e) {
        EXPECT_TRUE(contains(e.what(), "bounded layers have KV heads of their own")) << e.what();
    }
}

// ---- Kimi Delta Attention ---------------------------------------------------------------

TEST(Models2026, KimiK3KdaLayersKeepVllmsKdaStateBesideMla) {
    Imported2026 m(config_fixture("kimi-k3.json"), "c.json", 2000, 60);
    ASSERT_TRUE(m.clean()) << m.why();
    const Model& model = m.model();
    EXPECT_EQ(model.attention_variant, "mla");
    EXPECT_EQ(model.kv_layers.count, 24);
    ASSERT_TRUE(model.linear);
    EXPECT_EQ(model.linear->kind, kvcat::StateKind::kda);
    EXPECT_EQ(model.linear->layers, 69);
    // The notes count the latent in the 24 attention layers only, not in all 93.
    EXPECT_TRUE(contains(flat(m.result.text), "Each of the 24 attention layers caches one latent")) << m.result.text;
    // vLLM keeps the conv states in the model's dtype and the recurrent state in float32
    // (kda_state_dtype): 69 x (110,592 x 2 + 1,572,864 x 4) = 449,372,160 bytes.
    Model vllm = model;
    vllm.linear->conv_state_dtype = "bfloat16";
    EXPECT_EQ(kvcat::fixed_state_bytes(vllm), Rational(449372160));
    // The lists count from 1: listing layer 0 is refused.
    json config = config_fixture("kimi-k3.json");
    config["text_config"]["linear_attn_config"]["kda_layers"][0] = 0;
    ImportResult r = Imported2026(config, "c.json", 1, 1).result;
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "kda_layers holds 0; expected layer numbers from 1 to 93")) << r.message();
}

}  // namespace
