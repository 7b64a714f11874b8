// kvcat import-config: a model record from a Hugging Face config.json.
//
// Each fixture under tests/fixtures/configs/ is written from the facts in
// shared/reference/kv-facts.md. A round trip imports it into a copy of the shipped
// records (replacing the hand-written record of the same model, so every kv-efficiency
// row that names the model is checked against the imported one), lints the whole tree
// and asserts no finding, then compares the imported figures with the expected ones.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "engines/ik_llama/ik_llama_allocation.h"
#include "import/import_config.h"
#include "kvcat_runner.h"
#include "test_util.h"
#include "vocab/dtype.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using kvcat::ImportOptions;
using kvcat::ImportResult;
using kvcat::LintResult;
using kvcat::test::contains;
using kvcat::test::describe;
using kvcat::test::fixture_path;
using kvcat::test::flat;
using kvcat::test::read_file;
using kvcat::test::TempDir;
using kvcat::test::write_file;

json load_config(const std::string& name) {
    return json::parse(read_file(fixture_path("configs/" + name)));
}

ImportOptions options_for(const std::string& file, const std::string& name, double total, double active) {
    ImportOptions o;
    o.config_file = file;
    o.name = name;
    o.total_params_b = total;
    o.active_params_b = active;
    return o;
}

/// Prose in a record, wherever its lines wrap.
bool says(const std::string& record, const std::string& sentence) {
    return contains(flat(record), sentence);
}

/// The shipped records copied into a temp tree, with one model record replaced by `text`.
class ImportedTree {
  public:
    ImportedTree(const std::string& id, const std::string& text) {
        kvcat::test::copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", records_);
        file_ = records_ / (id + ".yaml");
        fs::remove(file_);  // the hand-written record of the same model, if any
        write_file(file_, text);
        lint_ = kvcat::lint_paths({records_});
    }
    const LintResult& lint() const { return lint_; }
    const kvcat::Model& model(const std::string& id) const {
        const kvcat::Record* r = lint_.records.find(id);
        if (!r || !r->model) throw std::runtime_error("no model " + id);
        return *r->model;
    }
    const fs::path& records() const { return records_; }

  private:
    TempDir tmp_;
    fs::path records_ = tmp_.path() / "records";
    fs::path file_;
    LintResult lint_;
};

/// The hand-written model record, as the shipped tree has it.
kvcat::Model shipped_model(const std::string& id) {
    LintResult r = kvcat::lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
    const kvcat::Record* rec = r.records.find(id);
    if (!rec || !rec->model) throw std::runtime_error("no shipped model " + id);
    return *rec->model;
}

/// The architecture figures two model records must share.
void expect_same_architecture(const kvcat::Model& a, const kvcat::Model& b) {
    EXPECT_EQ(a.num_layers, b.num_layers);
    EXPECT_EQ(a.native_context, b.native_context);
    EXPECT_EQ(a.attention_variant, b.attention_variant);
    EXPECT_EQ(a.attention_heads, b.attention_heads);
    EXPECT_EQ(a.kv_heads, b.kv_heads);
    EXPECT_EQ(a.head_dim, b.head_dim);
    EXPECT_EQ(a.kv_layers.count, b.kv_layers.count);
    EXPECT_EQ(a.kv_layers.interval, b.kv_layers.interval);
    EXPECT_EQ(a.kv_layers.first_index, b.kv_layers.first_index);
    EXPECT_EQ(a.mla.has_value(), b.mla.has_value());
    if (a.mla && b.mla) {
        EXPECT_EQ(a.mla->latent_dim(), b.mla->latent_dim());
    }
    EXPECT_EQ(a.sliding.has_value(), b.sliding.has_value());
    if (a.sliding && b.sliding) {
        EXPECT_EQ(a.sliding->window, b.sliding->window);
        EXPECT_EQ(a.sliding->layers, b.sliding->layers);
    }
    EXPECT_EQ(a.linear.has_value(), b.linear.has_value());
    if (a.linear && b.linear) {
        EXPECT_EQ(a.linear->kind, b.linear->kind);
        EXPECT_EQ(a.linear->layers, b.linear->layers);
        EXPECT_EQ(a.linear->key_heads, b.linear->key_heads);
        EXPECT_EQ(a.linear->value_heads, b.linear->value_heads);
        EXPECT_EQ(a.linear->key_head_dim, b.linear->key_head_dim);
        EXPECT_EQ(a.linear->value_head_dim, b.linear->value_head_dim);
        EXPECT_EQ(a.linear->conv_kernel, b.linear->conv_kernel);
        EXPECT_EQ(a.linear->state_dtype, b.linear->state_dtype);
    }
}

