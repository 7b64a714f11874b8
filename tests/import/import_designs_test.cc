// Every attention design import-config reads, from a real config each, with the bytes
// worked out by hand: growing bytes per token, bytes at a context, and the fixed state.
//
// The figures follow the engines' own accounting (vLLM's per-layer cache specs and
// mamba_utils state shapes): a growing layer adds kv_heads x head_dim x 2 elements per
// token, a sliding or chunked layer holds at most its window, an MLA layer one latent plus
// (DeepSeek-V3.2) the indexer's 132-byte key, and a Mamba or convolution layer a fixed
// state that does not grow. Each config fixture names where it was read in a sibling
// .source.txt.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "config_fixture.h"
#include "import/import_config.h"
#include "import/import_config_keys.h"
#include "import/skeleton.h"
#include "model/kv_math.h"
#include "output/explain.h"
#include "test_util.h"
#include "vocab/design.h"
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
using kvcat::test::describe;
using kvcat::test::fixture_path;
using kvcat::test::flat;
using kvcat::test::read_file;
using kvcat::test::TempDir;
using kvcat::test::write_file;

/// `config` imported as model "X" of `params_b` billion parameters, all active, read from `file`.
ImportResult import_as_x(const json& config, double params_b, const std::string& file = "c.json") {
    ImportOptions o;
    o.config_file = file;
    o.name = "X";
    o.total_params_b = o.active_params_b = params_b;
    return kvcat::import_model_config(config, o);
}

/// A config imported into a records tree of its own and linted: the record must be clean.
class Imported {
  public:
    Imported(const std::string& fixture, const std::string& name, double total = 10, double active = 10) {
        ImportOptions o;
        o.config_file = fixture;
        o.name = name;
        o.total_params_b = total;
        o.active_params_b = active;
        result_ = kvcat::import_model_config(config_fixture(fixture), o);
        if (!result_.ok()) return;
        write_file(records_ / (result_.id + ".yaml"), result_.text);
        lint_ = kvcat::lint_paths({records_});
    }
    const ImportResult& result() const { return result_; }
    bool clean() const { return result_.ok() && lint_.diagnostics.empty(); }
    std::string why() const { return result_.ok() ? describe(lint_.diagnostics) + result_.text : result_.message(); }
    const Model& model() const {
        const kvcat::Record* r = lint_.records.find(result_.id);
        if (!r || !r->model) throw std::runtime_error("no model " + result_.id);
        return *r->model;
    }
    const kvcat::LintResult& lint() const { return lint_; }
    const fs::path& records() const { return records_; }

  private:
    TempDir tmp_;
    fs::path records_ = tmp_.path() / "records";
    ImportResult result_;
    kvcat::LintResult lint_;
};

Rational bpe(std::string_view dtype) {
    return kvcat::find_cache_dtype(dtype)->bytes_per_element();
}

/// Bytes each token adds to the growing layers, at a dtype.
Rational per_token(const Model& m, std::string_view dtype) {
    auto basis = kvcat::model_basis(m);
    EXPECT_TRUE(basis);
    return basis ? kvcat::growing_bytes_per_token(*basis, bpe(dtype)) : Rational(0);
}

/// One sequence's cache at `context` tokens.
Rational at_context(const Model& m, std::string_view dtype, std::int64_t context) {
    return kvcat::kv_bytes_at_context(m, per_token(m, dtype), context, bpe(dtype));
}

constexpr std::int64_t kGiB = 1LL << 30;

// ---- chunked local attention ------------------------------------------------------------

TEST(ImportDesigns, Llama4ChunkedLayersHoldOneChunkAndOnlyTheNopeLayersGrow) {
    Imported scout("llama-4-scout.json", "Llama-4-Scout-17B-16E", 109, 17);
    ASSERT_TRUE(scout.clean()) << scout.why();
    const Model& m = scout.model();
    EXPECT_EQ(m.attention_variant, "sliding");
    EXPECT_EQ(m.kv_layers.count, 12);  // no_rope_layers [1, 1, 1, 0] x 12: every 4th is NoPE
    EXPECT_EQ(m.kv_layers.interval, 4);
    EXPECT_EQ(m.kv_layers.first_index, 3);
    ASSERT_TRUE(m.sliding);
    EXPECT_EQ(m.sliding->kind, kvcat::WindowKind::chunked);
    EXPECT_EQ(m.sliding->window, 8192);
    EXPECT_EQ(m.sliding->layers, 36);
    // 12 x 8 kv heads x 128 x 2 x 2 bytes, where counting all 48 layers gave 196,608.
    EXPECT_EQ(per_token(m, "bf16"), Rational(49152));
    // At 128k: 12 growing layers x 131,072 tokens + 36 chunked layers x one chunk of 8,192.
    EXPECT_EQ(at_context(m, "bf16", 131072), Rational(49152LL * 131072 + 36LL * 8 * 128 * 2 * 2 * 8192));
    EXPECT_EQ(at_context(m, "bf16", 131072), Rational(7650410496LL));  // about 7.7 GB, not 25.8 GB
    // Below one chunk every layer grows.
    EXPECT_EQ(at_context(m, "bf16", 4096), Rational(48LL * 8 * 128 * 2 * 2 * 4096));
}

