// kvcat new kv-efficiency: a record skeleton whose figures are computed and whose
// human fields fail the lint until a person writes them.
//
// For every model record under records/models, the skeleton is written into a copy of
// the shipped records and linted: the only findings must be [schema-missing-key] for
// methodology, notes and sources (plus [context-above-native] when the context is above
// the model's native one). Once those are filled in, the tree lints clean.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "check/lint.h"
#include "import/skeleton.h"
#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::Diagnostic;
using kvcat::LintResult;
using kvcat::Rational;
using kvcat::Skeleton;
using kvcat::SkeletonOptions;
using kvcat::test::contains;
using kvcat::test::describe;
using kvcat::test::read_file;
using kvcat::test::TempDir;
using kvcat::test::write_file;

/// (rule, key) for a missing key, (rule, "") for any other finding.
using Finding = std::pair<std::string, std::string>;

std::set<Finding> findings_of(const std::vector<Diagnostic>& diagnostics) {
    std::set<Finding> out;
    for (const auto& d : diagnostics) {
        std::string key;
        if (d.rule == "schema-missing-key") {
            auto open = d.message.find('\'');
            auto close = d.message.find('\'', open + 1);
            key = d.message.substr(open + 1, close - open - 1);
        }
        out.insert({d.rule, key});
    }
    return out;
}

const std::set<Finding> kHumanFields = {
    {"schema-missing-key", "methodology"}, {"schema-missing-key", "notes"}, {"schema-missing-key", "sources"}};

/// What an author writes in place of the comments.
std::string filled(std::string text) {
    auto at = text.find("\ncontext_extension:\n");
    if (at != std::string::npos) {
        text.replace(at, 20, "\ncontext_extension: the engine's RoPE scaling flag, set for this test\n");
    }
    text +=
        "methodology: |\n"
        "  Derived from the model record by kvcat new; nothing was measured.\n"
        "notes: |\n"
        "  A test row.\n"
        "sources:\n"
        "  - name: the model record\n";
    return text;
}

/// A copy of the shipped records to write skeletons into.
class SkeletonTree {
  public:
    SkeletonTree() {
        kvcat::test::copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", records_);
        catalog_ = kvcat::lint_paths({records_});
    }
    const LintResult& catalog() const { return catalog_; }
    Skeleton make(SkeletonOptions o) const { return kvcat::make_kv_skeleton(catalog_, o); }
    /// Writes the record where its id says and lints the whole tree.
    LintResult write_and_lint(const Skeleton& s, const std::string& text) {
        written_ = records_ / (s.id + ".yaml");
        write_file(written_, text);
        return kvcat::lint_paths({records_});
    }
    const fs::path& records() const { return records_; }

  private:
    TempDir tmp_;
    fs::path records_ = tmp_.path() / "records";
    fs::path written_;
    LintResult catalog_;
};

SkeletonOptions options(const std::string& model, const std::string& dtype, std::int64_t context,
                        const std::string& engine = "vLLM") {
    SkeletonOptions o;
    o.model = model;
    o.engine = engine;
    o.kv_dtype = dtype;
    o.context = context;
    return o;
}