// ---- round trips of the four reference configs --------------------------------------

TEST(ImportConfig, LlamaGqaRoundTripsAndLintsClean) {
    ImportResult r = kvcat::import_model_config(load_config("llama-3.1-8b.json"),
                                                options_for("llama-3.1-8b.json", "Llama-3.1-8B", 8, 8));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r.id, "models/llama-3.1-8b");
    EXPECT_TRUE(r.text.starts_with("# yaml-language-server: $schema=../../schema/model.schema.json\n")) << r.text;
    ImportedTree tree(r.id, r.text);
    EXPECT_TRUE(tree.lint().diagnostics.empty()) << describe(tree.lint().diagnostics) << r.text;
    const kvcat::Model& m = tree.model(r.id);
    EXPECT_EQ(m.attention_variant, "gqa");
    EXPECT_EQ(m.kv_heads, 8);
    EXPECT_EQ(m.head_dim, 128);  // derived: the config has no head_dim
    EXPECT_EQ(m.kv_layers.count, 32);
    EXPECT_FALSE(m.kv_layers.interval.has_value());
    EXPECT_EQ(m.native_context, 131072);
    EXPECT_FALSE(m.config_verified);
    EXPECT_TRUE(says(r.text, "4096 (hidden_size) / 32 (num_attention_heads) = 128")) << r.text;
    expect_same_architecture(m, shipped_model(r.id));
}

TEST(ImportConfig, DeepSeekMlaRoundTripsAndLintsClean) {
    ImportResult r = kvcat::import_model_config(load_config("deepseek-v3.json"),
                                                options_for("deepseek-v3.json", "DeepSeek-V3", 671, 37));
    ASSERT_TRUE(r.ok()) << r.message();
    ImportedTree tree(r.id, r.text);
    EXPECT_TRUE(tree.lint().diagnostics.empty()) << describe(tree.lint().diagnostics) << r.text;
    const kvcat::Model& m = tree.model("models/deepseek-v3");
    EXPECT_EQ(m.attention_variant, "mla");
    ASSERT_TRUE(m.mla.has_value());
    EXPECT_EQ(m.mla->kv_lora_rank, 512);
    EXPECT_EQ(m.mla->qk_rope_head_dim, 64);
    EXPECT_EQ(m.mla->latent_dim(), 576);
    EXPECT_EQ(m.num_layers, 61);  // the MTP layer is not a serving decoder layer
    EXPECT_EQ(m.kv_layers.count, 61);
    EXPECT_FALSE(m.kv_heads.has_value());
    EXPECT_EQ(m.native_context, 163840);
    EXPECT_EQ(m.total_params_b, 671);
    EXPECT_EQ(m.active_params_b, 37);
    EXPECT_TRUE(
        says(r.text, "Multi-token prediction (num_nextn_predict_layers 1): 1 MTP attention layer is not counted"))
        << r.text;
    expect_same_architecture(m, shipped_model("models/deepseek-v3"));
}

TEST(ImportConfig, AnMlaModelKeepsTheHeadWidthsItsLatentExpandsTo) {
    // qk_nope_head_dim + qk_rope_head_dim and v_head_dim were dropped, so ik_llama.cpp's -mla 0
    // (every head's K and V) could not be worked out for an imported MLA model.
    ImportResult r = kvcat::import_model_config(load_config("deepseek-v3.json"),
                                                options_for("deepseek-v3.json", "DeepSeek-V3", 671, 37));
    ASSERT_TRUE(r.ok()) << r.message();
    ImportedTree tree(r.id, r.text);
    const kvcat::Model& m = tree.model("models/deepseek-v3");
    EXPECT_EQ(m.head_dim, 192);  // 128 + 64
    EXPECT_EQ(m.v_head_dim, 128);
    auto f16 = kvcat::find_cache_dtype("f16");
    ASSERT_TRUE(f16);
    kvcat::LlamaCacheBytes b = kvcat::llamacpp_every_head_bytes(m, *f16, *f16, 1);
    // 61 layers x 128 heads x (192 + 128) elements x 2 bytes, one cell.
    EXPECT_EQ(b.k + b.v, kvcat::Rational(61 * 128 * (192 + 128) * 2));
}