TEST(ImportDesigns, ExplainNamesTheChunkedLayersAndTheirChunk) {
    Imported scout("llama-4-scout.json", "Llama-4-Scout-17B-16E", 109, 17);
    ASSERT_TRUE(scout.clean()) << scout.why();
    kvcat::SkeletonOptions o;
    o.model = scout.result().id;
    o.engine = "vLLM";
    o.kv_dtype = "bf16";
    o.context = 131072;
    kvcat::Skeleton s = kvcat::make_kv_skeleton(scout.lint(), o);
    ASSERT_TRUE(s.problems.empty()) << s.problems.front();
    write_file(scout.records() / (s.id + ".yaml"),
               s.text + "methodology: Derived.\nnotes: Chunked.\nsources:\n  - name: the model record\n");
    auto lint = kvcat::lint_paths({scout.records()});
    ASSERT_TRUE(lint.diagnostics.empty()) << describe(lint.diagnostics);
    std::string text = kvcat::render_explanation_text(kvcat::explain_record(lint, *lint.records.find(s.id)));
    EXPECT_TRUE(contains(text, "chunked layers: 36 holding at most 8192 tokens (one chunk)")) << text;
    EXPECT_TRUE(contains(text, "growing 6,442,450,944 + sliding 1,207,959,552 = 7,650,410,496 bytes")) << text;
}

TEST(Designs, EachWindowKindSaysWhatItsLayersHoldAndRoundTripsByName) {
    // explain words a bounded layer from its WindowKind, not from the text it was written as.
    for (kvcat::WindowKind k : {kvcat::WindowKind::sliding, kvcat::WindowKind::chunked}) {
        EXPECT_EQ(kvcat::parse_window_kind(kvcat::name_of(k)), k);
        EXPECT_FALSE(kvcat::bound_of(k).empty());
    }
    EXPECT_EQ(kvcat::bound_of(kvcat::WindowKind::sliding), "the window");
    EXPECT_EQ(kvcat::bound_of(kvcat::WindowKind::chunked), "one chunk");
}

TEST(ImportDesigns, Llama4WithoutNoRopeLayersGetsTransformersRuleAndSaysSo) {
    Imported raw("llama-4-scout-raw.json", "Llama-4-Scout-17B-16E", 109, 17);
    ASSERT_TRUE(raw.clean()) << raw.why();
    const Model& m = raw.model();
    EXPECT_EQ(m.kv_layers.count, 12);
    EXPECT_EQ(m.kv_layers.first_index, 3);
    EXPECT_EQ(m.sliding->layers, 36);
    EXPECT_EQ(m.sliding->kind, kvcat::WindowKind::chunked);
    EXPECT_TRUE(contains(flat(raw.result().text),
                         "the rule transformers applies for model_type llama4_text was "
                         "applied: every 4th layer (no_rope_layer_interval 4, its default)"))
        << raw.result().text;
}

TEST(ImportDesigns, ChunkSizeWithoutAKnownRuleIsRefused) {
    json config = config_fixture("llama-3.1-8b.json");
    config["attention_chunk_size"] = 8192;
    ImportResult r = import_as_x(config, 8);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "attention_chunk_size is set, but no_rope_layers does not say which layers"))
        << r.message();
}

// ---- all-sliding models -----------------------------------------------------------------

TEST(ImportDesigns, MistralV01SlidesOnEveryLayerSoNoLayerGrows) {
    Imported mistral("mistral-7b-v0.1.json", "Mistral-7B-v0.1", 7.24, 7.24);
    ASSERT_TRUE(mistral.clean()) << mistral.why();
    const Model& m = mistral.model();
    EXPECT_EQ(m.attention_variant, "sliding");
    EXPECT_EQ(m.kv_layers.count, 0);
    ASSERT_TRUE(m.sliding);
    EXPECT_EQ(m.sliding->layers, 32);
    EXPECT_EQ(m.sliding->window, 4096);
    auto basis = kvcat::model_basis(m);
    ASSERT_TRUE(basis);
    EXPECT_EQ(basis->window, 4096);
    EXPECT_EQ(basis->layers, 32);
    // Each token adds 32 x 8 x 128 x 2 x 2 = 131,072 bytes until the window is full, then nothing.
    EXPECT_EQ(per_token(m, "bf16"), Rational(131072));
    EXPECT_EQ(at_context(m, "bf16", 1000), Rational(131072LL * 1000));
    EXPECT_EQ(at_context(m, "bf16", 262144), Rational(512LL << 20));
    EXPECT_EQ(at_context(m, "bf16", 262144), at_context(m, "bf16", 4096));
    EXPECT_TRUE(contains(flat(mistral.result().text),
                         "rule transformers applies was applied: model_type mistral: "
                         "every layer attends over the sliding window"))
        << mistral.result().text;
}

