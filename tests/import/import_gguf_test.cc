// A model record from a GGUF header: the same figures as the model's config.json.
//
// Each header is written here with the keys llama.cpp's convert_hf_to_gguf.py writes for the
// model, under the names of llama.cpp's src/llama-arch.cpp (LLM_KV_NAMES, ggml-org/llama.cpp
// at 00395eb285c7c6821ff372e3ca41dae9da33c2c7), with the values of the config.json fixture
// beside it; the tensor data is not there, as the import reads none of it. Each pair is
// imported, linted, and compared figure by figure.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "gguf_header.h"
#include "import/gguf.h"
#include "import/import_config.h"
#include "import/import_gguf.h"
#include "kvcat_runner.h"
#include "loopback_http.h"
#include "model/kv_math.h"
#include "test_util.h"
#include "vocab/dtype.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using kvcat::ImportOptions;
using kvcat::ImportResult;
using kvcat::Model;
using kvcat::Rational;
using kvcat::test::contains;
using kvcat::test::fixture_path;
using kvcat::test::flat;
using kvcat::test::GgufHeader;
using kvcat::test::read_file;
using kvcat::test::TempDir;
using kvcat::test::write_file;

Rational gguf_bpe(std::string_view dtype) {
    return kvcat::find_cache_dtype(dtype)->bytes_per_element();
}

/// A record imported and linted in a tree of its own; `model()` is the linted record's.
class Linted {
  public:
    explicit Linted(ImportResult r) : result_(std::move(r)) {
        if (!result_.ok()) return;
        write_file(records_ / (result_.id + ".yaml"), result_.text);
        lint_ = kvcat::lint_paths({records_});
    }
    const ImportResult& result() const { return result_; }
    bool clean() const { return result_.ok() && lint_.diagnostics.empty(); }
    std::string why() const {
        return result_.ok() ? kvcat::test::describe(lint_.diagnostics) + result_.text : result_.message();
    }
    const Model& model() const { return *lint_.records.find(result_.id)->model; }

  private:
    TempDir tmp_;
    fs::path records_ = tmp_.path() / "records";
    ImportResult result_;
    kvcat::LintResult lint_;
};

ImportOptions options(const std::string& file) {
    ImportOptions o;
    o.config_file = file;
    o.name = "M";
    o.total_params_b = o.active_params_b = 10;
    return o;
}

/// The header at `path`, imported.
ImportResult from_gguf(const GgufHeader& header, const TempDir& dir, const std::string& file) {
    std::string path = header.write((dir.path() / file).string());
    return kvcat::import_model_gguf(kvcat::read_gguf_header(path).metadata, options(file));
}

ImportResult from_config(const std::string& fixture) {
    return kvcat::import_model_config(kvcat::parse_config_json(read_file(fixture_path("configs/" + fixture))),
                                      options(fixture));
}

/// Both records lint clean and give the same figures: the layers, the growing bytes per token at
/// bf16 and q8_0, the whole cache at 4k and 128k, and the fixed state.
void expect_same_figures(const ImportResult& config, const ImportResult& gguf, const std::string& file) {
    Linted a(config), b(gguf);
    ASSERT_TRUE(a.clean()) << a.why();
    ASSERT_TRUE(b.clean()) << b.why();
    const Model& m = a.model();
    const Model& g = b.model();
    EXPECT_EQ(g.num_layers, m.num_layers);
    EXPECT_EQ(g.attention_variant, m.attention_variant);
    EXPECT_EQ(g.kv_layers.count, m.kv_layers.count);
    EXPECT_EQ(g.sliding.has_value(), m.sliding.has_value());
    for (const char* dtype : {"bf16", "q8_0"}) {
        Rational per_token = kvcat::growing_bytes_per_token(*kvcat::model_basis(m), gguf_bpe(dtype));
        EXPECT_EQ(kvcat::growing_bytes_per_token(*kvcat::model_basis(g), gguf_bpe(dtype)), per_token) << dtype;
        for (std::int64_t ctx : {4096LL, 131072LL}) {
            EXPECT_EQ(kvcat::rows_bytes_at_context(kvcat::layer_rows(g), ctx, gguf_bpe(dtype)),
                      kvcat::kv_bytes_at_context(m, per_token, ctx, gguf_bpe(dtype)))
                << dtype << " at " << ctx;
        }
    }
    EXPECT_EQ(kvcat::fixed_state_bytes(g), kvcat::fixed_state_bytes(m));
    // The record says where it came from.
    EXPECT_TRUE(contains(flat(gguf.text), "Written by kvcat import-config from the GGUF metadata of " + file))
        << gguf.text;
    EXPECT_TRUE(contains(flat(gguf.text), "GGUF metadata: general.architecture")) << gguf.text;
}