TEST(ImportConfig, GemmaSlidingPatternRoundTripsAndLintsClean) {
    ImportResult r = kvcat::import_model_config(load_config("gemma-3-27b.json"),
                                                options_for("gemma-3-27b.json", "Gemma-3-27B", 27, 27));
    ASSERT_TRUE(r.ok()) << r.message();
    ImportedTree tree(r.id, r.text);
    EXPECT_TRUE(tree.lint().diagnostics.empty()) << describe(tree.lint().diagnostics) << r.text;
    const kvcat::Model& m = tree.model("models/gemma-3-27b");
    EXPECT_EQ(m.attention_variant, "sliding");
    EXPECT_EQ(m.kv_layers.count, 10);
    EXPECT_EQ(m.kv_layers.interval, 6);
    EXPECT_EQ(m.kv_layers.first_index, 5);
    ASSERT_TRUE(m.sliding.has_value());
    EXPECT_EQ(m.sliding->window, 1024);
    EXPECT_EQ(m.sliding->layers, 52);
    EXPECT_EQ(m.head_dim, 128);  // the config's head_dim, not hidden_size / heads (168)
    EXPECT_EQ(m.kv_heads, 16);
    EXPECT_TRUE(contains(r.text, "config_source: text_config of gemma-3-27b.json")) << r.text;
    expect_same_architecture(m, shipped_model("models/gemma-3-27b"));
}

TEST(ImportConfig, GemmaLayerTypesGiveTheSameLayout) {
    json config = load_config("gemma-3-27b.json");
    json& text = config["text_config"];
    text.erase("sliding_window_pattern");
    json types = json::array();
    for (int i = 0; i < 62; ++i) types.push_back((i + 1) % 6 == 0 ? "full_attention" : "sliding_attention");
    text["layer_types"] = types;
    ImportResult r = kvcat::import_model_config(config, options_for("gemma-3-27b.json", "Gemma-3-27B", 27, 27));
    ASSERT_TRUE(r.ok()) << r.message();
    ImportedTree tree(r.id, r.text);
    EXPECT_TRUE(tree.lint().diagnostics.empty()) << describe(tree.lint().diagnostics) << r.text;
    expect_same_architecture(tree.model(r.id), shipped_model("models/gemma-3-27b"));
}

TEST(ImportConfig, QwenHybridNestedRoundTripsAgainstTheShippedRows) {
    ImportResult r = kvcat::import_model_config(load_config("qwen3.5-27b.json"),
                                                options_for("qwen3.5-27b.json", "Qwen3.5-27B", 27, 27));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r.id, "models/qwen3.5-27b");
    // The shipped llama.cpp row names models/qwen3.5-27b: it is now checked against the import.
    ImportedTree tree(r.id, r.text);
    EXPECT_TRUE(tree.lint().diagnostics.empty()) << describe(tree.lint().diagnostics) << r.text;
    const kvcat::Model& m = tree.model(r.id);
    EXPECT_EQ(m.attention_variant, "hybrid");
    EXPECT_EQ(m.kv_layers.count, 16);
    EXPECT_EQ(m.kv_layers.interval, 4);
    EXPECT_EQ(m.kv_layers.first_index, 3);
    ASSERT_TRUE(m.linear.has_value());
    EXPECT_EQ(m.linear->kind, kvcat::StateKind::gated_deltanet);
    EXPECT_EQ(m.linear->layers, 48);
    EXPECT_EQ(m.linear->value_heads, 48);
    EXPECT_EQ(m.linear->state_dtype, "float32");
    expect_same_architecture(m, shipped_model("models/qwen3.5-27b"));
}

// ---- layouts ----------------------------------------------------------------------------

json small_config() {
    return json{{"num_hidden_layers", 8},
                {"num_attention_heads", 8},
                {"num_key_value_heads", 2},
                {"head_dim", 64},
                {"max_position_embeddings", 4096}};
}

TEST(ImportConfig, IrregularFullLayersAreListedByIndex) {
    json config = small_config();
    config["layer_types"] = {"full_attention",    "sliding_attention", "sliding_attention", "full_attention",
                             "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"};
    config["sliding_window"] = 512;
    ImportResult r = kvcat::import_model_config(config, options_for("c.json", "Small", 1, 1));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(contains(r.text, "kv_layers:\n  count: 3\n  indices: [0, 3, 7]\n")) << r.text;
    ImportedTree tree(r.id, r.text);
    EXPECT_TRUE(tree.lint().diagnostics.empty()) << describe(tree.lint().diagnostics) << r.text;
}