TEST(ImportDesigns, AnAllSlidingRowStatesItsWindowAndLintsClean) {
    Imported mistral("mistral-7b-v0.1.json", "Mistral-7B-v0.1", 7.24, 7.24);
    ASSERT_TRUE(mistral.clean()) << mistral.why();
    kvcat::SkeletonOptions o;
    o.model = mistral.result().id;
    o.engine = "vLLM";
    o.kv_dtype = "bf16";
    o.context = 32768;
    kvcat::Skeleton s = kvcat::make_kv_skeleton(mistral.lint(), o);
    ASSERT_TRUE(s.problems.empty()) << s.problems.front();
    EXPECT_TRUE(contains(s.text, "  window: 4096")) << s.text;
    EXPECT_TRUE(contains(s.text, "= 131,072 B/token until the 4,096-token window is full")) << s.text;
    std::string finished = s.text +
                           "methodology: Derived from the model record.\n"
                           "notes: Every layer slides.\n"
                           "sources:\n  - name: the model record\n";
    write_file(mistral.records() / (s.id + ".yaml"), finished);
    auto lint = kvcat::lint_paths({mistral.records()});
    EXPECT_TRUE(lint.diagnostics.empty()) << describe(lint.diagnostics) << finished;
    // The statement must say where the growth stops.
    std::string silent = finished;
    auto at = silent.find(" until the 4,096-token window is full");
    ASSERT_NE(at, std::string::npos);
    silent.erase(at, std::string(" until the 4,096-token window is full; no layer grows past it").size());
    write_file(mistral.records() / (s.id + ".yaml"), silent);
    auto tripped = kvcat::lint_paths({mistral.records()});
    ASSERT_EQ(tripped.diagnostics.size(), 1u) << describe(tripped.diagnostics) << silent;
    EXPECT_EQ(tripped.diagnostics.front().rule, "kv-statement-mismatch");
    EXPECT_TRUE(contains(tripped.diagnostics.front().message, "does not give the window, 4,096 tokens"));
}

TEST(ImportDesigns, APatternOfOneWithAWindowIsRefusedNotDropped) {
    json config = config_fixture("mistral-7b-v0.1.json");
    config["sliding_window_pattern"] = 1;
    ImportResult r = import_as_x(config, 7);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(),
                         "sliding_window_pattern is 1, which makes every layer global, yet "
                         "sliding_window is set: the window would be silently dropped"))
        << r.message();
}

// ---- layouts transformers derives from model_type ----------------------------------------

TEST(ImportDesigns, RawGemma2AlternatesAndSaysTheRuleWasApplied) {
    Imported gemma("gemma-2-9b-it.json", "gemma-2-9b", 9.24, 9.24);
    ASSERT_TRUE(gemma.clean()) << gemma.why();
    const Model& m = gemma.model();
    EXPECT_EQ(m.kv_layers.count, 21);  // odd indices are global
    EXPECT_EQ(m.kv_layers.interval, 2);
    EXPECT_EQ(m.kv_layers.first_index, 1);
    EXPECT_EQ(m.sliding->layers, 21);
    EXPECT_EQ(m.sliding->window, 4096);
    EXPECT_EQ(per_token(m, "bf16"), Rational(21 * 8 * 256 * 2 * 2));
    EXPECT_TRUE(contains(flat(gemma.result().text), "the rule transformers applies was applied: model_type gemma2"))
        << gemma.result().text;
}

TEST(ImportDesigns, RawGemma3GetsItsPatternOfSix) {
    json config = config_fixture("gemma-3-27b.json");
    config["text_config"].erase("sliding_window_pattern");
    config["text_config"].erase("layer_types");
    config["text_config"]["model_type"] = "gemma3_text";
    ImportOptions o;
    o.config_file = "gemma-3-27b.json";
    o.name = "gemma-3-27b";
    o.total_params_b = o.active_params_b = 27;
    ImportResult r = kvcat::import_model_config(config, o);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(contains(r.text, "kv_layers:\n  count: 10\n  interval: 6\n  first_index: 5\n")) << r.text;
    EXPECT_TRUE(contains(flat(r.text), "model_type gemma3: every 6th layer is global")) << r.text;
}

// ---- cross-layer KV sharing -------------------------------------------------------------

