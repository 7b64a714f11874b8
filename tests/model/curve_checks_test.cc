// The arithmetic of the curve checks, on the figures of the shipped curves the checks were
// written for, and on the edges of each tolerance.
#include <cmath>

#include <gtest/gtest.h>

#include "model/curve_checks.h"

namespace kvcat {
namespace {

TEST(CurveChecks, RiseToleranceIsTheStatedStddevsElseFivePercent) {
    RiseTolerance stated = rise_tolerance(29.0, 0.4, 0.3);
    EXPECT_DOUBLE_EQ(stated.tokens_per_s, 0.7);
    EXPECT_NE(stated.why.find("stddevs"), std::string::npos) << stated.why;
    RiseTolerance one = rise_tolerance(29.0, std::nullopt, 0.5);
    EXPECT_DOUBLE_EQ(one.tokens_per_s, 0.5);
    RiseTolerance none = rise_tolerance(36.4, std::nullopt, std::nullopt);
    EXPECT_NEAR(none.tokens_per_s, 1.82, 1e-9);
    EXPECT_EQ(none.why, "5% of 36.4 t/s");
}

TEST(CurveChecks, InterpolationIsAStraightLineInTimePerToken) {
    // Halfway between 20 t/s (50 ms) and 10 t/s (100 ms) is 75 ms: 13.33 t/s, not 15.
    auto mid = interpolated_tps(0, 20.0, 100, 10.0, 50);
    ASSERT_TRUE(mid);
    EXPECT_NEAR(*mid, 1000.0 / 75.0, 1e-9);
    EXPECT_FALSE(interpolated_tps(10, 20.0, 10, 10.0, 10));
    EXPECT_FALSE(interpolated_tps(0, 0.0, 100, 10.0, 50));
}

// A speed of 1e-320 t/s takes a time per token past what a double holds: no line is drawn
// through it (the lint once printed "-nan t/s" and "nan% less time"), and no cache read.
TEST(CurveChecks, ASpeedNearZeroDrawsNoLine) {
    EXPECT_FALSE(interpolated_tps(1024, 1e-320, 2048, 37.24, 1536));
    EXPECT_FALSE(implied_cache_read(1e9, 40.0, 1e-320, 936.2));
    ASSERT_TRUE(interpolated_tps(512, 39.33, 1536, 37.89, 1024));
    EXPECT_FALSE(std::isfinite(off_line_fraction(*interpolated_tps(512, 39.33, 1536, 37.89, 1024), 1e-320)));
}

TEST(CurveChecks, TheOllamaSixteenKPointIsFarOffItsLine) {
    // 36.4 t/s at 4,096 and 23.3 t/s at 32,768 put 16,384 near 29.3 t/s; the source prints 8.5.
    auto expected = interpolated_tps(4096, 36.4, 32768, 23.3, 16384);
    ASSERT_TRUE(expected);
    EXPECT_NEAR(*expected, 29.33, 0.01);
    double off = off_line_fraction(*expected, 8.5);
    EXPECT_GT(off, kOffCurveTolerance);
    EXPECT_NEAR(off, 2.451, 0.001);  // 245% more time per token
    EXPECT_NEAR(off_line_fraction(30.0, 30.0), 0.0, 1e-12);
    EXPECT_LT(off_line_fraction(20.0, 25.0), 0.0);  // faster than the line
}

TEST(CurveChecks, ATtftMustContainItsPrefillAndLittleMore) {
    // SGLang AWQ-INT4, 128k at concurrency 1: 131,072 / 12,740 t/s = 10,288 ms of prefill in
    // a TTFT of 10,440 ms: consistent.
    EXPECT_FALSE(judge_ttft(131072, 12740, 10440));
    // The same prefill in 900 ms (the concurrency-2 cell, whose prefix was cached) is not.
    auto short_one = judge_ttft(131072, 12740, 900);
    ASSERT_TRUE(short_one);
    EXPECT_NEAR(short_one->prefill_ms, 10288.2, 0.1);
    EXPECT_NE(short_one->why.find("shorter"), std::string::npos);
    // Edges: 90% of the prefill holds, less does not; 1.5 x + 500 ms holds, more does not.
    EXPECT_FALSE(judge_ttft(1000, 1000, 900));
    EXPECT_TRUE(judge_ttft(1000, 1000, 899));
    EXPECT_FALSE(judge_ttft(1000, 1000, 2000));
    auto long_one = judge_ttft(1000, 1000, 2001);
    ASSERT_TRUE(long_one);
    EXPECT_NE(long_one->why.find("longer"), std::string::npos);
    EXPECT_FALSE(judge_ttft(0, 1000, 5));
}

TEST(CurveChecks, TheSglangAwqCurveReadsItsCacheAtSeventyGbPerSecond) {
    // 15 layers x 2 heads x 256 x 2 x 1 byte = 15,360 B/token; 131,072 tokens add
    // 2,013,265,920 bytes; decode falls from 152.4 to 28.4 t/s: 1/28.4 - 1/152.4 s per token.
    auto read = implied_cache_read(2013265920.0, 152.4, 28.4, 1792.0);
    ASSERT_TRUE(read);
    EXPECT_NEAR(read->gb_s, 70.27, 0.01);
    EXPECT_NEAR(read->fraction, 0.0392, 0.0001);
    EXPECT_TRUE(read->engine_bound);
    // The b12x curve on the same cards falls 108.1 -> 96.9: the added cache is read at 1.88 TB/s.
    auto b12x = implied_cache_read(2013265920.0, 108.1, 96.9, 1792.0);
    ASSERT_TRUE(b12x);
    EXPECT_NEAR(b12x->gb_s, 1883.0, 1.0);
    EXPECT_FALSE(b12x->engine_bound);
    // No fall, or no cache added: nothing to judge.
    EXPECT_FALSE(implied_cache_read(2013265920.0, 30.0, 30.0, 1792.0));
    EXPECT_FALSE(implied_cache_read(0.0, 30.0, 20.0, 1792.0));
}

}  // namespace
}  // namespace kvcat
