// Models whose layers are not all alike: shared caches and differing shapes, end to end
// through the lint.
#include <gtest/gtest.h>

#include "check/lint.h"
#include "test_util.h"

namespace kvcat {
namespace {

constexpr const char* kModel = R"(id: models/mixed
name: Mixed
config_source: written for this test
config_verified: true
total_params_b: 8
active_params_b: 8
native_context: 131072
num_layers: 40
attention_variant: gqa
attention_heads: 32
kv_layers:
  count: 32
  shared: 8
kv_groups:
  - layers: 20
    kv_heads: 8
    head_dim: 128
  - layers: 12
    kv_heads: 4
    head_dim: 256
sources:
  - name: test
)";

std::string row(const std::string& groups, const std::string& bytes, const std::string& statement) {
    return R"(id: kv-efficiency/mixed
model: models/mixed
accelerator: null
engine: vLLM
kv_cache_dtype: bf16
attention_variant: gqa
context_length: 65536
kv_bytes_per_token: )" +
           bytes + R"(
kv_bytes_basis:
  layers: 32
  groups:
)" + groups +
           R"(  kv_factor: 2
  bytes_per_element: 2
  statement: ")" +
           statement + R"("
measured_tps_at_ctx: null
measured_ttft_ms_at_ctx: null
methodology: a test
notes: a test
sources:
  - name: test
)";
}

const std::string kGroups =
    "    - layers: 20\n      kv_heads: 8\n      head_dim: 128\n"
    "    - layers: 12\n      kv_heads: 4\n      head_dim: 256\n";

TEST(LayerShapes, GroupedModelAndRowLintClean) {
    test::TempDir dir;
    test::write_file(dir / "models/mixed.yaml", kModel);
    test::write_file(dir / "kv-efficiency/mixed.yaml",
                     row(kGroups, "131072", "(20 x 8 x 128 + 12 x 4 x 256) x 2 x 2 = 131,072 B/token"));
    LintResult r = lint_paths({dir.path()});
    EXPECT_TRUE(r.diagnostics.empty()) << format_text(r.diagnostics.front());
}

TEST(LayerShapes, WrongGroupIsNamedAgainstTheModel) {
    test::TempDir dir;
    test::write_file(dir / "models/mixed.yaml", kModel);
    std::string wrong =
        "    - layers: 20\n      kv_heads: 8\n      head_dim: 128\n"
        "    - layers: 12\n      kv_heads: 8\n      head_dim: 256\n";
    test::write_file(dir / "kv-efficiency/mixed.yaml",
                     row(wrong, "180224", "(20 x 8 x 128 + 12 x 8 x 256) x 2 x 2 = 180,224 B/token"));
    LintResult r = lint_paths({dir.path()});
    ASSERT_EQ(r.diagnostics.size(), 1u) << format_text(r.diagnostics.front());
    const Diagnostic& d = r.diagnostics[0];
    EXPECT_EQ(d.rule, "kv-basis-model");
    EXPECT_EQ(d.pos.line, 12);  // the groups list
    EXPECT_EQ(d.stated, "20 x 8 x 128 + 12 x 8 x 256");
    EXPECT_EQ(d.computed, "20 x 8 x 128 + 12 x 4 x 256");
}

TEST(LayerShapes, GroupedProductIsRecomputed) {
    test::TempDir dir;
    test::write_file(dir / "models/mixed.yaml", kModel);
    test::write_file(dir / "kv-efficiency/mixed.yaml",
                     row(kGroups, "65536", "(20 x 8 x 128 + 12 x 4 x 256) x 2 x 2 = 65,536 B/token"));
    LintResult r = lint_paths({dir.path()});
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].rule, "kv-basis-product");
    EXPECT_EQ(r.diagnostics[0].message,
              "(20 x 8 x 128 + 12 x 4 x 256) x 2 x 2 = 131,072, but kv_bytes_per_token is 65,536");
}

TEST(LayerShapes, StatementMustGiveTheResult) {
    test::TempDir dir;
    test::write_file(dir / "models/mixed.yaml", kModel);
    test::write_file(dir / "kv-efficiency/mixed.yaml", row(kGroups, "131072", "two shapes of layer, summed"));
    LintResult r = lint_paths({dir.path()});
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].rule, "kv-statement-mismatch");
    EXPECT_EQ(r.diagnostics[0].computed, "131,072");
}

TEST(LayerShapes, SharedLayersMustBeCounted) {
    test::TempDir dir;
    std::string model = kModel;
    model.replace(model.find("  shared: 8"), 11, "  shared: 4");
    test::write_file(dir / "models/mixed.yaml", model);
    LintResult r = lint_paths({dir.path()});
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_EQ(r.diagnostics[0].rule, "model-layers");
    EXPECT_EQ(r.diagnostics[0].message,
              "32 KV-caching + 0 sliding + 0 linear layers + 4 sharing another's cache = 36, but num_layers is 40");
}

}  // namespace
}  // namespace kvcat