TEST(ImportDesigns, Gemma3nSharedLayersAddNothing) {
    Imported e4b("gemma-3n-e4b.json", "gemma-3n-E4B", 7.85, 4);
    ASSERT_TRUE(e4b.clean()) << e4b.why();
    const Model& m = e4b.model();
    // Layers 20 to 34 reuse earlier caches: of the first 20, 4 are global (4, 9, 14, 19), 16 slide.
    EXPECT_EQ(m.kv_layers.count, 4);
    EXPECT_EQ(m.kv_layers.indices, (std::vector<std::int64_t>{4, 9, 14, 19}));
    EXPECT_EQ(m.kv_layers.shared, 15);
    EXPECT_EQ(m.sliding->layers, 16);
    EXPECT_EQ(m.sliding->window, 512);
    EXPECT_EQ(per_token(m, "bf16"), Rational(4 * 2 * 256 * 2 * 2));  // 8,192, not 7 x 2 x 256 x 4
    EXPECT_EQ(at_context(m, "bf16", 32768), Rational(8192LL * 32768 + 16LL * 2 * 256 * 2 * 2 * 512));
}

// ---- the DeepSeek-V3.2 indexer ----------------------------------------------------------

TEST(ImportDesigns, DeepSeekV32CachesTheIndexerKeyBesideTheLatent) {
    Imported ds("deepseek-v3.2.json", "DeepSeek-V3.2-Exp", 671, 37);
    ASSERT_TRUE(ds.clean()) << ds.why();
    const Model& m = ds.model();
    ASSERT_TRUE(m.indexer);
    EXPECT_EQ(kvcat::indexer_bytes_per_token_layer(*m.indexer),
              132);  // 128 fp8 keys + one 4-byte scale
    // 61 x (576 x 2 + 132) at bf16; 61 x (576 x 1 + 132) at fp8: the indexer keeps its own dtype.
    EXPECT_EQ(per_token(m, "bf16"), Rational(61 * (576 * 2 + 132)));
    EXPECT_EQ(per_token(m, "bf16"), Rational(78324));
    EXPECT_EQ(per_token(m, "fp8"), Rational(61 * (576 + 132)));
    EXPECT_EQ(at_context(m, "fp8", 131072), Rational(43188LL * 131072));
}

TEST(ImportDesigns, AnIndexerRowCarriesTheTermAndLintsClean) {
    Imported ds("deepseek-v3.2.json", "DeepSeek-V3.2-Exp", 671, 37);
    ASSERT_TRUE(ds.clean()) << ds.why();
    kvcat::SkeletonOptions o;
    o.model = ds.result().id;
    o.engine = "vLLM";
    o.kv_dtype = "fp8";
    o.context = 131072;
    kvcat::Skeleton s = kvcat::make_kv_skeleton(ds.lint(), o);
    ASSERT_TRUE(s.problems.empty()) << s.problems.front();
    EXPECT_EQ(s.kv_bytes_per_token, Rational(43188));
    EXPECT_TRUE(contains(s.text, "  indexer_bytes: 132")) << s.text;
    std::string finished = s.text +
                           "methodology: Derived from the model record.\n"
                           "notes: The indexer keys are fp8.\n"
                           "sources:\n  - name: the model record\n";
    write_file(ds.records() / (s.id + ".yaml"), finished);
    auto lint = kvcat::lint_paths({ds.records()});
    EXPECT_TRUE(lint.diagnostics.empty()) << describe(lint.diagnostics) << finished;
    // Leaving the indexer out of the basis is a finding against the model.
    std::string without = finished;
    auto at = without.find("  indexer_bytes: 132");
    without.erase(at, without.find('\n', at) - at + 1);
    write_file(ds.records() / (s.id + ".yaml"), without);
    auto tripped = kvcat::lint_paths({ds.records()});
    bool named = false;
    for (const auto& d : tripped.diagnostics)
        named |= d.rule == "kv-basis-model" && contains(d.message, "indexer_bytes");
    EXPECT_TRUE(named) << describe(tripped.diagnostics);
}

// ---- Mamba hybrids ----------------------------------------------------------------------

TEST(ImportDesigns, JambaMamba1StateIsInnerTimesConvAndState) {
    Imported jamba("jamba-v0.1.json", "Jamba-v0.1", 51.6, 12);
    ASSERT_TRUE(jamba.clean()) << jamba.why();
    const Model& m = jamba.model();
    EXPECT_EQ(m.attention_variant, "hybrid");
    EXPECT_EQ(m.kv_layers.count, 4);
    ASSERT_TRUE(m.linear);
    EXPECT_EQ(m.linear->kind, kvcat::StateKind::mamba1);
    EXPECT_EQ(m.linear->layers, 28);
    EXPECT_EQ(m.linear->inner_dim, 8192);  // mamba_expand 2 x hidden_size 4096
    EXPECT_EQ(m.linear->state_dim, 16);
    // Per Mamba layer: conv 8,192 x (4 - 1) + SSM 8,192 x 16 = 155,648 elements, f32.
    EXPECT_EQ(kvcat::fixed_state_bytes(m), Rational(28LL * (8192 * 3 + 8192 * 16) * 4));
    EXPECT_EQ(per_token(m, "bf16"), Rational(4 * 8 * 128 * 2 * 2));
}