std::vector<std::string> shipped_model_ids() {
    std::vector<std::string> ids;
    for (const auto& e : fs::directory_iterator(fs::path(KVCAT_SOURCE_DIR) / "records/models")) {
        if (e.path().extension() == ".yaml") ids.push_back("models/" + e.path().stem().string());
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

TEST(Skeleton, EveryShippedModelFailsOnlyOnTheHumanFieldsThenLintsClean) {
    auto ids = shipped_model_ids();
    ASSERT_GE(ids.size(), 7u);  // the two Qwen3.5 records and the five added with this command
    for (const auto& id : ids) {
        SCOPED_TRACE(id);
        SkeletonTree tree;
        Skeleton s =
            tree.make(options(id, "bf16", 4096));  // within every shipped model's native context (Llama 2: 4,096)
        ASSERT_TRUE(s.ok()) << s.message();
        EXPECT_EQ(s.to_fill, (std::vector<std::string>{"methodology", "notes", "sources"}));
        LintResult skeleton_lint = tree.write_and_lint(s, s.text);
        EXPECT_EQ(findings_of(skeleton_lint.diagnostics), kHumanFields)
            << describe(skeleton_lint.diagnostics) << s.text;
        for (const auto& d : skeleton_lint.diagnostics) {
            EXPECT_TRUE(d.pos.file.ends_with(s.id + ".yaml")) << kvcat::format_text(d);
        }
        LintResult done = tree.write_and_lint(s, filled(s.text));
        EXPECT_TRUE(done.diagnostics.empty()) << describe(done.diagnostics) << filled(s.text);
    }
}

TEST(Skeleton, BytesPerTokenForTheReferenceModels) {
    struct Case {
        const char* model;
        const char* dtype;
        std::int64_t bytes;
        const char* statement;
    };
    const Case cases[] = {
        {"models/llama-3.1-8b", "bf16", 131072,
         "32 layers x 8 kv heads x 128 head_dim x 2 (K+V) x 2 bytes (bf16) = 131,072 B/token"},
        {"models/llama-3.1-70b", "bf16", 327680,
         "80 layers x 8 kv heads x 128 head_dim x 2 (K+V) x 2 bytes (bf16) = 327,680 B/token"},
        {"models/deepseek-v3", "bf16", 70272, "61 layers x 576 latent x 1 x 2 bytes (bf16) = 70,272 B/token"},
        {"models/qwen3.5-27b", "bf16", 65536,
         "16 full-attention layers x 4 kv heads x 256 head_dim x 2 (K+V) x 2 bytes (bf16) = 65,536 B/token"},
        {"models/llama-3.1-8b", "q8_0", 69632,
         "32 layers x 8 kv heads x 128 head_dim x 2 (K+V) x 34/32 bytes (q8_0) = 69,632 B/token"},
        {"models/gemma-3-27b", "bf16", 81920,
         "10 global layers x 16 kv heads x 128 head_dim x 2 (K+V) x 2 bytes (bf16) = 81,920 B/token"},
        {"models/qwen3.5-35b-a3b", "fp8", 10240,
         "10 full-attention layers x 2 kv heads x 256 head_dim x 2 (K+V) x 1 byte (fp8) = 10,240 B/token"},
    };
    SkeletonTree tree;
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(c.model) + " " + c.dtype);
        Skeleton s = tree.make(options(c.model, c.dtype, 65536));
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_TRUE(s.kv_bytes_per_token.has_value());
        EXPECT_EQ(*s.kv_bytes_per_token, Rational(c.bytes));
        EXPECT_TRUE(contains(s.text, "kv_bytes_per_token: " + std::to_string(c.bytes) + "\n")) << s.text;
        EXPECT_TRUE(contains(s.text, std::string("  statement: \"") + c.statement + "\"\n")) << s.text;
    }
}

TEST(Skeleton, BlockTypesKeepTheirExactFraction) {
    SkeletonTree tree;
    Skeleton s = tree.make(options("models/llama-3.1-8b", "q8_0", 65536, "llama.cpp"));
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(contains(s.text, "  bytes_per_element: 34/32  #")) << s.text;
    EXPECT_FALSE(contains(s.text, "1.0625")) << s.text;
    // 61 x 576 x 18/32 is whole; the q4_0 MLA row lints like any other.
    Skeleton q4 = tree.make(options("models/deepseek-v3", "q4_0", 65536, "llama.cpp"));
    ASSERT_TRUE(q4.ok()) << q4.message();
    EXPECT_EQ(*q4.kv_bytes_per_token, Rational(19764));
    EXPECT_TRUE(contains(q4.text, "  bytes_per_element: 18/32  #")) << q4.text;
    LintResult r = tree.write_and_lint(q4, filled(q4.text));
    EXPECT_TRUE(r.diagnostics.empty()) << describe(r.diagnostics) << q4.text;
}

TEST(Skeleton, MlaSkeletonStatesTheLatent) {
    SkeletonTree tree;
    Skeleton s = tree.make(options("models/deepseek-v3", "fp8", 131072));
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(contains(s.text, "  latent_dim: 576  #")) << s.text;
    EXPECT_TRUE(contains(s.text, "  kv_factor: 1  #")) << s.text;
    EXPECT_FALSE(contains(s.text, "kv_heads:")) << s.text;
    EXPECT_TRUE(contains(s.text, "attention_variant: mla\n")) << s.text;
    EXPECT_TRUE(contains(s.text, "61 layers x 576 latent x 1 x 1 byte (fp8) = 35,136 B/token")) << s.text;
}