TEST(ImportGguf, Qwen35HybridGivesTheConfigsFigures) {
    // convert_hf_to_gguf.py's Qwen3Next mapping: linear_conv_kernel_dim as ssm.conv_kernel,
    // linear_key_head_dim as ssm.state_size, linear_num_key_heads as ssm.group_count,
    // linear_num_value_heads as ssm.time_step_rank, value heads x value width as ssm.inner_size;
    // its Qwen3.5 MTP mixin counts the MTP layer in block_count and names it in
    // nextn_predict_layers.
    TempDir dir;
    GgufHeader h;
    h.set("general.architecture", std::string("qwen35"))
        .set("general.name", std::string("Qwen3.5-27B"))
        .set("qwen35.block_count", 65u)
        .set("qwen35.nextn_predict_layers", 1u)
        .set("qwen35.context_length", 262144u)
        .set("qwen35.embedding_length", 5120u)
        .set("qwen35.feed_forward_length", 17408u)
        .set("qwen35.attention.head_count", 24u)
        .set("qwen35.attention.head_count_kv", 4u)
        .set("qwen35.attention.key_length", 256u)
        .set("qwen35.attention.value_length", 256u)
        .set("qwen35.attention.layer_norm_rms_epsilon", 1e-6f)
        .set("qwen35.rope.freq_base", 10000000.0f)
        .set("qwen35.rope.dimension_count", 64u)
        .set("qwen35.full_attention_interval", 4u)
        .set("qwen35.ssm.conv_kernel", 4u)
        .set("qwen35.ssm.state_size", 128u)
        .set("qwen35.ssm.group_count", 16u)
        .set("qwen35.ssm.time_step_rank", 48u)
        .set("qwen35.ssm.inner_size", 6144u)
        .set("tokenizer.ggml.model", std::string("gpt2"));
    ImportResult gguf = from_gguf(h, dir, "Qwen3.5-27B-Q4_K_M.gguf");
    expect_same_figures(from_config("qwen3.5-27b-hf.json"), gguf, "Qwen3.5-27B-Q4_K_M.gguf");
    ASSERT_TRUE(gguf.ok()) << gguf.message();
    EXPECT_TRUE(contains(flat(gguf.text), "counts 1 multi-token-prediction layer")) << gguf.text;
    // 16 full layers x 4 x 256 x 2 x 2 bytes.
    Linted g(gguf);
    EXPECT_EQ(kvcat::growing_bytes_per_token(*kvcat::model_basis(g.model()), gguf_bpe("bf16")), Rational(65536));
}

/// gpt-oss-20b's attention keys as llama.cpp's converter writes them, with `blocks` blocks.
GgufHeader gpt_oss_header(std::uint32_t blocks) {
    GgufHeader h;
    h.set("general.architecture", std::string("gpt-oss"))
        .set("gpt-oss.block_count", blocks)
        .set("gpt-oss.context_length", 131072u)
        .set("gpt-oss.embedding_length", 2880u)
        .set("gpt-oss.attention.head_count", 64u)
        .set("gpt-oss.attention.head_count_kv", 8u)
        .set("gpt-oss.attention.key_length", 64u)
        .set("gpt-oss.attention.value_length", 64u)
        .set("gpt-oss.attention.sliding_window", 128u);
    return h;
}

TEST(ImportGguf, GptOssIswaGivesTheConfigsFigures) {
    TempDir dir;
    GgufHeader h = gpt_oss_header(24);
    h.set("gpt-oss.expert_count", 32u).set("gpt-oss.expert_used_count", 4u).set("gpt-oss.rope.scaling.factor", 32.0f);
    ImportResult gguf = from_gguf(h, dir, "gpt-oss-20b-mxfp4.gguf");
    expect_same_figures(from_config("gpt-oss-20b.json"), gguf, "gpt-oss-20b-mxfp4.gguf");
    // 12 full layers x 8 x 64 x 2 x 2 bytes grow; the 12 sliding ones hold 128 tokens.
    Linted g(gguf);
    ASSERT_TRUE(g.clean()) << g.why();
    EXPECT_EQ(kvcat::growing_bytes_per_token(*kvcat::model_basis(g.model()), gguf_bpe("bf16")), Rational(24576));
    EXPECT_EQ(kvcat::rows_bounded_bytes(kvcat::layer_rows(g.model()), 1 << 20, gguf_bpe("bf16")),
              Rational(12LL * 8 * 64 * 2 * 2 * 128));
}