TEST(ImportConfig, FullAttentionIntervalAloneMakesAHybrid) {
    json config = load_config("qwen3.5-27b.json");
    config["text_config"].erase("layer_types");
    ImportResult r = kvcat::import_model_config(config, options_for("q.json", "Qwen3.5-27B", 27, 27));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(contains(r.text, "kv_layers:\n  count: 16\n  interval: 4\n  first_index: 3\n")) << r.text;
}

TEST(ImportConfig, LayerTypesThatContradictTheIntervalFail) {
    json config = load_config("qwen3.5-27b.json");
    config["text_config"]["layer_types"][3] = "linear_attention";
    config["text_config"]["layer_types"][2] = "full_attention";
    ImportResult r = kvcat::import_model_config(config, options_for("q.json", "Qwen3.5-27B", 27, 27));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(),
                         "text_config.full_attention_interval says every 4th layer is full attention, "
                         "but text_config.layer_types[2] disagrees"))
        << r.message();
}

TEST(ImportConfig, UnknownLayerTypeFails) {
    json config = small_config();
    config["layer_types"] = json::array();
    for (int i = 0; i < 8; ++i) config["layer_types"].push_back(i == 5 ? "ring_attention" : "full_attention");
    ImportResult r = kvcat::import_model_config(config, options_for("c.json", "Small", 1, 1));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "layer_types[5] is 'ring_attention'")) << r.message();
}

TEST(ImportConfig, MissingKvHeadsDefaultToQueryHeadsAndSaySo) {
    json config = small_config();
    config.erase("num_key_value_heads");
    ImportResult r = kvcat::import_model_config(config, options_for("c.json", "Small", 1, 1));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(contains(r.text, "attention_variant: mha\n")) << r.text;
    EXPECT_TRUE(contains(r.text, "kv_heads: 8\n")) << r.text;
    EXPECT_TRUE(says(r.text, "no num_key_value_heads; it defaults to num_attention_heads (8)")) << r.text;
}

TEST(ImportConfig, OneKvHeadIsMqa) {
    json config = small_config();
    config["num_key_value_heads"] = 1;
    ImportResult r = kvcat::import_model_config(config, options_for("c.json", "Small", 1, 1));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(contains(r.text, "attention_variant: mqa\n")) << r.text;
}

TEST(ImportConfig, SlidingWindowWithoutAPatternIsNotGuessed) {
    json config = small_config();
    config["sliding_window"] = 4096;
    ImportResult r = kvcat::import_model_config(config, options_for("c.json", "Small", 1, 1));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "sliding_window is set, but neither sliding_window_pattern nor layer_types"))
        << r.message();
    // A disabled window is not a sliding model.
    config["use_sliding_window"] = false;
    ImportResult off = kvcat::import_model_config(config, options_for("c.json", "Small", 1, 1));
    ASSERT_TRUE(off.ok()) << off.message();
    EXPECT_TRUE(contains(off.text, "attention_variant: gqa\n")) << off.text;
    EXPECT_TRUE(says(off.text, "use_sliding_window is false")) << off.text;
}

TEST(ImportConfig, LinearLayersWithoutTheirFieldsNameWhatIsMissing) {
    json config = load_config("qwen3.5-27b.json");
    config["text_config"].erase("linear_value_head_dim");
    config["text_config"].erase("linear_conv_kernel_dim");
    ImportResult r = kvcat::import_model_config(config, options_for("q.json", "Qwen3.5-27B", 27, 27));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(),
                         "the config lacks text_config.linear_value_head_dim, "
                         "text_config.linear_conv_kernel_dim"))
        << r.message();
}

TEST(ImportConfig, StateDtypeDefaultsToFloat32AndSaysSo) {
    json config = load_config("qwen3.5-27b.json");
    config["text_config"].erase("mamba_ssm_dtype");
    ImportResult r = kvcat::import_model_config(config, options_for("q.json", "Qwen3.5-27B", 27, 27));
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(contains(r.text, "state_dtype: float32\n")) << r.text;
    EXPECT_TRUE(says(r.text, "no mamba_ssm_dtype; the fixed state is taken as float32")) << r.text;
    config["text_config"]["mamba_ssm_dtype"] = "bfloat16";
    ImportResult bf = kvcat::import_model_config(config, options_for("q.json", "Qwen3.5-27B", 27, 27));
    ASSERT_TRUE(bf.ok()) << bf.message();
    EXPECT_TRUE(contains(bf.text, "state_dtype: bfloat16\n")) << bf.text;
}