TEST(Skeleton, ContextAboveNativeAddsAContextExtensionToFill) {
    SkeletonTree tree;
    // No accelerator: a 1M cache on a named card is the memory rules' business, not this test's.
    Skeleton s = tree.make(options("models/llama-3.1-8b", "q8_0", 1048576, "llama.cpp"));
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(s.id, "kv-efficiency/llamacpp-llama-3.1-8b-q8_0-1m");
    EXPECT_EQ(s.to_fill, (std::vector<std::string>{"context_extension", "methodology", "notes", "sources"}));
    EXPECT_TRUE(contains(s.text, "\ncontext_extension:\n")) << s.text;
    LintResult r = tree.write_and_lint(s, s.text);
    std::set<Finding> expected = kHumanFields;
    expected.insert({"context-above-native", ""});
    EXPECT_EQ(findings_of(r.diagnostics), expected) << describe(r.diagnostics);
    LintResult done = tree.write_and_lint(s, filled(s.text));
    EXPECT_TRUE(done.diagnostics.empty()) << describe(done.diagnostics) << filled(s.text);
    // Filling only the three errors leaves the warning: the extension is still the author's to write.
    std::string three = s.text + "methodology: m\nnotes: n\nsources:\n  - name: s\n";
    LintResult partial = tree.write_and_lint(s, three);
    EXPECT_EQ(findings_of(partial.diagnostics), (std::set<Finding>{{"context-above-native", ""}}))
        << describe(partial.diagnostics);
}

TEST(Skeleton, AcceleratorAndWeightQuantAreWrittenAndResolve) {
    SkeletonTree tree;
    SkeletonOptions o = options("models/llama-3.1-8b", "q8_0", 65536, "llama.cpp");
    o.accelerator = "nvidia-rtx-4090";
    o.weight_quant = "Q4_K";
    Skeleton s = tree.make(o);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(contains(s.text, "accelerator: accelerators/nvidia-rtx-4090\n")) << s.text;
    EXPECT_TRUE(contains(s.text, "weight_quant: Q4_K\n")) << s.text;
    LintResult r = tree.write_and_lint(s, s.text);
    EXPECT_EQ(findings_of(r.diagnostics), kHumanFields) << describe(r.diagnostics);
    LintResult done = tree.write_and_lint(s, filled(s.text));
    EXPECT_TRUE(done.diagnostics.empty()) << describe(done.diagnostics);
}

TEST(Skeleton, NoProvenanceAndNullMeasurements) {
    SkeletonTree tree;
    Skeleton s = tree.make(options("models/qwen3.5-9b", "fp8_e4m3", 262144));
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(contains(s.text, "measured_tps_at_ctx: null\nmeasured_ttft_ms_at_ctx: null\n")) << s.text;
    EXPECT_TRUE(contains(s.text, "accelerator: null\n")) << s.text;
    EXPECT_TRUE(contains(s.text, "engine_version: null\n")) << s.text;
    EXPECT_FALSE(contains(s.text, "\nprovenance:")) << s.text;
    EXPECT_FALSE(contains(s.text, "\nmethodology:")) << s.text;
    EXPECT_FALSE(contains(s.text, "\ncontext_extension:")) << s.text;  // 262,144 is the native context
    EXPECT_TRUE(s.text.starts_with("# yaml-language-server: $schema=../../schema/kv-efficiency.schema.json\n"));
}