TEST(ImportGguf, DeepSeekV3MlaGivesTheConfigsFigures) {
    TempDir dir;
    GgufHeader h;
    h.set("general.architecture", std::string("deepseek2"))
        .set("deepseek2.block_count", 61u)  // the converter leaves DeepSeek-V3's MTP layer out
        .set("deepseek2.context_length", 163840u)
        .set("deepseek2.embedding_length", 7168u)
        .set("deepseek2.attention.head_count", 128u)
        .set("deepseek2.attention.head_count_kv", 1u)
        .set("deepseek2.attention.key_length", 576u)
        .set("deepseek2.attention.value_length", 512u)
        .set("deepseek2.attention.key_length_mla", 192u)
        .set("deepseek2.attention.value_length_mla", 128u)
        .set("deepseek2.attention.q_lora_rank", 1536u)
        .set("deepseek2.attention.kv_lora_rank", 512u)
        .set("deepseek2.rope.dimension_count", 64u)
        .set("deepseek2.leading_dense_block_count", 3u)
        .set("deepseek2.expert_count", 256u);
    ImportResult gguf = from_gguf(h, dir, "DeepSeek-V3-Q4_K_M.gguf");
    expect_same_figures(from_config("deepseek-v3.json"), gguf, "DeepSeek-V3-Q4_K_M.gguf");
    // 61 x (512 + 64) x 2 bytes.
    Linted g(gguf);
    EXPECT_EQ(kvcat::growing_bytes_per_token(*kvcat::model_basis(g.model()), gguf_bpe("bf16")), Rational(70272));
    // The heads the latent expands to, from key_length_mla (qk_nope + qk_rope) and value_length_mla.
    EXPECT_EQ(g.model().head_dim, 192);
    EXPECT_EQ(g.model().v_head_dim, 128);
}

TEST(ImportGguf, LlamaQwen3MoeAndGemma3GiveTheirConfigsFigures) {
    TempDir dir;
    GgufHeader llama;
    llama.set("general.architecture", std::string("llama"))
        .set("llama.block_count", 32u)
        .set("llama.context_length", 131072u)
        .set("llama.embedding_length", 4096u)
        .set("llama.attention.head_count", 32u)
        .set("llama.attention.head_count_kv", 8u)
        .set("llama.rope.dimension_count", 128u)
        .set("llama.vocab_size", 128256u);
    expect_same_figures(from_config("llama-3.1-8b.json"), from_gguf(llama, dir, "llama.gguf"), "llama.gguf");

    GgufHeader qwen;
    qwen.set("general.architecture", std::string("qwen3moe"))
        .set("qwen3moe.block_count", 48u)
        .set("qwen3moe.context_length", 40960u)
        .set("qwen3moe.embedding_length", 2048u)
        .set("qwen3moe.attention.head_count", 32u)
        .set("qwen3moe.attention.head_count_kv", 4u)
        .set("qwen3moe.attention.key_length", 128u)
        .set("qwen3moe.attention.value_length", 128u)
        .set("qwen3moe.expert_count", 128u)
        .set("qwen3moe.expert_used_count", 8u);
    expect_same_figures(from_config("qwen3-30b-a3b.json"), from_gguf(qwen, dir, "qwen3.gguf"), "qwen3.gguf");

    GgufHeader gemma;
    gemma.set("general.architecture", std::string("gemma3"))
        .set("gemma3.block_count", 62u)
        .set("gemma3.context_length", 131072u)
        .set("gemma3.embedding_length", 5376u)
        .set("gemma3.attention.head_count", 32u)
        .set("gemma3.attention.head_count_kv", 16u)
        .set("gemma3.attention.key_length", 128u)
        .set("gemma3.attention.value_length", 128u)
        .set("gemma3.attention.sliding_window", 1024u);
    expect_same_figures(from_config("gemma-3-27b.json"), from_gguf(gemma, dir, "gemma3.gguf"), "gemma3.gguf");
}