// ---- Mamba hybrids --------------------------------------------------------------------

TEST(ImportConfig, Mamba1WithoutItsWidthsNamesWhatIsMissing) {
    json config = load_config("jamba-like.json");
    config.erase("mamba_expand");
    ImportResult r = kvcat::import_model_config(config, options_for("jamba-like.json", "Jamba-Like", 52, 12));
    ASSERT_FALSE(r.ok());
    std::string m = r.message();
    EXPECT_TRUE(contains(m, "the 28 Mamba layers state no heads, so they are read as Mamba-1")) << m;
    EXPECT_TRUE(contains(m, "the config lacks mamba_expand")) << m;
    // What the config does state is not reported missing.
    EXPECT_FALSE(contains(m, "lacks mamba_d_state")) << m;
    EXPECT_TRUE(r.text.empty());
}

TEST(ImportConfig, Mamba2HybridWithAttentionPeriodLintsClean) {
    ImportResult r = kvcat::import_model_config(load_config("mamba2-hybrid.json"),
                                                options_for("mamba2-hybrid.json", "Example-Hybrid", 9, 9));
    ASSERT_TRUE(r.ok()) << r.message();
    ImportedTree tree(r.id, r.text);
    EXPECT_TRUE(tree.lint().diagnostics.empty()) << describe(tree.lint().diagnostics) << r.text;
    const kvcat::Model& m = tree.model("models/example-hybrid");
    EXPECT_EQ(m.attention_variant, "hybrid");
    EXPECT_EQ(m.kv_layers.count, 4);
    EXPECT_EQ(m.kv_layers.interval, 8);
    EXPECT_EQ(m.kv_layers.first_index, 4);
    ASSERT_TRUE(m.linear.has_value());
    EXPECT_EQ(m.linear->kind, kvcat::StateKind::mamba2);
    EXPECT_EQ(m.linear->layers, 28);
    EXPECT_EQ(m.linear->key_heads, 8);        // mamba_n_groups
    EXPECT_EQ(m.linear->key_head_dim, 128);   // mamba_d_state
    EXPECT_EQ(m.linear->value_heads, 128);    // mamba_n_heads
    EXPECT_EQ(m.linear->value_head_dim, 64);  // mamba_d_head
}

TEST(ImportConfig, AttentionOffsetWithoutPeriodIsMissing) {
    json config = load_config("mamba2-hybrid.json");
    config.erase("attn_layer_period");
    ImportResult r = kvcat::import_model_config(config, options_for("m.json", "X", 9, 9));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "missing attn_layer_period")) << r.message();
}

// ---- what the config cannot give ------------------------------------------------------

TEST(ImportConfig, UnknownArchitectureNamesEveryMissingField) {
    ImportResult r = kvcat::import_model_config(load_config("unknown-architecture.json"),
                                                options_for("unknown-architecture.json", "Mystery", 1, 1));
    ASSERT_FALSE(r.ok());
    ASSERT_FALSE(r.problems.empty());
    const std::string& first = r.problems.front();
    EXPECT_TRUE(contains(first, "not a decoder config kvcat can read (model_type \"mystery\")")) << first;
    for (const char* field :
         {"num_hidden_layers", "num_attention_heads", "max_position_embeddings", "head_dim", "hidden_size"}) {
        EXPECT_TRUE(contains(first, field)) << field << " not named in: " << first;
    }
}

TEST(ImportConfig, ParameterCountsAreNeverGuessed) {
    ImportOptions o;
    o.config_file = "llama-3.1-8b.json";
    o.name = "Llama-3.1-8B";
    ImportResult none = kvcat::import_model_config(load_config("llama-3.1-8b.json"), o);
    ASSERT_FALSE(none.ok());
    EXPECT_TRUE(contains(none.message(), "give --total-params-b and --active-params-b")) << none.message();
    o.total_params_b = 8;
    ImportResult one = kvcat::import_model_config(load_config("llama-3.1-8b.json"), o);
    ASSERT_FALSE(one.ok());
    EXPECT_TRUE(contains(one.message(), "give --active-params-b")) << one.message();
    EXPECT_FALSE(contains(one.message(), "--total-params-b")) << one.message();
    o.active_params_b = 9;
    ImportResult more = kvcat::import_model_config(load_config("llama-3.1-8b.json"), o);
    ASSERT_FALSE(more.ok());
    EXPECT_TRUE(contains(more.message(), "--active-params-b 9 is more than --total-params-b 8")) << more.message();
}

