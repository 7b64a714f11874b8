// The formats of src/bench_formats.cc, each on a real file from a public source
// (tests/fixtures/import-bench/*.source.txt says where each was read), and their bad input.
#include <gtest/gtest.h>

#include <string>

#include "bench_formats.h"
#include "bench_import.h"
#include "test_util.h"

namespace kvcat {
namespace {

BenchRun read_fixture(const std::string& name, const BenchOptions& options = {}) {
    return read_bench_files({test::fixture_path("import-bench/" + name).string()}, options);
}

TEST(BenchFormats, TheBatchedBenchReadmeLinesAreTwoPointsAtOneContext) {
    BenchRun run = read_fixture("llama-batched-bench-readme.jsonl");
    EXPECT_EQ(run.format, "llama-batched-bench JSONL");
    EXPECT_EQ(run.engine, "llama.cpp");
    ASSERT_EQ(run.points.size(), 2u);
    const MeasurementPoint& one = run.points[0];
    EXPECT_EQ(one.context_length, 128);
    EXPECT_EQ(one.concurrency, 1);
    EXPECT_DOUBLE_EQ(*one.tps, 36.532974);
    EXPECT_DOUBLE_EQ(*one.total_tps, 36.532974);
    EXPECT_DOUBLE_EQ(*one.prefill_tps, 547.453064);
    EXPECT_DOUBLE_EQ(*one.ttft_ms, 233.81);  // t_pp 0.233810 s
    EXPECT_EQ(one.gen_tokens, 128);
    const MeasurementPoint& two = run.points[1];
    EXPECT_EQ(two.concurrency, 2);
    EXPECT_FALSE(two.tps);  // speed_tg is the total over the two sequences
    EXPECT_DOUBLE_EQ(*two.total_tps, 23.050371);
    EXPECT_FALSE(two.prefill_tps);
    EXPECT_FALSE(two.ttft_ms);
    bool said = false;
    for (const auto& f : run.facts) said = said || f == "n_ubatch 512";
    EXPECT_TRUE(said);
}

TEST(BenchFormats, BatchedBenchLinesOfTwoConfigurationsOrARepeatedPointAreRefused) {
    std::string a =
        R"({"n_kv_max": 2048, "n_batch": 2048, "pp": 128, "tg": 128, "pl": 1, "t_pp": 0.2, "speed_pp": 600, "speed_tg": 36})";
    std::string b =
        R"({"n_kv_max": 4096, "n_batch": 2048, "pp": 256, "tg": 128, "pl": 1, "t_pp": 0.4, "speed_pp": 600, "speed_tg": 35})";
    try {
        parse_bench_text("two.jsonl", a + "\n" + b + "\n");
        FAIL() << "two configurations were read as one";
    } catch (const BenchError& e) {
        EXPECT_STREQ(e.what(),
                     "two.jsonl:2:1: n_kv_max is 4096 here and 2048 on line 1: a record holds one configuration, so "
                     "import each configuration's lines separately");
    }
    std::string c =
        R"({"n_kv_max": 2048, "n_batch": 2048, "pp": 128, "tg": 256, "pl": 1, "t_pp": 0.2, "speed_pp": 600, "speed_tg": 35})";
    EXPECT_THROW(parse_bench_text("repeat.jsonl", a + "\n" + c + "\n"), BenchError);
    std::string bad =
        R"({"n_kv_max": 2048, "n_batch": 2048, "pp": 128, "tg": 128, "pl": 1, "t_pp": 0.2, "speed_pp": 600, "speed_tg": -1})";
    try {
        parse_bench_text("bad.jsonl", bad + "\n");
        FAIL();
    } catch (const BenchError& e) {
        EXPECT_STREQ(e.what(), "bad.jsonl:1:1: 'speed_tg' must be a number above zero, found -1");
    }
}

TEST(BenchFormats, TheAiperfExportIsOnePointAtItsMeanInputLength) {
    BenchOptions options;
    options.concurrency = 1;
    BenchRun run = read_fixture("aiperf-0.10.0-profile-export.json", options);
    EXPECT_EQ(run.format, "AIPerf profile export");
    ASSERT_EQ(run.points.size(), 1u);
    const MeasurementPoint& p = run.points[0];
    EXPECT_EQ(p.context_length, 256);
    EXPECT_EQ(p.concurrency, 1);
    EXPECT_DOUBLE_EQ(*p.tps, 28.79);  // 1000 / 34.73 ms, to 0.01
    EXPECT_DOUBLE_EQ(*p.ttft_ms, 175.05);
    EXPECT_DOUBLE_EQ(*p.total_tps, 52.69);
    EXPECT_EQ(p.gen_tokens, 64);
    ASSERT_FALSE(run.derivations.empty());
    EXPECT_EQ(run.derivations[0], "context_length 256 is input_sequence_length's avg 256, rounded to a whole token");
}

TEST(BenchFormats, AnAiperfExportWithoutAConcurrencyAsksForIt) {
    try {
        read_fixture("aiperf-0.10.0-profile-export.json");
        FAIL() << "a concurrency was guessed";
    } catch (const BenchError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("aiperf-0.10.0-profile-export.json:1:1: the export names no concurrency"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("--concurrency"), std::string::npos) << what;
    }
    std::string wrong_unit =
        R"({"time_to_first_token": {"unit": "s", "p50": 0.2}, "inter_token_latency": {"unit": "ms", "p50": 10},
            "input_sequence_length": {"unit": "tokens", "avg": 100}, "input_config": {"loadgen": {"concurrency": 4}}})";
    try {
        parse_bench_text("unit.json", wrong_unit);
        FAIL();
    } catch (const BenchError& e) {
        EXPECT_STREQ(e.what(), "unit.json:1:1: time_to_first_token is in 's', expected ms");
    }
}

}  // namespace
}  // namespace kvcat