TEST(ImportDesigns, FalconH1HasAttentionAndMamba2InEveryLayer) {
    Imported falcon("falcon-h1-1.5b.json", "Falcon-H1-1.5B-Base", 1.55, 1.55);
    ASSERT_TRUE(falcon.clean()) << falcon.why();
    const Model& m = falcon.model();
    EXPECT_EQ(m.attention_variant, "hybrid");
    EXPECT_EQ(m.kv_layers.count, 24);
    ASSERT_TRUE(m.linear);
    EXPECT_TRUE(m.linear->beside_attention);
    EXPECT_EQ(m.linear->kind, kvcat::StateKind::mamba2);
    EXPECT_EQ(m.linear->layers, 24);
    EXPECT_EQ(per_token(m, "bf16"), Rational(24 * 2 * 128 * 2 * 2));
    // vLLM's Mamba-2 shapes: conv over d_ssm 3,072 + 2 x 1 group x 256 = 3,584 channels x 3,
    // SSM 48 heads x 64 x 256.
    std::int64_t per_layer = 3 * (3072 + 2 * 256) + 48 * 64 * 256;
    EXPECT_EQ(per_layer, 797184);
    EXPECT_EQ(kvcat::fixed_state_bytes(m), Rational(24LL * per_layer * 4));
}

TEST(ImportDesigns, FalconH1WhoseInnerWidthIsNotHeadsTimesWidthIsRefused) {
    json config = config_fixture("falcon-h1-1.5b.json");
    config["mamba_d_ssm"] = 4096;
    ImportResult r = import_as_x(config, 1.5);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "mamba_d_ssm 4096 is not mamba_n_heads 48 x mamba_d_head 64")) << r.message();
}

TEST(ImportDesigns, NemotronHPatternStringMambaAttentionAndMlpLayers) {
    Imported nemotron("nemotron-h-8b.json", "Nemotron-H-8B-Base-8K", 8, 8);
    ASSERT_TRUE(nemotron.clean()) << nemotron.why();
    const Model& m = nemotron.model();
    EXPECT_EQ(m.kv_layers.count, 4);
    EXPECT_EQ(m.kv_layers.indices, (std::vector<std::int64_t>{7, 18, 29, 40}));
    EXPECT_EQ(m.kv_layers.stateless, 24);
    EXPECT_EQ(m.head_dim, 128);  // attention_head_dim
    ASSERT_TRUE(m.linear);
    EXPECT_EQ(m.linear->layers, 24);
    EXPECT_EQ(per_token(m, "bf16"), Rational(4 * 8 * 128 * 2 * 2));
    // conv 3 x (8,192 + 2 x 8 x 128) + SSM 128 x 64 x 128 = 1,079,296 elements per Mamba layer.
    EXPECT_EQ(kvcat::fixed_state_bytes(m), Rational(24LL * 1079296 * 4));
}

TEST(ImportDesigns, Lfm2ConvLayersKeepOnlyAConvState) {
    Imported lfm2("lfm2-1.2b.json", "LFM2-1.2B", 1.17, 1.17);
    ASSERT_TRUE(lfm2.clean()) << lfm2.why();
    const Model& m = lfm2.model();
    EXPECT_EQ(m.kv_layers.indices, (std::vector<std::int64_t>{2, 5, 8, 10, 12, 14}));
    ASSERT_TRUE(m.linear);
    EXPECT_EQ(m.linear->kind, kvcat::StateKind::short_conv);
    EXPECT_EQ(m.linear->layers, 10);
    EXPECT_EQ(m.linear->inner_dim, 2048);
    EXPECT_EQ(per_token(m, "bf16"), Rational(6 * 8 * 64 * 2 * 2));
    // 10 layers x (3 - 1) x 2,048 channels, f32 (81,920 bytes at the model's bf16).
    EXPECT_EQ(kvcat::fixed_state_bytes(m), Rational(10 * 2 * 2048 * 4));
    // The published config has full_attn_idxs and no layer_types: the record says which rule made
    // the layout, and that conv_dim (2,048) and num_heads (32) were read and agree.
    std::string notes = flat(lfm2.result().text);
    EXPECT_TRUE(contains(notes, "full_attn_idxs but no layer_types, so the rule transformers applies (Lfm2Config)"))
        << lfm2.result().text;
    // A short convolution has no SSM: the state dtype note does not speak of mamba_ssm_dtype.
    EXPECT_FALSE(contains(notes, "mamba_ssm_dtype")) << notes;
    EXPECT_TRUE(contains(notes, "no dtype for the convolution state; it is taken as float32")) << notes;
    const auto& looked_at = lfm2.result().keys_read;
    for (const char* key : {"conv_dim", "num_heads"}) {
        EXPECT_NE(std::find(looked_at.begin(), looked_at.end(), key), looked_at.end()) << key;
    }
}