TEST(Skeleton, ContextTagsAndDefaultIds) {
    EXPECT_EQ(kvcat::context_tag(65536), "64k");
    EXPECT_EQ(kvcat::context_tag(1048576), "1m");
    EXPECT_EQ(kvcat::context_tag(2097152), "2m");
    EXPECT_EQ(kvcat::context_tag(1536 * 1024), "1536k");
    EXPECT_EQ(kvcat::context_tag(100000), "100000");
    EXPECT_EQ(kvcat::context_tag(0), "0");
    EXPECT_EQ(kvcat::default_kv_id("llama.cpp", "models/llama-3.1-8b", "", "", "q8_0", 65536),
              "kv-efficiency/llamacpp-llama-3.1-8b-q8_0-64k");
    EXPECT_EQ(kvcat::default_kv_id("vLLM", "models/qwen3.5-35b-a3b", "", "", "fp8", 262144),
              "kv-efficiency/vllm-qwen3.5-35b-a3b-fp8-256k");
    EXPECT_EQ(kvcat::default_kv_id("SGLang / FA3", "models/deepseek-v3", "", "", "bf16", 163840),
              "kv-efficiency/sglang-fa3-deepseek-v3-bf16-160k");
    // The card and the weight format are part of the id, so a 3090 run and a 4090 run of the
    // same model and dtype do not collide; a curve with no context above 0 has no tag.
    EXPECT_EQ(
        kvcat::default_kv_id("llama.cpp", "models/qwen3.5-27b", "accelerators/nvidia-rtx-3090", "Q4_K", "f16", 65536),
        "kv-efficiency/llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k-f16-64k");
    EXPECT_NE(
        kvcat::default_kv_id("llama.cpp", "models/qwen3.5-27b", "accelerators/nvidia-rtx-3090", "Q4_K", "f16", 65536),
        kvcat::default_kv_id("llama.cpp", "models/qwen3.5-27b", "accelerators/nvidia-rtx-4090", "Q4_K", "f16", 65536));
    EXPECT_EQ(kvcat::default_kv_id("vLLM", "models/llama-3.1-8b", "", "bf16", "bf16", 0),
              "kv-efficiency/vllm-llama-3.1-8b-bf16-bf16");
}

/// The default id begins as the shipped records' names do for the same engine: every shipped
/// llama.cpp, vLLM, SGLang and ollama record's file name starts with the engine part that
/// default_kv_id writes (llama.cpp spelled "llamacpp").
TEST(Skeleton, TheDefaultIdSpellsTheEngineAsTheShippedRecordsDo) {
    int seen = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(KVCAT_SOURCE_DIR) / "records" / "kv-efficiency")) {
        std::string text = kvcat::test::read_file(entry.path());
        auto at = text.find("\nengine: ");
        ASSERT_NE(at, std::string::npos) << entry.path();
        std::string engine = text.substr(at + 9, text.find('\n', at + 1) - at - 9);
        if (engine != "llama.cpp" && engine != "vLLM" && engine != "SGLang" && engine != "ollama") continue;
        // The id of model "m" alone: "kv-efficiency/<engine>-m".
        std::string id = kvcat::default_kv_id(engine, "models/m", "", "", "", 0);
        std::string prefix = id.substr(std::string("kv-efficiency/").size());
        prefix.resize(prefix.size() - 1);  // "<engine>-"
        EXPECT_TRUE(entry.path().filename().string().starts_with(prefix))
            << entry.path().filename() << " does not start with " << prefix;
        ++seen;
    }
    EXPECT_GT(seen, 10);
}

TEST(Skeleton, ContextNumbersTakePowerOfTwoSuffixes) {
    EXPECT_EQ(kvcat::parse_context("65536"), 65536);
    EXPECT_EQ(kvcat::parse_context("64k"), 65536);
    EXPECT_EQ(kvcat::parse_context("64K"), 65536);
    EXPECT_EQ(kvcat::parse_context("1M"), 1048576);
    EXPECT_EQ(kvcat::parse_context("1.5k"), 1536);
    EXPECT_FALSE(kvcat::parse_context("0").has_value());
    EXPECT_FALSE(kvcat::parse_context("-4k").has_value());
    EXPECT_FALSE(kvcat::parse_context("0.5").has_value());
    EXPECT_FALSE(kvcat::parse_context("lots").has_value());
    EXPECT_FALSE(kvcat::parse_context("").has_value());
}

TEST(Skeleton, TheDefaultIdAgreesWithTheContextTagRule) {
    SkeletonTree tree;
    for (std::int64_t ctx : {4096LL, 65536LL, 131072LL, 163840LL, 1048576LL}) {
        SCOPED_TRACE(ctx);
        Skeleton s = tree.make(options("models/deepseek-v3", "bf16", ctx));
        ASSERT_TRUE(s.ok()) << s.message();
        LintResult r = tree.write_and_lint(s, filled(s.text));
        EXPECT_TRUE(kvcat::test::find_rule(r.diagnostics, "id-context-tag").empty()) << describe(r.diagnostics);
        EXPECT_TRUE(r.diagnostics.empty()) << describe(r.diagnostics);
    }
}