TEST(ImportConfig, WrongTypesAndImpossibleValuesAreNamed) {
    json config = small_config();
    config["num_hidden_layers"] = "32";
    config["num_key_value_heads"] = 0;
    ImportResult r = kvcat::import_model_config(config, options_for("c.json", "Small", 1, 1));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "num_hidden_layers is \"32\"; expected a whole number")) << r.message();
    EXPECT_TRUE(contains(r.message(), "num_key_value_heads is 0; expected a whole number greater than zero"))
        << r.message();
    json bad_split = small_config();
    bad_split.erase("head_dim");
    bad_split["hidden_size"] = 1000;
    bad_split["num_attention_heads"] = 3;
    bad_split["num_key_value_heads"] = 1;
    ImportResult split = kvcat::import_model_config(bad_split, options_for("c.json", "Small", 1, 1));
    ASSERT_FALSE(split.ok());
    EXPECT_TRUE(contains(split.message(), "hidden_size 1000 does not divide by num_attention_heads 3"))
        << split.message();
}

TEST(ImportConfig, NativeContextOptionOnlyFillsAGap) {
    json config = small_config();
    config.erase("max_position_embeddings");
    ImportOptions o = options_for("c.json", "Small", 1, 1);
    ImportResult missing = kvcat::import_model_config(config, o);
    ASSERT_FALSE(missing.ok());
    EXPECT_TRUE(contains(missing.message(), "max_position_embeddings (or give --native-context)")) << missing.message();
    o.native_context = 8192;
    ImportResult filled = kvcat::import_model_config(config, o);
    ASSERT_TRUE(filled.ok()) << filled.message();
    EXPECT_TRUE(contains(filled.text, "native_context: 8192\n")) << filled.text;
    EXPECT_TRUE(says(filled.text, "native_context 8192 was given with --native-context")) << filled.text;
    config["max_position_embeddings"] = 4096;
    ImportResult clash = kvcat::import_model_config(config, o);
    ASSERT_FALSE(clash.ok());
    EXPECT_TRUE(contains(clash.message(), "--native-context 8192 disagrees with max_position_embeddings 4096"))
        << clash.message();
}

TEST(ImportConfig, NameIdSourceAndVerified) {
    json config = small_config();
    ImportOptions o;
    o.config_file = "config.json";
    o.total_params_b = 1.5;
    o.active_params_b = 1.5;
    ImportResult unnamed = kvcat::import_model_config(config, o);
    ASSERT_FALSE(unnamed.ok());
    EXPECT_TRUE(contains(unnamed.message(), "give --name")) << unnamed.message();

    config["_name_or_path"] = "acme/Tiny-Model-1B";
    ImportResult from_path = kvcat::import_model_config(config, o);
    ASSERT_TRUE(from_path.ok()) << from_path.message();
    EXPECT_EQ(from_path.id, "models/tiny-model-1b");
    EXPECT_TRUE(contains(from_path.text, "name: Tiny-Model-1B\n")) << from_path.text;
    EXPECT_TRUE(contains(from_path.text, "total_params_b: 1.5\n")) << from_path.text;
    EXPECT_TRUE(contains(from_path.text, "config_verified: false\n")) << from_path.text;

    o.id = "models/tiny";
    o.source = "acme/Tiny-Model-1B config.json, revision 0123abc";
    o.verified = true;
    ImportResult given = kvcat::import_model_config(config, o);
    ASSERT_TRUE(given.ok()) << given.message();
    EXPECT_EQ(given.id, "models/tiny");
    EXPECT_TRUE(contains(given.text, "config_verified: true\n")) << given.text;
    EXPECT_TRUE(contains(given.text, "  - name: \"acme/Tiny-Model-1B config.json, revision 0123abc\"\n")) << given.text;

    o.id = "kv-efficiency/tiny";
    EXPECT_FALSE(kvcat::import_model_config(config, o).ok());
    o.id = "models/Tiny Model";
    ImportResult unsafe = kvcat::import_model_config(config, o);
    ASSERT_FALSE(unsafe.ok());
    EXPECT_TRUE(contains(unsafe.message(), "'tiny-model'")) << unsafe.message();
}