TEST(ImportDesigns, FalconH1WithEveryKeyOfAFullConfigImportsTheSameWay) {
    // The Falcon-H1-0.5B key set (muP multipliers, mamba_use_mlp, ...): none changes the cache.
    Imported falcon("falcon-h1-0.5b-quoted.json", "Falcon-H1-0.5B-Base", 0.52, 0.52);
    ASSERT_TRUE(falcon.clean()) << falcon.why();
    const Model& m = falcon.model();
    EXPECT_EQ(m.attention_variant, "hybrid");
    EXPECT_EQ(m.kv_layers.count, 36);
    ASSERT_TRUE(m.linear);
    EXPECT_TRUE(m.linear->beside_attention);
    EXPECT_EQ(m.linear->layers, 36);
    // 36 layers x 2 kv heads x 64 x 2 (K+V) x 2 bytes = 18,432 B/token at bf16.
    EXPECT_EQ(per_token(m, "bf16"), Rational(18432));
    // Per layer: conv (4 - 1) x (24 heads x 64 + 2 x 1 group x 128) = 3 x 1,792 = 5,376, SSM
    // 24 x 64 x 128 = 196,608: 201,984 elements; x 36 layers x 4 bytes (f32) = 29,085,696.
    EXPECT_EQ(kvcat::fixed_state_bytes(m), Rational(29085696));
}

TEST(ImportDesigns, Granite4HLayerTypesWithMamba2Layers) {
    Imported granite("granite-4.0-h-350m.json", "granite-4.0-h-350m", 0.34, 0.34);
    ASSERT_TRUE(granite.clean()) << granite.why();
    const Model& m = granite.model();
    EXPECT_EQ(m.kv_layers.indices, (std::vector<std::int64_t>{10, 13, 17, 27}));
    ASSERT_TRUE(m.linear);
    EXPECT_EQ(m.linear->kind, kvcat::StateKind::mamba2);
    EXPECT_EQ(m.linear->layers, 28);
    EXPECT_EQ(per_token(m, "bf16"), Rational(4 * 4 * 64 * 2 * 2));  // head_dim 768 / 12
    // conv 3 x (48 x 32 + 2 x 1 x 128) + SSM 48 x 32 x 128 = 201,984 elements per Mamba layer.
    EXPECT_EQ(kvcat::fixed_state_bytes(m), Rational(28LL * 201984 * 4));
}

TEST(ImportDesigns, Granite4StyleLayerTypesWithMambaLayers) {
    // The layer_types spelling of Granite-4.0-H (mamba / attention) over the Nemotron-H sizes.
    json config = config_fixture("mamba2-hybrid.json");
    config.erase("attn_layer_period");
    config.erase("attn_layer_offset");
    config["layer_types"] = json::array();
    for (int i = 0; i < 32; ++i) config["layer_types"].push_back(i % 8 == 4 ? "attention" : "mamba");
    ImportOptions o;
    o.config_file = "g.json";
    o.name = "G";
    o.total_params_b = o.active_params_b = 9;
    ImportResult r = kvcat::import_model_config(config, o);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(contains(r.text, "kv_layers:\n  count: 4\n  interval: 8\n  first_index: 4\n")) << r.text;
    EXPECT_TRUE(contains(r.text, "  kind: mamba2\n  layers: 28\n")) << r.text;
}

// ---- lightning attention ----------------------------------------------------------------

TEST(ImportDesigns, MiniMaxM1LightningLayersKeepAHeadsByWidthSquaredState) {
    Imported m1("minimax-m1.json", "MiniMax-M1", 456, 45.9);
    ASSERT_TRUE(m1.clean()) << m1.why();
    const Model& m = m1.model();
    EXPECT_EQ(m.attention_variant, "hybrid");
    // attn_type_list: a softmax layer (1) at every 8th index from 7.
    EXPECT_EQ(m.kv_layers.count, 10);
    EXPECT_EQ(m.kv_layers.interval, 8);
    EXPECT_EQ(m.kv_layers.first_index, 7);
    ASSERT_TRUE(m.linear);
    EXPECT_EQ(m.linear->kind, kvcat::StateKind::lightning);
    EXPECT_EQ(m.linear->layers, 70);
    EXPECT_EQ(per_token(m, "bf16"), Rational(10 * 8 * 128 * 2 * 2));
    // vLLM's linear-attention state: 64 heads x 128 x 128 per layer, no conv; f32 here.
    EXPECT_EQ(kvcat::fixed_state_bytes(m), Rational(70LL * 64 * 128 * 128 * 4));
}