TEST(Skeleton, UnknownModelDtypeAndAcceleratorAreClearErrors) {
    SkeletonTree tree;
    Skeleton model = tree.make(options("models/llama-3.1-8", "bf16", 65536));
    ASSERT_FALSE(model.ok());
    EXPECT_TRUE(contains(model.message(), "no model record 'models/llama-3.1-8'")) << model.message();
    EXPECT_TRUE(contains(model.message(), "did you mean 'models/llama-3.1-8b'?")) << model.message();

    Skeleton dtype = tree.make(options("models/llama-3.1-8b", "q8", 65536));
    ASSERT_FALSE(dtype.ok());
    EXPECT_TRUE(contains(dtype.message(), "unknown --kv-dtype 'q8'")) << dtype.message();
    for (const char* name : {"f32", "bf16", "fp8_e4m3", "q8_0", "q4_0", "iq4_nl"}) {
        EXPECT_TRUE(contains(dtype.message(), name)) << name << " not listed: " << dtype.message();
    }

    SkeletonOptions o = options("models/llama-3.1-8b", "bf16", 65536);
    o.accelerator = "nvidia-rtx-4080";
    Skeleton acc = tree.make(o);
    ASSERT_FALSE(acc.ok());
    EXPECT_TRUE(contains(acc.message(), "no accelerator record 'nvidia-rtx-4080'")) << acc.message();

    Skeleton ctx = tree.make(options("models/llama-3.1-8b", "bf16", 0));
    EXPECT_FALSE(ctx.ok());
    Skeleton engine = tree.make(options("models/llama-3.1-8b", "bf16", 65536, " "));
    EXPECT_FALSE(engine.ok());
}

TEST(Skeleton, AModelRecordWithoutTheFiguresIsRefused) {
    TempDir tmp;
    fs::path records = tmp.path() / "records";
    kvcat::test::copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", records);
    write_file(records / "models/half.yaml",
               "id: models/half\nname: Half\nconfig_source: a test\nconfig_verified: false\n"
               "total_params_b: 1\nactive_params_b: 1\nnative_context: 4096\nnum_layers: 4\n"
               "attention_variant: gqa\nattention_heads: 8\nkv_layers:\n  count: 4\n"
               "sources:\n  - name: a test\n");
    LintResult catalog = kvcat::lint_paths({records});
    Skeleton s = kvcat::make_kv_skeleton(catalog, options("models/half", "bf16", 4096));
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(contains(s.message(), "models/half has lint errors")) << s.message();
    EXPECT_TRUE(s.text.empty());
}

TEST(Skeleton, AnIdMustMatchItsContext) {
    SkeletonTree tree;
    SkeletonOptions o = options("models/llama-3.1-8b", "bf16", 65536);
    o.id = "kv-efficiency/my-row-128k";
    Skeleton wrong = tree.make(o);
    ASSERT_FALSE(wrong.ok());
    EXPECT_TRUE(contains(wrong.message(), "End the id with -64k")) << wrong.message();
    o.id = "my-row-64k";
    Skeleton right = tree.make(o);
    ASSERT_TRUE(right.ok()) << right.message();
    EXPECT_EQ(right.id, "kv-efficiency/my-row-64k");
    o.id = "kv-efficiency/My Row";
    EXPECT_FALSE(tree.make(o).ok());
}

// ---- the binary ------------------------------------------------------------------------------

using kvcat::test::Outcome;

class NewCli : public ::testing::Test {
  protected:
    /// Runs kvcat with `args` in a scratch directory holding a copy of records/.
    Outcome kvcat(const std::vector<std::string>& args) { return runner_.run(args); }

    kvcat::test::KvcatRunner runner_;
    fs::path dir_ = runner_.dir();
};

TEST_F(NewCli, WritesASkeletonThatFailsOnlyOnTheHumanFields) {
    const std::string file = "records/kv-efficiency/llamacpp-llama-3.1-8b-q8_0-64k.yaml";
    Outcome r = kvcat({"new", "kv-efficiency", "--model", "models/llama-3.1-8b", "--engine", "llama.cpp", "--kv-dtype",
                       "q8_0", "--context", "64k", "--out", file});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "write methodology, notes, sources")) << r.err;
    std::string text = read_file(dir_ / file);
    EXPECT_TRUE(contains(text, "kv_bytes_per_token: 69632\n")) << text;
    Outcome lint = kvcat({"lint", file});
    EXPECT_EQ(lint.status, 1);
    EXPECT_EQ(lint.out,
              file + ":5:1: error: [schema-missing-key] required key 'methodology' is missing (expected a string)\n" +
                  file + ":5:1: error: [schema-missing-key] required key 'notes' is missing (expected a string)\n" +
                  file +
                  ":5:1: error: [schema-missing-key] required key 'sources' is missing (expected a list of "
                  "sources)\n");
    // The headline query still has its one row: a skeleton never reaches the catalog.
    Outcome again = kvcat({"new", "kv-efficiency", "--model", "models/llama-3.1-8b", "--engine", "llama.cpp",
                           "--kv-dtype", "q8_0", "--context", "64k", "--out", file});
    EXPECT_EQ(again.status, 2);
    EXPECT_TRUE(contains(again.err, "exists; give --force")) << again.err;
}