TEST(ImportGguf, PerLayerKvHeadsOfANasModelAreReadPerLayer) {
    // head_count_kv as one number per layer, 0 for a layer without attention: as block_configs.
    TempDir dir;
    std::vector<std::int32_t> per_layer;
    for (int i = 0; i < 80; ++i) per_layer.push_back(i % 5 == 4 ? 0 : 8);
    GgufHeader h;
    h.set("general.architecture", std::string("llama"))
        .set("llama.block_count", 80u)
        .set("llama.context_length", 131072u)
        .set("llama.embedding_length", 8192u)
        .set("llama.attention.head_count", 64u)
        .set("llama.attention.head_count_kv", per_layer);
    Linted g(from_gguf(h, dir, "nas.gguf"));
    ASSERT_TRUE(g.clean()) << g.why();
    EXPECT_EQ(g.model().kv_layers.count, 64);
    EXPECT_EQ(g.model().kv_layers.stateless, 16);
    EXPECT_EQ(kvcat::growing_bytes_per_token(*kvcat::model_basis(g.model()), gguf_bpe("bf16")),
              Rational(64 * 8 * 128 * 2 * 2));
}

TEST(ImportGguf, AnUnreadArchitectureOrKeyRefusesByName) {
    TempDir dir;
    GgufHeader other;
    other.set("general.architecture", std::string("rwkv7")).set("rwkv7.block_count", 24u);
    ImportResult r = from_gguf(other, dir, "rwkv.gguf");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "general.architecture is 'rwkv7'; kvcat reads the GGUF keys of llama"))
        << r.message();

    GgufHeader shared;
    shared.set("general.architecture", std::string("llama"))
        .set("llama.block_count", 32u)
        .set("llama.context_length", 8192u)
        .set("llama.attention.head_count", 32u)
        .set("llama.attention.shared_kv_layers", 8u);
    ImportResult s = from_gguf(shared, dir, "shared.gguf");
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(contains(s.message(), "llama.attention.shared_kv_layers is a GGUF key kvcat does not read"))
        << s.message();

    GgufHeader none;
    none.set("general.name", std::string("x"));
    ImportResult n = from_gguf(none, dir, "none.gguf");
    ASSERT_FALSE(n.ok());
    EXPECT_TRUE(contains(n.message(), "the header has no general.architecture")) << n.message();
}

TEST(ImportGguf, TheCommandReadsAGgufFileAndNamesIt) {
    TempDir dir;
    GgufHeader h;
    h.set("general.architecture", std::string("llama"))
        .set("general.name", std::string("Llama 3.1 8B"))
        .set("llama.block_count", 32u)
        .set("llama.context_length", 131072u)
        .set("llama.embedding_length", 4096u)
        .set("llama.attention.head_count", 32u)
        .set("llama.attention.head_count_kv", 8u);
    std::string path = h.write((dir.path() / "Llama-3.1-8B-Q4_K_M.gguf").string());
    kvcat::test::KvcatRunner k;
    auto out = k.run({"import-config", path, "--total-params-b", "8", "--active-params-b", "8"});
    EXPECT_EQ(out.status, 0) << out.err;
    EXPECT_TRUE(contains(out.out, "id: models/llama-3.1-8b\n")) << out.out;
    EXPECT_TRUE(contains(flat(out.out), "from the GGUF metadata of Llama-3.1-8B-Q4_K_M.gguf")) << out.out;
    // A file cut short is an error naming it, not a crash.
    fs::resize_file(path, 20);
    auto cut = k.run({"import-config", path, "--total-params-b", "8", "--active-params-b", "8"});
    EXPECT_EQ(cut.status, 2);
    EXPECT_TRUE(contains(cut.err, "Llama-3.1-8B-Q4_K_M.gguf: not a GGUF header kvcat can read")) << cut.err;
}

// --- hostile headers (issue 40) --------------------------------------------------------

GgufHeader llama_header() {
    GgufHeader h;
    h.set("general.architecture", std::string("llama"))
        .set("llama.block_count", 32u)
        .set("llama.context_length", 131072u)
        .set("llama.embedding_length", 4096u)
        .set("llama.attention.head_count", 32u)
        .set("llama.attention.head_count_kv", 8u);
    return h;
}

