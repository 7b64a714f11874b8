// The formats of src/import/bench_formats.cc, each on a real file from a public source
// (tests/fixtures/import-bench/*.source.txt says where each was read), and their bad input.
#include <gtest/gtest.h>

#include <string>

#include "import/bench_import.h"
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

std::string fixture_text(const std::string& name) {
    return test::read_file(test::fixture_path("import-bench/" + name));
}

/// Replaces the one place `from` stands in `text` with `to`.
std::string edited(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

std::string error_of(const std::string& file, const std::string& text, const BenchOptions& options = {}) {
    try {
        parse_bench_text(file, text, options);
    } catch (const BenchError& e) {
        return e.what();
    }
    return "no error";
}

const char kGuideStrategy[] =
    R"("strategy": {"type_": "concurrent", "worker_count": 4, "max_concurrency": 4, "streams": 4, "rampup_duration": 0.0})";

TEST(BenchFormats, TheGuidellmReportIsOnePointAtItsFourStreams) {
    BenchRun run = read_fixture("guidellm-0.5-qwen3-4b-concurrent4.json");
    EXPECT_EQ(run.format, "GuideLLM benchmarks JSON");
    EXPECT_FALSE(run.engine);  // GuideLLM sees an HTTP API, not the engine behind it
    ASSERT_EQ(run.points.size(), 1u);
    const MeasurementPoint& p = run.points[0];
    EXPECT_EQ(p.context_length, 99);  // prompt_token_count successful mean 99.0
    EXPECT_EQ(p.concurrency, 4);      // the concurrent strategy's streams
    EXPECT_DOUBLE_EQ(*p.tps, 41.36);  // 1000 / 24.178653868062757 ms, to 0.01
    EXPECT_DOUBLE_EQ(*p.ttft_ms, 171.52166366577148);
    EXPECT_DOUBLE_EQ(*p.total_tps, 165.59511945248636);
    EXPECT_EQ(p.gen_tokens, 1024);
    EXPECT_FALSE(p.prefill_tps);
    ASSERT_EQ(run.derivations.size(), 2u);
    EXPECT_EQ(run.derivations[0],
              "benchmark 1: context_length 99 is the successful requests' mean prompt_token_count, 99, rounded to a "
              "whole token");
    EXPECT_EQ(run.derivations[1], "benchmark 1: concurrent at 4 streams");
    bool client = false;
    for (const auto& f : run.facts) client = client || f.find("the speeds are the client's") != std::string::npos;
    EXPECT_TRUE(client);
}

TEST(BenchFormats, AGuidellmRateBenchmarkSaysItsConcurrencyWasMeasured) {
    // The real report with its strategy turned into a constant rate of 1.5 requests/s.
    std::string text = edited(fixture_text("guidellm-0.5-qwen3-4b-concurrent4.json"), kGuideStrategy,
                              R"("strategy": {"type_": "constant", "rate": 1.5, "max_concurrency": null})");
    BenchRun run = parse_bench_text("rate.json", text);
    ASSERT_EQ(run.points.size(), 1u);
    EXPECT_EQ(run.points[0].concurrency, 4);  // request_concurrency successful mean 3.9998399194047565
    EXPECT_EQ(run.derivations[1],
              "benchmark 1: constant at 1.5 requests/s, which fixes no concurrency: 4 is request_concurrency's mean "
              "over successful requests, 3.9998399194047565, rounded (measured, not set)");
    BenchOptions options;
    options.concurrency = 3;
    run = parse_bench_text("rate.json", text, options);
    EXPECT_EQ(run.points[0].concurrency, 3);
    EXPECT_EQ(run.derivations[1],
              "benchmark 1: constant at 1.5 requests/s; concurrency 3 was given with --concurrency");
}

TEST(BenchFormats, ABrokenGuidellmReportNamesTheBenchmarkAndTheField) {
    const std::string real = fixture_text("guidellm-0.5-qwen3-4b-concurrent4.json");
    // The benchmark's object opens at byte 1088 of the file's one line.
    EXPECT_EQ(error_of("g.json", edited(real, kGuideStrategy, R"("strategy": {"type_": "concurrent", "streams": 0})")),
              "g.json:1:1088: benchmark 1: strategy.streams must be a whole number of 1 or more, found 0");
    EXPECT_EQ(error_of("g.json", edited(real, R"("median": 24.178653868062757)", R"("median": "slow")")),
              "g.json:1:1088: benchmark 1: metrics.inter_token_latency_ms.successful.median must be a number, found "
              "slow");
    std::string not_one = error_of("g.json", edited(real, R"("benchmarks": [{)", R"("benchmarks": [7, {)"));
    EXPECT_NE(not_one.find(": benchmark 1: is not a benchmark object"), std::string::npos) << not_one;
    // Two benchmarks at one context and concurrency cannot both be points of one record.
    auto open = real.find(R"("benchmarks": [)") + 15;
    auto close = real.rfind("]}");
    std::string one = real.substr(open, close - open);
    std::string twice = real.substr(0, close) + ", " + one + real.substr(close);
    std::string what = error_of("g.json", twice);
    EXPECT_NE(what.find(": benchmark 2: is at context 99 and concurrency 4, as benchmark 1 is"), std::string::npos)
        << what;
}

TEST(BenchFormats, TheSglangRateSweepIsAPointALineAtItsMeasuredConcurrency) {
    BenchRun run = read_fixture("sglang-h200-llama-3.3-70b-online-random.jsonl");
    EXPECT_EQ(run.format, "SGLang bench_serving JSONL");
    EXPECT_EQ(run.engine, "SGLang");  // --backend sglang
    ASSERT_EQ(run.points.size(), 5u);
    // Sorted by context: lines 1 (509, 8), 5 (509, 1245), 4 (510, 360), 3 (513, 52), 2 (515, 16).
    const MeasurementPoint& first = run.points[0];
    EXPECT_EQ(first.context_length, 509);  // 152612 / 300 = 508.7
    EXPECT_EQ(first.concurrency, 8);       // 300 x 7.8406 s / 298.37 s = 7.88 in flight
    EXPECT_DOUBLE_EQ(*first.tps, 73.32);   // 1000 / 13.638956006616354 ms
    EXPECT_DOUBLE_EQ(*first.ttft_ms, 85.74514742940664);
    EXPECT_DOUBLE_EQ(*first.total_tps, 537.4142851849319);
    EXPECT_FALSE(first.gen_tokens);  // 160347 / 300 tokens is no whole number
    EXPECT_EQ(run.points[1].context_length, 509);
    EXPECT_EQ(run.points[1].concurrency, 1245);
    EXPECT_DOUBLE_EQ(*run.points[1].tps, 5.58);  // 1000 / 179.12118090316653 ms
    EXPECT_EQ(run.points[4].context_length, 515);
    EXPECT_EQ(run.points[4].concurrency, 16);
    EXPECT_DOUBLE_EQ(*run.points[4].total_tps, 987.3125216200807);
    EXPECT_EQ(run.derivations[0],
              "line 1: context_length 509 is the mean input length, total_input_tokens 152612 / completed 300, "
              "rounded (random_input_len 1024 is the longest a prompt could be at random_range_ratio 0)");
    EXPECT_NE(run.derivations[1].find("line 1: request_rate 1.0 with no max_concurrency: concurrency 8 is the mean "
                                      "requests in flight, completed 300 x mean_e2e_latency_ms 7840.616212638561"),
              std::string::npos)
        << run.derivations[1];
}

TEST(BenchFormats, AnSglangFileOfTwoWorkloadsIsRefusedAtTheLineThatDiffers) {
    try {
        read_fixture("sglang-h200-llama-3.3-70b-online.jsonl");
        FAIL() << "a ShareGPT run was read into the random-dataset sweep";
    } catch (const BenchError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("sglang-h200-llama-3.3-70b-online.jsonl:6:1: dataset_name is sharegpt here and random on "
                            "line 1: a record holds one workload against one server"),
                  std::string::npos)
            << what;
    }
}