TEST(ImportConfig, NonObjectConfigsFail) {
    EXPECT_FALSE(kvcat::import_model_config(json::array(), options_for("c.json", "X", 1, 1)).ok());
    json nested = small_config();
    nested["text_config"] = 3;
    ImportResult r = kvcat::import_model_config(nested, options_for("c.json", "X", 1, 1));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "text_config is number")) << r.message();
}

// ---- YAML writers ------------------------------------------------------------------------

TEST(ImportConfig, YamlInlineQuotesWhatYamlWouldReadAsSomethingElse) {
    EXPECT_EQ(kvcat::yaml_inline("Llama-3.1-8B"), "Llama-3.1-8B");
    EXPECT_EQ(kvcat::yaml_inline("llama.cpp"), "llama.cpp");
    EXPECT_EQ(kvcat::yaml_inline("8"), "\"8\"");
    EXPECT_EQ(kvcat::yaml_inline("1.5"), "\"1.5\"");
    EXPECT_EQ(kvcat::yaml_inline("2026-04-22"), "\"2026-04-22\"");
    EXPECT_EQ(kvcat::yaml_inline("true"), "\"true\"");
    EXPECT_EQ(kvcat::yaml_inline("No"), "\"No\"");
    EXPECT_EQ(kvcat::yaml_inline("null"), "\"null\"");
    EXPECT_EQ(kvcat::yaml_inline("0x1F"), "\"0x1F\"");
    EXPECT_EQ(kvcat::yaml_inline("a: b"), "\"a: b\"");
    EXPECT_EQ(kvcat::yaml_inline("say \"hi\" # x"), "\"say \\\"hi\\\" # x\"");
    EXPECT_EQ(kvcat::yaml_inline(""), "\"\"");
    EXPECT_EQ(kvcat::yaml_folded("one two three", 2, 9), ">-\n  one two\n  three");
}

TEST(ImportConfig, FileSafeNames) {
    EXPECT_EQ(kvcat::file_safe_name("Llama-3.1-8B"), "llama-3.1-8b");
    EXPECT_EQ(kvcat::file_safe_name("vLLM"), "vllm");
    EXPECT_EQ(kvcat::file_safe_name("  Qwen3.5 27B (text) "), "qwen3.5-27b-text");
    EXPECT_EQ(kvcat::file_safe_name("../etc/passwd"), "etc-passwd");
    EXPECT_EQ(kvcat::file_safe_name("q8_0"), "q8_0");
    EXPECT_EQ(kvcat::file_safe_name("///"), "");
}

// ---- the binary ----------------------------------------------------------------------------

using kvcat::test::Outcome;

class ImportConfigCli : public ::testing::Test {
  protected:
    /// Runs kvcat with `args` in a scratch directory holding a copy of records/.
    Outcome kvcat(const std::vector<std::string>& args) { return runner_.run(args); }
    std::string config(const std::string& name) { return fixture_path("configs/" + name).string(); }

    kvcat::test::KvcatRunner runner_;
    fs::path dir_ = runner_.dir();
};