// ---- the Jamba paper's table ------------------------------------------------------------

TEST(ImportDesigns, JambaPaperKvCacheAt256kTokensIn16Bit) {
    // Jamba (arXiv 2403.19887) and Jamba-1.5 (arXiv 2408.12570) Table 1: KV cache at 256K
    // tokens, 16-bit: Llama-2 7B 128 GB, Mistral 32 GB, Mixtral 32 GB, Jamba 4 GB.
    constexpr std::int64_t k256 = 262144;
    struct Row {
        const char* fixture;
        const char* name;
        std::int64_t gib;
    };
    for (const Row& row : {Row{"llama-2-7b-hf.json", "Llama-2-7b", 128}, Row{"mistral-7b-v0.2.json", "Mistral-7B", 32},
                           Row{"mixtral-8x7b-v0.1.json", "Mixtral-8x7B", 32}, Row{"jamba-v0.1.json", "Jamba", 4}}) {
        SCOPED_TRACE(row.fixture);
        Imported imported(row.fixture, row.name);
        ASSERT_TRUE(imported.clean()) << imported.why();
        EXPECT_EQ(at_context(imported.model(), "bf16", k256), Rational(row.gib * kGiB));
    }
    // The table's Mistral is the one without a window: v0.1's 4,096-token window holds 512 MiB.
    Imported v01("mistral-7b-v0.1.json", "Mistral-7B-v0.1");
    ASSERT_TRUE(v01.clean()) << v01.why();
    EXPECT_EQ(at_context(v01.model(), "bf16", k256), Rational(kGiB / 2));
}

// ---- bad layouts are named, never guessed ----------------------------------------------

ImportResult import_edited(const std::string& fixture, const std::function<void(json&)>& edit) {
    json config = config_fixture(fixture);
    edit(config);
    return import_as_x(config, 10, fixture);
}

TEST(ImportDesigns, BrokenLayoutKeysAreNamedWithWhatWasExpected) {
    struct Case {
        const char* fixture;
        std::function<void(json&)> edit;
        const char* message;
    };
    const Case cases[] = {
        {"nemotron-h-8b.json", [](json& c) { c["hybrid_override_pattern"] = "M-M*"; },
         "hybrid_override_pattern must have one character per layer (52)"},
        {"nemotron-h-8b.json",
         [](json& c) {
             std::string p = c["hybrid_override_pattern"];
             p[3] = 'X';
             c["hybrid_override_pattern"] = p;
         },
         "hybrid_override_pattern[3] is 'X'; kvcat reads M (Mamba-2), * (attention)"},
        {"minimax-m1.json", [](json& c) { c["attn_type_list"][5] = 2; },
         "attn_type_list[5] is 2; expected 1 (softmax attention) or 0 (lightning attention)"},
        {"llama-4-scout.json",
         [](json& c) {
             c["text_config"]["no_rope_layers"] = json::array({1, 0});
         },
         "text_config.no_rope_layers must have one entry per layer (48); found 2"},
        {"gemma-3n-e4b.json", [](json& c) { c["text_config"]["num_kv_shared_layers"] = 35; },
         "text_config.num_kv_shared_layers is 35, but the model has 35 layers"},
        {"llama-3.1-8b.json", [](json& c) { c["index_head_dim"] = 128; },
         "index_head_dim is set on a model that is not MLA"},
        {"lfm2-1.2b.json", [](json& c) { c.erase("conv_L_cache"); },
         "the 10 convolution layers need conv_L_cache and hidden_size; the config lacks "
         "conv_L_cache"},
        {"lfm2-1.2b.json",
         [](json& c) {
             // layer_types as Lfm2Config derives it from full_attn_idxs, then a list that leaves out 8.
             json types = json::array();
             for (int i = 0; i < 16; ++i) {
                 bool attends = i == 2 || i == 5 || i == 8 || i == 10 || i == 12 || i == 14;
                 types.push_back(attends ? "full_attention" : "conv");
             }
             c["layer_types"] = types;
             c["full_attn_idxs"] = json::array({2, 5});
         },
         "full_attn_idxs and layer_types disagree about layer 8"},
        {"lfm2-1.2b.json",
         [](json& c) {
             c["full_attn_idxs"] = json::array({2, 16});
         },
         "full_attn_idxs holds 16; expected layer indices from 0 to 15"},
        {"lfm2-1.2b.json", [](json& c) { c["conv_dim"] = 1024; },
         "conv_dim is 1024 but hidden_size is 2048; the conv state's width would be wrong"},
        {"lfm2-1.2b.json", [](json& c) { c["num_heads"] = 16; }, "num_heads is 16 but num_attention_heads is 32"},
        {"gemma-2-9b-it.json", [](json& c) { c["sliding_window_size"] = 2048; },
         "sliding_window_size 2048 disagrees with sliding_window 4096"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.message);
        ImportResult r = import_edited(c.fixture, c.edit);
        ASSERT_FALSE(r.ok());
        EXPECT_TRUE(contains(r.message(), c.message)) << r.message();
        EXPECT_TRUE(r.text.empty());
    }
}

