// One vocabulary for engines and weight formats, and text filters that ignore case, so rows
// from many sources query together.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "catalog/catalog.h"
#include "catalog/catalog_writer.h"
#include "check/lint.h"
#include "kvcat_runner.h"
#include "test_util.h"
#include "vocab/dtype.h"
#include "vocab/vocabulary.h"
#include "vocab/weight_mix.h"
#include "vocab/weight_quant.h"

namespace kvcat {
namespace {

const Diagnostic* only(const LintResult& r, const std::string& rule) {
    const Diagnostic* found = nullptr;
    for (const auto& d : r.diagnostics) {
        if (d.rule != rule) continue;
        EXPECT_EQ(found, nullptr) << "more than one " << rule;
        found = &d;
    }
    return found;
}

TEST(Vocabulary, AnEngineSpelledOtherwiseIsAnErrorNamingTheSpelling) {
    LintResult r = lint_paths({test::fixture_path("engine-name/fail")});
    const Diagnostic* d = only(r, "engine-name");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::error);
    EXPECT_EQ(d->pos.line, 5);
    EXPECT_EQ(d->pos.column, 9);
    EXPECT_EQ(d->stated, "llamacpp");
    EXPECT_EQ(d->computed, "llama.cpp");
}

TEST(Vocabulary, AWeightFormatInAnotherCaseIsAWarningNamingTheSpelling) {
    LintResult r = lint_paths({test::fixture_path("weight-format-name/fail")});
    const Diagnostic* d = only(r, "weight-format-name");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->severity, Severity::warning);
    EXPECT_EQ(d->pos.line, 7);
    EXPECT_EQ(d->pos.column, 15);
    EXPECT_EQ(d->computed, "Q4_K_M");
}

// fit, curve and plan read a weight format by name through one lookup: an exact format as
// itself, a llama.cpp mix at its base type and marked, anything else refused with every name.
TEST(Vocabulary, AWeightNameIsAnExactFormatOrAMixAtItsBaseType) {
    auto exact = kvcat::find_weights("q4_k");
    ASSERT_TRUE(exact);
    EXPECT_EQ(exact->name(), "Q4_K");
    EXPECT_FALSE(exact->mix);
    auto mix = kvcat::find_weights("q4_k_m");
    ASSERT_TRUE(mix);
    EXPECT_EQ(mix->name(), "Q4_K_M");
    EXPECT_EQ(mix->quant.name, "Q4_K");
    ASSERT_TRUE(mix->mix);
    EXPECT_FALSE(kvcat::find_weights("Q4_K_X"));
    std::string why = kvcat::unknown_weights_message("Q4_K_X");
    EXPECT_TRUE(why.starts_with("unknown weight format 'Q4_K_X'; exact ones are: ")) << why;
    for (const auto& q : kvcat::weight_quants()) EXPECT_NE(why.find(q.name), std::string::npos) << q.name;
    for (const auto& m : kvcat::weight_mixes()) EXPECT_NE(why.find(m.name), std::string::npos) << m.name;
    std::string dtype = kvcat::unknown_cache_dtype_message("q7");
    EXPECT_TRUE(dtype.starts_with("unknown KV cache dtype 'q7'; valid: f32, ")) << dtype;
}

TEST(Vocabulary, SpellingsAndForks) {
    EXPECT_EQ(engine_spelled("vllm")->name, "vLLM");
    EXPECT_EQ(engine_spelled("LLAMACPP")->name, "llama.cpp");
    EXPECT_EQ(engine_spelled("trtllm")->name, "TensorRT-LLM");
    EXPECT_EQ(find_engine("ik_llama.cpp")->upstream, "llama.cpp");
    EXPECT_EQ(find_engine("vllm"), nullptr);  // the catalog's spelling only
    EXPECT_EQ(engine_spelled("my-engine"), nullptr);
    EXPECT_EQ(weight_format_spelled("q4_k_m")->name, "Q4_K_M");
    EXPECT_EQ(weight_format_spelled("Q9_Z"), nullptr);
    // Every weight format with an exact size is in the vocabulary too.
    for (const auto& q : weight_quants()) EXPECT_NE(find_weight_format(q.name), nullptr) << q.name;
}

TEST(Vocabulary, TextFiltersIgnoreCase) {
    test::KvcatRunner runner;
    for (const char* filter : {"engine=vllm", "engine=VLLM", "engine=vLLM", "model~*QWEN3.5-35B*"}) {
        test::Outcome q = runner.run({"query", "--format", "csv", "--columns", "id", filter});
        ASSERT_EQ(q.status, 0) << q.err;
        EXPECT_EQ(q.out, "id\r\nkv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k\r\n") << filter;
    }
    test::Outcome none = runner.run({"query", "--format", "csv", "--columns", "id", "engine!=VLLM"});
    EXPECT_EQ(none.out.find("vllm-qwen35"), std::string::npos) << none.out;
    test::Outcome engines =
        runner.run({"sql", "--format", "csv", "SELECT upstream FROM engines WHERE name = 'ik_llama.cpp'"});
    EXPECT_EQ(engines.out, "upstream\r\nllama.cpp\r\n") << engines.err;
}

}  // namespace
}  // namespace kvcat