TEST_F(ImportConfigCli, WritesARecordThatTheLintAccepts) {
    fs::remove(dir_ / "records/models/deepseek-v3.yaml");
    Outcome r = kvcat({"import-config", config("deepseek-v3.json"), "--name", "DeepSeek-V3", "--total-params-b", "671",
                       "--active-params-b", "37", "--source", "deepseek-ai/DeepSeek-V3 config.json", "--verified",
                       "--out", "records/models/deepseek-v3.yaml"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "");
    std::string text = read_file(dir_ / "records/models/deepseek-v3.yaml");
    EXPECT_TRUE(contains(text, "config_verified: true\n")) << text;
    EXPECT_TRUE(contains(text, "config_source: deepseek-ai/DeepSeek-V3 config.json\n")) << text;
    Outcome lint = kvcat({"lint"});
    EXPECT_EQ(lint.status, 0) << lint.out << lint.err;
    EXPECT_EQ(lint.out, "");

    // An existing file is kept unless --force.
    Outcome again = kvcat({"import-config", config("deepseek-v3.json"), "--name", "DeepSeek-V3", "--total-params-b",
                           "671", "--active-params-b", "37", "--out", "records/models/deepseek-v3.yaml"});
    EXPECT_EQ(again.status, 2);
    EXPECT_TRUE(contains(again.err, "exists; give --force")) << again.err;
    EXPECT_EQ(read_file(dir_ / "records/models/deepseek-v3.yaml"), text);
    Outcome forced = kvcat({"import-config", config("deepseek-v3.json"), "--name", "DeepSeek-V3", "--total-params-b",
                            "671", "--active-params-b", "37", "--out", "records/models/deepseek-v3.yaml", "--force"});
    EXPECT_EQ(forced.status, 0) << forced.err;
    EXPECT_TRUE(contains(read_file(dir_ / "records/models/deepseek-v3.yaml"), "config_verified: false\n"));
}

TEST_F(ImportConfigCli, StdoutByDefaultAndTheFileNamesTheId) {
    Outcome r = kvcat({"import-config", config("llama-3.1-8b.json"), "--name", "Llama-3.1-8B", "--total-params-b", "8",
                       "--active-params-b", "8"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(
        r.out.starts_with("# yaml-language-server: $schema=../../schema/model.schema.json\nid: "
                          "models/llama-3.1-8b\n"))
        << r.out;
    // Written into a models/ folder, the file name decides the id ...
    Outcome named = kvcat({"import-config", config("llama-3.1-8b.json"), "--name", "Llama-3.1-8B", "--total-params-b",
                           "8", "--active-params-b", "8", "--out", "records/models/l8.yaml"});
    ASSERT_EQ(named.status, 0) << named.err;
    EXPECT_TRUE(contains(read_file(dir_ / "records/models/l8.yaml"), "id: models/l8\n"));
    // ... and an --id that disagrees with it is refused.
    Outcome clash =
        kvcat({"import-config", config("llama-3.1-8b.json"), "--name", "Llama-3.1-8B", "--id", "models/other",
               "--total-params-b", "8", "--active-params-b", "8", "--out", "records/models/l9.yaml"});
    EXPECT_EQ(clash.status, 2);
    EXPECT_TRUE(contains(clash.err, "name the file other.yaml")) << clash.err;
    EXPECT_FALSE(fs::exists(dir_ / "records/models/l9.yaml"));
}

TEST_F(ImportConfigCli, InputErrorsExitTwoNamingTheFile) {
    Outcome unknown = kvcat({"import-config", config("unknown-architecture.json"), "--name", "X", "--total-params-b",
                             "1", "--active-params-b", "1"});
    EXPECT_EQ(unknown.status, 2);
    EXPECT_EQ(unknown.out, "");
    EXPECT_TRUE(contains(unknown.err, "unknown-architecture.json: not a decoder config kvcat can read")) << unknown.err;
    EXPECT_TRUE(contains(unknown.err, "num_hidden_layers, num_attention_heads")) << unknown.err;

    Outcome params = kvcat({"import-config", config("llama-3.1-8b.json"), "--name", "Llama-3.1-8B"});
    EXPECT_EQ(params.status, 2);
    EXPECT_TRUE(contains(params.err, "--total-params-b and --active-params-b")) << params.err;

    Outcome not_json = kvcat({"import-config", config("not-json.json")});
    EXPECT_EQ(not_json.status, 2);
    EXPECT_TRUE(contains(not_json.err, "not-json.json:2:1: not valid JSON")) << not_json.err;

    Outcome absent = kvcat({"import-config", "no-such-config.json"});
    EXPECT_EQ(absent.status, 2);
    EXPECT_TRUE(contains(absent.err, "no-such-config.json: cannot read")) << absent.err;

    // A key that changes the cache in a way kvcat does not model is refused by name.
    TempDir dir;
    json zamba = load_config("llama-3.1-8b.json");
    zamba["layers_block_type"] = json::array({"mamba", "hybrid"});
    write_file(dir.path() / "zamba.json", zamba.dump());
    Outcome refused = kvcat({"import-config", (dir.path() / "zamba.json").string(), "--name", "Zamba-Like",
                             "--total-params-b", "8", "--active-params-b", "8"});
    EXPECT_EQ(refused.status, 2);
    EXPECT_EQ(refused.out, "");
    EXPECT_TRUE(contains(refused.err, "layers_block_type is set: Zamba-style blocks")) << refused.err;

    Outcome usage = kvcat({"import-config"});
    EXPECT_EQ(usage.status, 2);
}

TEST_F(ImportConfigCli, HelpShowsExamples) {
    Outcome r = kvcat({"import-config", "--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(contains(r.out, "Examples:")) << r.out;
    EXPECT_TRUE(contains(r.out, "--total-params-b")) << r.out;
}

}  // namespace