TEST_F(NewCli, AFolderAsOutTakesTheFileNamedByTheId) {
    // The README's command: a folder, with or without its slash, gets the file the id names.
    for (std::string out : {"records/kv-efficiency/", "records/kv-efficiency"}) {
        SCOPED_TRACE(out);
        const std::string file = "records/kv-efficiency/llamacpp-qwen3.5-27b-q8_0-64k.yaml";
        fs::remove(dir_ / file);
        Outcome r = kvcat({"new", "kv-efficiency", "--model", "models/qwen3.5-27b", "--engine", "llama.cpp",
                           "--kv-dtype", "q8_0", "--context", "0,16k,64k", "--out", out});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(contains(r.err, "wrote " + file + " (kv-efficiency/llamacpp-qwen3.5-27b-q8_0-64k)")) << r.err;
        EXPECT_TRUE(contains(read_file(dir_ / file), "id: kv-efficiency/llamacpp-qwen3.5-27b-q8_0-64k\n"));
    }
    // A folder that does not exist and has no slash is a file name, as before.
    Outcome plain = kvcat({"new", "kv-efficiency", "--model", "models/qwen3.5-27b", "--engine", "llama.cpp",
                           "--kv-dtype", "q8_0", "--context", "64k", "--out", "skeleton.yaml"});
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_TRUE(fs::exists(dir_ / "skeleton.yaml"));
}

TEST_F(NewCli, StdoutAndErrors) {
    Outcome r = kvcat({"new", "kv-efficiency", "--model", "deepseek-v3", "--engine", "vLLM", "--kv-dtype", "bf16",
                       "--context", "128k"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "id: kv-efficiency/vllm-deepseek-v3-bf16-128k\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "kv_bytes_per_token: 70272\n")) << r.out;

    Outcome dtype = kvcat({"new", "kv-efficiency", "--model", "models/deepseek-v3", "--engine", "vLLM", "--kv-dtype",
                           "int8", "--context", "128k"});
    EXPECT_EQ(dtype.status, 2);
    EXPECT_TRUE(contains(dtype.err, "unknown --kv-dtype 'int8'")) << dtype.err;
    EXPECT_TRUE(contains(dtype.err, "q8_0")) << dtype.err;

    Outcome model = kvcat({"new", "kv-efficiency", "--model", "models/nope", "--engine", "vLLM", "--kv-dtype", "bf16",
                           "--context", "128k"});
    EXPECT_EQ(model.status, 2);
    EXPECT_TRUE(contains(model.err, "no model record 'models/nope'")) << model.err;

    Outcome context = kvcat({"new", "kv-efficiency", "--model", "models/deepseek-v3", "--engine", "vLLM", "--kv-dtype",
                             "bf16", "--context", "lots"});
    EXPECT_EQ(context.status, 2);
    EXPECT_TRUE(contains(context.err, "--context 'lots'")) << context.err;

    Outcome records = kvcat({"new", "kv-efficiency", "--model", "models/deepseek-v3", "--engine", "vLLM", "--kv-dtype",
                             "bf16", "--context", "128k", "--records", "elsewhere"});
    EXPECT_EQ(records.status, 2);

    EXPECT_EQ(kvcat({"new"}).status, 2);
    EXPECT_EQ(kvcat({"new", "model"}).status, 2);
    EXPECT_EQ(kvcat({"new", "kv-efficiency", "--model", "models/deepseek-v3"}).status, 2);
    Outcome help = kvcat({"new", "kv-efficiency", "--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_TRUE(contains(help.out, "Examples:")) << help.out;
}

}  // namespace