TEST(ImportGguf, TheCommandReadsARemoteHeaderByItsAddress) {
    TempDir dir;
    GgufHeader h = llama_header();
    h.set("general.name", std::string("Llama 3.1 8B"));
    std::string path = h.write((dir.path() / "Llama-3.1-8B-Q4_K_M.gguf").string());
    kvcat::test::LoopbackHttp server({{"Llama-3.1-8B-Q4_K_M.gguf", read_file(path)}});
    kvcat::test::KvcatRunner k;
    std::string url = server.url("Llama-3.1-8B-Q4_K_M.gguf");
    auto out = k.run({"import-config", url, "--total-params-b", "8", "--active-params-b", "8"});
    ASSERT_EQ(out.status, 0) << out.err;
    auto local = k.run({"import-config", path, "--total-params-b", "8", "--active-params-b", "8"});
    // The same record, but that it names the address the header came from, where a file's is its name.
    std::string expected = local.out;
    for (auto at = expected.find("Llama-3.1-8B-Q4_K_M.gguf"); at != std::string::npos;
         at = expected.find("Llama-3.1-8B-Q4_K_M.gguf", at + url.size())) {
        expected.replace(at, 24, url);
    }
    EXPECT_EQ(flat(out.out), flat(expected));
    EXPECT_TRUE(contains(flat(out.out), "from the GGUF metadata of " + url)) << out.out;
    auto missing = k.run({"import-config", server.url("gone.gguf"), "--total-params-b", "8", "--active-params-b", "8"});
    EXPECT_EQ(missing.status, 2);
    EXPECT_TRUE(contains(missing.err, "gone.gguf: not a GGUF header kvcat can read: HTTP 404")) << missing.err;
}

std::string header_error(const GgufHeader& h, const TempDir& dir, const std::string& file) {
    std::string path = h.write((dir.path() / file).string());
    try {
        kvcat::read_gguf_header(path);
    } catch (const kvcat::GgufError& e) {
        return e.what();
    }
    return "";
}

TEST(ImportGguf, AKeyGivenTwiceIsRefusedAsLlamaCppRefusesIt) {
    // The reader kept the last of two block_count values without a word.
    TempDir dir;
    GgufHeader h = llama_header();
    h.set("llama.block_count", 16u);
    EXPECT_TRUE(contains(header_error(h, dir, "twice.gguf"), "the key llama.block_count is given twice"))
        << header_error(h, dir, "twice.gguf");
}

TEST(ImportGguf, ABlockCountNoModelHasIsRefusedBeforeAnyListIsBuilt) {
    // gpt-oss with block_count 10^8 built a list of 10^8 layer types: 17 GB, and no end.
    TempDir dir;
    ImportResult r = from_gguf(gpt_oss_header(100000000u), dir, "deep.gguf");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "gpt-oss.block_count is 100000000; no model has that many layers"))
        << r.message();
}

TEST(ImportGguf, AnUnsignedValuePast63BitsIsNamedNotShownNegative) {
    TempDir dir;
    GgufHeader h;
    h.set("general.architecture", std::string("llama"))
        .set("llama.block_count", 32u)
        .set("llama.context_length", std::uint64_t{18446744073709551615u})
        .set("llama.embedding_length", 4096u)
        .set("llama.attention.head_count", 32u)
        .set("llama.attention.head_count_kv", 8u);
    ImportResult r = from_gguf(h, dir, "huge.gguf");
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.message(), "llama.context_length is 18446744073709551615, beyond 2^63 - 1")) << r.message();
    EXPECT_FALSE(contains(r.message(), "-1")) << r.message();
}

TEST(ImportGguf, AHeaderClaimingMillionsOfKeysOrNestedArraysIsRefusedByName) {
    TempDir dir;
    GgufHeader many = llama_header();
    many.claim_keys(std::uint64_t{1} << 40);
    EXPECT_TRUE(contains(header_error(many, dir, "many.gguf"), "the header claims 1099511627776 metadata keys"))
        << header_error(many, dir, "many.gguf");
    GgufHeader nested = llama_header();
    nested.set("llama.rope.scaling.table", GgufHeader::ArrayOfArrays{});
    EXPECT_TRUE(contains(header_error(nested, dir, "nested.gguf"), "llama.rope.scaling.table: an array of arrays"))
        << header_error(nested, dir, "nested.gguf");
}

}  // namespace