// ---- right or refused -------------------------------------------------------------------

TEST(ConfigKeys, TheTableIsSortedAndNamesEachKeyOnce) {
    auto keys = kvcat::config_keys();
    for (std::size_t i = 1; i < keys.size(); ++i) EXPECT_LT(keys[i - 1].name, keys[i].name);
    for (const auto& k : keys) {
        if (k.use != kvcat::KeyUse::read) {
            EXPECT_FALSE(k.why.empty()) << k.name << " says not why";
        }
    }
}

TEST(ConfigKeys, EveryKeyOfEveryConfigFixtureIsReadIgnoredOrRefused) {
    int fixtures = 0;
    for (const auto& entry : fs::directory_iterator(fixture_path("configs"))) {
        if (entry.path().extension() != ".json") continue;
        json config;
        try {
            config = kvcat::parse_config_json(read_file(entry.path()));
        } catch (const json::exception&) {
            EXPECT_EQ(entry.path().filename(), "not-json.json") << "does not parse";
            continue;
        }
        if (!config.is_object()) continue;
        ++fixtures;
        std::vector<const json*> scopes{&config};
        if (config.contains("text_config") && config["text_config"].is_object())
            scopes.push_back(&config["text_config"]);
        for (const json* scope : scopes) {
            for (const auto& [key, value] : scope->items()) {
                EXPECT_TRUE(kvcat::find_config_key(key))
                    << entry.path().filename() << ": '" << key << "' is neither read nor listed as irrelevant";
            }
        }
        // The table's "read" is what the import looks at: every key consulted is listed as read.
        for (const auto& key : import_as_x(config, 1, entry.path().filename().string()).keys_read) {
            const kvcat::ConfigKey* k = kvcat::find_config_key(key);
            EXPECT_TRUE(k && k->use == kvcat::KeyUse::read)
                << entry.path().filename() << ": the import reads '" << key << "', which the table does not list "
                << "as read";
        }
    }
    EXPECT_GE(fixtures, 15);
}

TEST(ConfigKeys, AKnownUnmodelledKeyIsRefusedByName) {
    json config = config_fixture("llama-3.1-8b.json");
    config["layers_block_type"] = json::array({"mamba", "hybrid"});
    ImportOptions o;
    o.config_file = "c.json";
    o.name = "Zamba-Like";
    o.total_params_b = o.active_params_b = 8;
    ImportResult r = kvcat::import_model_config(config, o);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(),
                         "layers_block_type is set: Zamba-style blocks, where attention layers share "
                         "weights and caches"))
        << r.message();
    EXPECT_TRUE(contains(r.message(), "The cache or state figures would be wrong")) << r.message();
}

TEST(ConfigKeys, DeepSeekV4CompressedAttentionIsRefusedByName) {
    ImportOptions o;
    o.config_file = "deepseek-v4-flash.json";
    o.name = "DeepSeek-V4-Flash";
    o.total_params_b = 284;
    o.active_params_b = 13;
    ImportResult r = kvcat::import_model_config(config_fixture("deepseek-v4-flash.json"), o);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "compress_ratios is set: DeepSeek-V4's per-layer KV compression")) << r.message();
    EXPECT_TRUE(r.text.empty());
}

TEST(ConfigKeys, AnUnknownKeyThatLooksCacheRelevantIsRefusedAnOtherIsNamedInTheNotes) {
    json config = config_fixture("llama-3.1-8b.json");
    config["global_kv_window_layers"] = 4;
    ImportResult r = import_as_x(config, 8);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(),
                         "global_kv_window_layers is a key kvcat does not know, and its name says it "
                         "may change the KV cache"))
        << r.message();

    config.erase("global_kv_window_layers");
    config["favourite_colour"] = "teal";
    ImportResult quiet = import_as_x(config, 8);
    ASSERT_TRUE(quiet.ok()) << quiet.message();
    EXPECT_TRUE(contains(flat(quiet.text),
                         "Keys kvcat does not know, taken as not bearing on the cache because their "
                         "names say nothing of layers, heads, windows or state: favourite_colour."))
        << quiet.text;
}

}  // namespace