TEST(BenchFormats, AnSglangLineWithAnInfiniteRequestRateIsRead) {
    BenchRun run = read_fixture("sglang-h200-deepseek-offline.jsonl");
    ASSERT_EQ(run.points.size(), 1u);
    const MeasurementPoint& p = run.points[0];
    EXPECT_EQ(p.context_length, 1);  // random_input_len 1 at random_range_ratio 1.0
    EXPECT_EQ(p.concurrency, 9242);  // 10000 x 381.24 s / 412.49 s in flight
    EXPECT_DOUBLE_EQ(*p.tps, 2.69);  // 1000 / 371.844899491407 ms
    EXPECT_DOUBLE_EQ(*p.ttft_ms, 10014.104524045251);
    EXPECT_DOUBLE_EQ(*p.total_tps, 12412.394674113431);
    EXPECT_EQ(p.gen_tokens, 512);  // total_output_tokens 5120000 / completed 10000
    EXPECT_NE(run.derivations[1].find("line 1: request_rate Infinity with no max_concurrency"), std::string::npos)
        << run.derivations[1];
    // The word is read in a bench_serving line only: elsewhere it is still not JSON.
    std::string what = error_of("bench.jsonl", R"({"avg_ts": Infinity, "n_prompt": 512})"
                                               "\n");
    EXPECT_NE(what.find("bench.jsonl:1:12: not a JSON object on this line"), std::string::npos) << what;
}

TEST(BenchFormats, ABrokenSglangLineNamesTheFieldAndTheLine) {
    std::string text = fixture_text("sglang-h200-llama-3.3-70b-online-random.jsonl");
    EXPECT_EQ(error_of("s.jsonl", edited(text, R"("median_ttft_ms": 87.55627297796309)", R"("median_ttft_ms": -1)")),
              "s.jsonl:2:1: 'median_ttft_ms' is -1, expected a number above zero");
    EXPECT_EQ(error_of("s.jsonl", edited(text, R"("completed": 1200)", R"("completed": 12.5)")),
              "s.jsonl:3:1: 'completed' must be a whole number of zero or more, found 12.5");
    EXPECT_EQ(error_of("s.jsonl", edited(text, R"("median_itl_ms": 70.76324708759785)", R"("median_itl_ms": NaN)")),
              "s.jsonl:4:1: 'median_itl_ms' must be a finite number, found NaN");
    // A gap so short that 1000 / it is past a double is refused, not kept as an infinite speed.
    std::string tiny =
        error_of("s.jsonl", edited(text, R"("median_itl_ms": 19.419891061261296)", R"("median_itl_ms": 5e-324)"));
    EXPECT_NE(tiny.find("s.jsonl:3:1: 'median_itl_ms' is "), std::string::npos) << tiny;
    EXPECT_NE(tiny.find("too short to be a decode speed"), std::string::npos) << tiny;
    BenchOptions options;
    options.select.push_back({"type_k", "q8_0"});
    EXPECT_EQ(error_of("s.jsonl", text, options),
              "s.jsonl:1:1: --select picks llama-bench entries; this is SGLang bench_serving output");
}

}  // namespace
}  // namespace kvcat
