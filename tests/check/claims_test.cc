#include "check/claims.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using kvcat::Claim;
using kvcat::find_claims;
using kvcat::Rational;

// The bytes of `text` that a claim or side covers.
std::string span(std::string_view text, std::size_t offset, std::size_t length) {
    return std::string(text.substr(offset, length));
}

// Structural invariants every claim must satisfy, whatever the input.
void expect_well_formed(std::string_view text, const Claim& c) {
    ASSERT_LE(c.offset, text.size());
    ASSERT_LE(c.length, text.size() - c.offset);
    EXPECT_EQ(c.text, span(text, c.offset, c.length));
    ASSERT_GE(c.sides.size(), 2u);
    bool any_expression = false;
    for (const auto& side : c.sides) {
        EXPECT_GE(side.offset, c.offset);
        EXPECT_LE(side.offset + side.length, c.offset + c.length);
        EXPECT_EQ(side.text, span(text, side.offset, side.length));
        ASSERT_FALSE(side.factors.empty());
        EXPECT_EQ(side.ops.size(), side.factors.size() - 1);
        any_expression = any_expression || side.is_expression();
    }
    EXPECT_TRUE(any_expression);
    EXPECT_EQ(c.sides.front().offset, c.offset);
    EXPECT_EQ(c.sides.back().offset + c.sides.back().length, c.offset + c.length);
    EXPECT_FALSE(c.expression.empty());
    EXPECT_FALSE(c.computed_display.empty());
    if (!c.holds) {
        EXPECT_LT(c.wrong_side, c.sides.size());
    }
}

// --- The seed records -------------------------------------------------------------

TEST(Claims, SeedChainWithTwoEqualsHolds) {
    const std::string text =
        "10 full-attention layers x 2 kv heads x 256 head_dim x 2 (K+V) x 1 byte (fp8) = "
        "10 x 2 x 256 x 2 = 10,240 B/token";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    const Claim& c = claims[0];
    expect_well_formed(text, c);
    EXPECT_TRUE(c.holds);
    EXPECT_EQ(c.kind, Claim::Kind::equation);
    EXPECT_EQ(c.offset, 0u);
    EXPECT_EQ(c.text, text);
    ASSERT_EQ(c.sides.size(), 3u);
    EXPECT_EQ(c.sides[0].factors.size(), 5u);
    EXPECT_EQ(c.sides[0].ops, (std::vector<char>{'*', '*', '*', '*'}));
    EXPECT_EQ(c.sides[1].text, "10 x 2 x 256 x 2");
    EXPECT_EQ(c.sides[2].text, "10,240 B/token");
    EXPECT_EQ(c.sides[2].unit, "B/token");
    EXPECT_EQ(c.sides[2].value, Rational(10240));
    EXPECT_EQ(c.expression, "10 x 2 x 256 x 2 x 1");
    EXPECT_EQ(c.computed_display, "10,240");
}

TEST(Claims, SeedStatementWithoutExpressionIsNoClaim) {
    EXPECT_TRUE(find_claims("If all 40 layers cached like a normal GQA stack, bf16 would be 81,920 B/token").empty());
}

TEST(Claims, SeedWrongProductWithParenthetical) {
    const std::string text = "16 x 4 x 256 x 2 (K+V) x 2 bytes = 16,384 B/token";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    const Claim& c = claims[0];
    expect_well_formed(text, c);
    EXPECT_FALSE(c.holds);
    EXPECT_EQ(c.wrong_side, 1u);
    EXPECT_EQ(c.sides[1].text, "16,384 B/token");
    EXPECT_EQ(c.sides[0].value, Rational(65536));
    EXPECT_EQ(c.computed_display, "65,536");
    EXPECT_EQ(c.expression, "16 x 4 x 256 x 2 x 2");
}

// --- Percentages ----------------------------------------------------------------------

/// A quotient stated as a percentage is judged at the percentage's digits: 0.94 / 0.96 is
/// 0.97916..., 97.9% at one decimal.
TEST(Claims, APercentageResultIsJudgedAtItsDigits) {
    const std::string right = "a recovery of 0.94 / 0.96 = 97.9% of the baseline";
    auto claims = find_claims(right);
    ASSERT_EQ(claims.size(), 1u);
    expect_well_formed(right, claims[0]);
    EXPECT_TRUE(claims[0].holds);
    EXPECT_EQ(claims[0].sides[1].unit, "%");
    EXPECT_EQ(claims[0].sides[1].value, Rational(979, 1000));

    const std::string wrong = "a recovery of 0.94 / 0.96 = 96.9% of the baseline";
    claims = find_claims(wrong);
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_FALSE(claims[0].holds);
    EXPECT_EQ(claims[0].computed_display, "97.9%");

    // The quotient itself with a percent sign is not the percentage: 0.98% is wrong.
    claims = find_claims("0.94 / 0.96 = 0.98%");
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_FALSE(claims[0].holds);
}

/// A percentage is only a result: it starts no claim and is no factor, and "50%ile" stays a word.
TEST(Claims, APercentageIsNeverAFactor) {
    EXPECT_TRUE(find_claims("50% x 4 = 2").empty());
    EXPECT_TRUE(find_claims("97.9% = 0.979").empty());
    EXPECT_TRUE(find_claims("2 x 50%ile = 1").empty());
}

TEST(Claims, SeedWrongEquationAndRightRatioInOneSentence) {
    const std::string text =
        "If all 64 layers cached GQA at these heads: 64 x 4 x 256 x 2 x 2 = 65,536 B/token, a "
        "4.0x reduction (65536/16384).";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 2u);

    const Claim& eq = claims[0];
    expect_well_formed(text, eq);
    EXPECT_EQ(eq.kind, Claim::Kind::equation);
    EXPECT_EQ(eq.offset, text.find(": 64") + 2);  // the second "64", not "all 64 layers"
    EXPECT_EQ(eq.text, "64 x 4 x 256 x 2 x 2 = 65,536 B/token");
    EXPECT_FALSE(eq.holds);
    EXPECT_EQ(eq.wrong_side, 1u);
    EXPECT_EQ(eq.computed_display, "262,144");
    EXPECT_EQ(eq.expression, "64 x 4 x 256 x 2 x 2");

    const Claim& ratio = claims[1];
    expect_well_formed(text, ratio);
    EXPECT_EQ(ratio.kind, Claim::Kind::ratio);
    EXPECT_EQ(span(text, ratio.offset, 4), "4.0x");
    EXPECT_TRUE(ratio.holds);
    ASSERT_EQ(ratio.sides.size(), 2u);
    EXPECT_EQ(ratio.sides[0].unit, "x");
    EXPECT_EQ(ratio.sides[0].decimals, 1);
    EXPECT_EQ(ratio.sides[1].text, "65536/16384");
    EXPECT_EQ(ratio.sides[1].ops, (std::vector<char>{'/'}));
    EXPECT_EQ(ratio.expression, "65536 / 16384");
    EXPECT_EQ(ratio.computed_display, "4.0x");
}

TEST(Claims, SeedParenthesisedChainWithVerb) {
    const std::string text =
        "A full MHA at the same head_dim (64 x 24 query heads x 256 x 2 x 2) would be 393,216 "
        "B/token, 24.0x larger.";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    const Claim& c = claims[0];
    expect_well_formed(text, c);
    EXPECT_EQ(c.offset, text.find("64 x 24"));
    EXPECT_EQ(text[c.offset], '6');
    EXPECT_FALSE(c.holds);
    EXPECT_EQ(c.sides[1].text, "393,216 B/token");
    EXPECT_EQ(c.computed_display, "1,572,864");
    EXPECT_EQ(c.expression, "64 x 24 x 256 x 2 x 2");
}

TEST(Claims, SeedGiBResultHolds) {
    const std::string text = "WHY 64K FITS AND 128K IS A DASH: 65,536 x 16,384 = 1.00 GiB of growing KV.";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    const Claim& c = claims[0];
    expect_well_formed(text, c);
    EXPECT_EQ(c.offset, text.find("65,536"));
    EXPECT_EQ(c.text, "65,536 x 16,384 = 1.00 GiB");
    EXPECT_TRUE(c.holds);
    EXPECT_EQ(c.sides[1].unit, "GiB");
    EXPECT_EQ(c.sides[1].decimals, 2);
    EXPECT_EQ(c.sides[1].value, Rational(1073741824));
    EXPECT_EQ(c.computed_display, "1.00 GiB");
    EXPECT_EQ(c.expression, "65536 x 16384");
}

// Block text wraps where it likes: a result at the end of one line takes its unit from the
// first word of the next, but never across a blank line.
TEST(Claims, AResultWrappedBeforeItsUnitTakesTheUnitFromTheNextLine) {
    const std::string text = "At 64k the cache takes 65,536 B/token x 65,536 tokens = 4\nGiB, as the table says.";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    const Claim& c = claims[0];
    expect_well_formed(text, c);
    EXPECT_TRUE(c.holds) << c.computed_display;
    EXPECT_EQ(c.sides.back().unit, "GiB");
    EXPECT_EQ(c.sides.back().text, "4\nGiB");

    const std::string apart = "The cache takes 65,536 B/token x 65,536 tokens = 4\n\nGiB is a unit.";
    auto across_a_blank_line = find_claims(apart);
    ASSERT_EQ(across_a_blank_line.size(), 1u);
    EXPECT_EQ(across_a_blank_line[0].sides.back().unit, "");
}

TEST(Claims, GiBComparedAtStatedDecimals) {
    auto right = find_claims("65,536 x 65,536 = 4.00 GiB");
    ASSERT_EQ(right.size(), 1u);
    EXPECT_TRUE(right[0].holds);
    EXPECT_EQ(right[0].computed_display, "4.00 GiB");

    auto wrong = find_claims("65,536 x 65,536 = 4.01 GiB");
    ASSERT_EQ(wrong.size(), 1u);
    EXPECT_FALSE(wrong[0].holds);
    EXPECT_EQ(wrong[0].wrong_side, 1u);
    EXPECT_EQ(wrong[0].computed_display, "4.00 GiB");

    auto quarter = find_claims("65,536 x 16,384 = 4.00 GiB");
    ASSERT_EQ(quarter.size(), 1u);
    EXPECT_FALSE(quarter[0].holds);
    EXPECT_EQ(quarter[0].computed_display, "1.00 GiB");
}

TEST(Claims, OffsetOnThirdLine) {
    const std::string text =
        "Throughput: 33.5 t/s at 4k\n"
        "Model: Qwen3.5-27B on an RTX 3090 24 GB\n"
        "Per layer: 2 x 512 = 1 KiB, done\n";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    const Claim& c = claims[0];
    expect_well_formed(text, c);
    const std::size_t third_line = text.find('\n', text.find('\n') + 1) + 1;
    EXPECT_EQ(c.offset, third_line + std::string("Per layer: ").size());
    EXPECT_EQ(span(text, c.offset, 7), "2 x 512");
    EXPECT_EQ(c.text, "2 x 512 = 1 KiB");
    EXPECT_TRUE(c.holds);
    EXPECT_EQ(c.computed_display, "1 KiB");
}

// --- Things that are not claims ---------------------------------------------------

TEST(Claims, NonClaimsProduceNothing) {
    const char* const texts[] = {
        "33.5 t/s at 4k",
        "Qwen3.5-35B-A3B",
        "Qwen3.5-27B",
        "RTX 3090 24 GB",
        "1,104.2 at 4k",
        "0-based indices 3,7,...,63",
        "full_attention_interval 4",
        "tables dated March 2026",
        "a 14% drop",
        "34/32 bytes per element",
        "16 x 4",
        "B/token",
        "t/s",
        "2026-04-22",
        "(K+V)",
        "x 2",
        "256k and 1M",
        "4k, 16k",
        "24.0x larger.",
        "",
        "=",
        "x = 2",
    };
    for (const char* text : texts) {
        SCOPED_TRACE(text);
        EXPECT_EQ(find_claims(text).size(), 0u);
    }
}

TEST(Claims, ApproximationsAreNotClaims) {
    for (const char* text : {"2 x 3 ~= 7", "2 x 3 \xE2\x89\x88 7", "2 x 3 is about 7", "2 x 3 != 7", "2 x 3 <= 7"}) {
        SCOPED_TRACE(text);
        EXPECT_EQ(find_claims(text).size(), 0u);
    }
}

TEST(Claims, OperandOfLargerExpressionIsNotAClaim) {
    // Recomputing "2 x 3" alone would wrongly flag these.
    for (const char* text : {"n x 2 x 3 = 12", "n x (3 x 4) = 24", "2 x 3 = 2 x n", "n^10 x 2 = 2048", "12:30 x 2 = 5",
                             "1,5 x 2 = 3", "n + 2 x 3 = 7"}) {
        SCOPED_TRACE(text);
        EXPECT_EQ(find_claims(text).size(), 0u);
    }
}

TEST(Claims, GluedXIsARatioSuffixNotAnOperator) {
    EXPECT_EQ(find_claims("2x2 = 4").size(), 0u);
    EXPECT_EQ(find_claims("4x 4 = 16").size(), 0u);
    EXPECT_EQ(find_claims("a 2x speedup (see 3/4 of runs)").size(), 0u);
    // "is" does not link to a ratio or "N times": that compares something else.
    EXPECT_EQ(find_claims("the 2 x 3 grid is 4x faster").size(), 0u);
    EXPECT_EQ(find_claims("the 2 x 3 grid is 4 times faster").size(), 0u);
}

// --- Ratios and quotients ---------------------------------------------------------

TEST(Claims, WrongRatio) {
    const std::string text = "a 3.0x reduction (65536/16384)";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    const Claim& c = claims[0];
    expect_well_formed(text, c);
    EXPECT_EQ(c.kind, Claim::Kind::ratio);
    EXPECT_EQ(c.offset, 2u);
    EXPECT_FALSE(c.holds);
    EXPECT_EQ(c.wrong_side, 0u);
    EXPECT_EQ(c.computed_display, "4.0x");
}

TEST(Claims, RatioWithMultiplicationSignAndIntegerRatio) {
    auto sign = find_claims("a 2.0\xC3\x97 reduction (8/4)");
    ASSERT_EQ(sign.size(), 1u);
    EXPECT_TRUE(sign[0].holds);
    EXPECT_EQ(sign[0].computed_display, "2.0x");

    // An integer ratio is compared rounded to 0 decimals: 10/3 = 3.33 -> 3.
    auto rounded = find_claims("about 3x smaller (10/3)");
    ASSERT_EQ(rounded.size(), 1u);
    EXPECT_TRUE(rounded[0].holds);
    EXPECT_EQ(rounded[0].computed_display, "3x");

    auto larger = find_claims("24.0x larger (1572864/65536)");
    ASSERT_EQ(larger.size(), 1u);
    EXPECT_TRUE(larger[0].holds);
}

TEST(Claims, QuotientEquation) {
    auto right = find_claims("262144/65536 = 4");
    ASSERT_EQ(right.size(), 1u);
    EXPECT_TRUE(right[0].holds);
    EXPECT_EQ(right[0].computed_display, "4");
    EXPECT_EQ(right[0].sides[0].factors, (std::vector<Rational>{Rational(262144), Rational(65536)}));
    EXPECT_EQ(right[0].sides[0].ops, (std::vector<char>{'/'}));
    EXPECT_EQ(right[0].sides[1].factors, (std::vector<Rational>{Rational(4)}));

    auto wrong = find_claims("262144/65536 = 5");
    ASSERT_EQ(wrong.size(), 1u);
    EXPECT_FALSE(wrong[0].holds);
    EXPECT_EQ(wrong[0].computed_display, "4");

    auto with_x = find_claims("so 262144 / 65536 = 4.0x overall");
    ASSERT_EQ(with_x.size(), 1u);
    EXPECT_TRUE(with_x[0].holds);
    EXPECT_EQ(with_x[0].computed_display, "4.0x");
    EXPECT_EQ(with_x[0].expression, "262144 / 65536");
}

TEST(Claims, ParenthesisedEquationHolds) {
    const std::string text = "the cache shrinks (262144/65536 = 4.0x).";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_EQ(claims[0].text, "262144/65536 = 4.0x");
    EXPECT_TRUE(claims[0].holds);
}

// --- Verbs, operators, several sides ----------------------------------------------

TEST(Claims, VerbForms) {
    auto comes = find_claims("2 x 3 comes to 6 bytes");
    ASSERT_EQ(comes.size(), 1u);
    EXPECT_TRUE(comes[0].holds);
    EXPECT_EQ(comes[0].sides[1].unit, "B");

    auto gives = find_claims("8 layers x 512 gives 4,000");
    ASSERT_EQ(gives.size(), 1u);
    EXPECT_FALSE(gives[0].holds);
    EXPECT_EQ(gives[0].computed_display, "4,096");

    auto is = find_claims("so 64 x 4 is 256.");
    ASSERT_EQ(is.size(), 1u);
    EXPECT_TRUE(is[0].holds);
    EXPECT_EQ(is[0].text, "64 x 4 is 256");

    auto will = find_claims("40 layers x 1,024 B will be 40 KiB");
    ASSERT_EQ(will.size(), 1u);
    EXPECT_TRUE(will[0].holds);
    EXPECT_EQ(will[0].computed_display, "40 KiB");
}

TEST(Claims, ArrowsAndOtherOperators) {
    for (const char* text : {"16 \xC3\x97 4 = 64",
                             "16\xC3\x97"
                             "4 = 64",
                             "16 * 4 = 64", "16 x 4 -> 64", "16 x 4 \xE2\x86\x92 64"}) {
        SCOPED_TRACE(text);
        auto claims = find_claims(text);
        ASSERT_EQ(claims.size(), 1u);
        EXPECT_TRUE(claims[0].holds);
        EXPECT_EQ(claims[0].offset, 0u);
        EXPECT_EQ(claims[0].expression, "16 x 4");
    }
}

TEST(Claims, MarkdownStarsAreNotOperators) {
    const std::string text = "* **2 x 3 = 6** bytes";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_EQ(claims[0].offset, text.find('2'));
    EXPECT_EQ(claims[0].text, "2 x 3 = 6");
    EXPECT_TRUE(claims[0].holds);
}

TEST(Claims, WordsBetweenFactorsAreLimited) {
    // Up to five words may separate a number from the next operator; more end the chain.
    auto five = find_claims("2 kv heads per full layer x 3 = 6");
    ASSERT_EQ(five.size(), 1u);
    EXPECT_TRUE(five[0].holds);
    EXPECT_EQ(five[0].expression, "2 x 3");
    EXPECT_EQ(find_claims("2 kv heads per full attention layer x 3 = 6").size(), 0u);
    // Numbers inside words are not factors: only 256 and 2 are.
    auto words = find_claims("256 head_dim (bf16) x 2 (K+V) = 512");
    ASSERT_EQ(words.size(), 1u);
    EXPECT_EQ(words[0].expression, "256 x 2");
}

TEST(Claims, MiddleSideThatDisagrees) {
    auto claims = find_claims("2 x 3 = 2 x 4 = 6");
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_FALSE(claims[0].holds);
    EXPECT_EQ(claims[0].wrong_side, 1u);
    EXPECT_EQ(claims[0].computed_display, "6");
}

TEST(Claims, StatedNumberFirst) {
    auto claims = find_claims("65,536 = 64 x 1,024");
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_TRUE(claims[0].holds);
    EXPECT_EQ(claims[0].expression, "64 x 1024");

    auto wrong = find_claims("65,536 = 64 x 512");
    ASSERT_EQ(wrong.size(), 1u);
    EXPECT_FALSE(wrong[0].holds);
    EXPECT_EQ(wrong[0].wrong_side, 0u);
    EXPECT_EQ(wrong[0].computed_display, "32,768");
}

TEST(Claims, SeveralClaimsInOrder) {
    const std::string text = "2 x 2 = 4, 3 x 3 = 9 and 4 x 4 is 17.";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 3u);
    EXPECT_EQ(claims[0].offset, 0u);
    EXPECT_EQ(claims[1].offset, text.find("3 x 3"));
    EXPECT_EQ(claims[2].offset, text.find("4 x 4"));
    EXPECT_TRUE(claims[0].holds);
    EXPECT_TRUE(claims[1].holds);
    EXPECT_FALSE(claims[2].holds);
    EXPECT_EQ(claims[2].computed_display, "16");
}

TEST(Claims, GroupingParenthesisAtTheStart) {
    const std::string text = "(10 x 2) x 256 = 5,120 B";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_EQ(claims[0].offset, 1u);
    EXPECT_TRUE(claims[0].holds);
    EXPECT_EQ(claims[0].expression, "10 x 2 x 256");
}

// --- Numbers, units and rounding --------------------------------------------------

TEST(Claims, ThousandsSeparatorsAndDecimals) {
    auto big = find_claims("1,572,864 / 1,536 = 1,024");
    ASSERT_EQ(big.size(), 1u);
    EXPECT_TRUE(big[0].holds);
    EXPECT_EQ(big[0].expression, "1572864 / 1536");

    auto half = find_claims("2049 / 2 = 1,024.5");
    ASSERT_EQ(half.size(), 1u);
    EXPECT_TRUE(half[0].holds);

    auto factor = find_claims("1.0625 x 16 = 17 bytes");
    ASSERT_EQ(factor.size(), 1u);
    EXPECT_TRUE(factor[0].holds);
    EXPECT_EQ(factor[0].expression, "1.0625 x 16");
}

TEST(Claims, DecimalResultRoundsHalfAwayFromZero) {
    auto exact = find_claims("17/16 = 1.0625");
    ASSERT_EQ(exact.size(), 1u);
    EXPECT_TRUE(exact[0].holds);

    auto rounded = find_claims("34/32 = 1.06");
    ASSERT_EQ(rounded.size(), 1u);
    EXPECT_TRUE(rounded[0].holds);

    auto wrong = find_claims("34/32 = 1.07");
    ASSERT_EQ(wrong.size(), 1u);
    EXPECT_FALSE(wrong[0].holds);
    EXPECT_EQ(wrong[0].computed_display, "1.06");

    // 0.995 KB is the lower edge of "1.00 KB"; 1.005 KB rounds to 1.01 but truncates to
    // 1.00, which an author may also write; 1.01 KB is past both.
    auto low_edge = find_claims("995 x 1 = 1.00 KB");
    ASSERT_EQ(low_edge.size(), 1u);
    EXPECT_TRUE(low_edge[0].holds);

    auto below = find_claims("994 x 1 = 1.00 KB");
    ASSERT_EQ(below.size(), 1u);
    EXPECT_FALSE(below[0].holds);
    EXPECT_EQ(below[0].computed_display, "0.99 KB");

    auto truncated = find_claims("1005 x 1 = 1.00 KB");
    ASSERT_EQ(truncated.size(), 1u);
    EXPECT_TRUE(truncated[0].holds);

    auto high_edge = find_claims("1010 x 1 = 1.00 KB");
    ASSERT_EQ(high_edge.size(), 1u);
    EXPECT_FALSE(high_edge[0].holds);
    EXPECT_EQ(high_edge[0].computed_display, "1.01 KB");
}

TEST(Claims, IntegerResultExactForBytesRoundedForScaledUnits) {
    auto bytes = find_claims("10/4 = 2");
    ASSERT_EQ(bytes.size(), 1u);
    EXPECT_FALSE(bytes[0].holds);
    EXPECT_EQ(bytes[0].computed_display, "2.5");

    auto kib = find_claims("5000 x 1 = 5 KiB");  // 4.88 KiB rounds to 5
    ASSERT_EQ(kib.size(), 1u);
    EXPECT_TRUE(kib[0].holds);

    auto kib_truncated = find_claims("5000 x 1 = 4 KiB");  // 4.88 KiB, written truncated
    ASSERT_EQ(kib_truncated.size(), 1u);
    EXPECT_TRUE(kib_truncated[0].holds);

    auto kib_wrong = find_claims("5000 x 1 = 3 KiB");
    ASSERT_EQ(kib_wrong.size(), 1u);
    EXPECT_FALSE(kib_wrong[0].holds);
    EXPECT_EQ(kib_wrong[0].computed_display, "5 KiB");

    auto kb = find_claims("4000 x 2 = 8 KB");
    ASSERT_EQ(kb.size(), 1u);
    EXPECT_TRUE(kb[0].holds);
    EXPECT_EQ(kb[0].sides[1].value, Rational(8000));
}

TEST(Claims, UnitSpellings) {
    auto glued = find_claims("2 x 2 = 4B/token");
    ASSERT_EQ(glued.size(), 1u);
    EXPECT_TRUE(glued[0].holds);
    EXPECT_EQ(glued[0].sides[1].unit, "B/token");
    EXPECT_EQ(glued[0].sides[1].text, "4B/token");

    auto per = find_claims("2 x 2 bytes per token = 4 bytes per token");
    ASSERT_EQ(per.size(), 1u);
    EXPECT_TRUE(per[0].holds);
    EXPECT_EQ(per[0].sides[1].unit, "B/token");
    EXPECT_EQ(per[0].sides[1].text, "4 bytes per token");

    auto gib_glued = find_claims("1,024 x 1,048,576 = 1GiB");
    ASSERT_EQ(gib_glued.size(), 1u);
    EXPECT_TRUE(gib_glued[0].holds);
    EXPECT_EQ(gib_glued[0].sides[1].unit, "GiB");
}

// --- Overflow and robustness ------------------------------------------------------

TEST(Claims, OverflowIsReportedNotWrapped) {
    // 2^64 wraps to 0 in 64 bits; it must not be accepted as "0 B".
    const std::string text = "4,294,967,296 x 4,294,967,296 = 0 B";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    expect_well_formed(text, claims[0]);
    EXPECT_FALSE(claims[0].holds);
    EXPECT_EQ(claims[0].computed_display, "overflow");

    auto literal = find_claims("123456789012345678901234567890 x 2 = 4");
    ASSERT_EQ(literal.size(), 1u);
    EXPECT_FALSE(literal[0].holds);
    EXPECT_EQ(literal[0].computed_display, "overflow");

    // The product fits, but 2^22 TiB at 18 decimals does not: still "overflow".
    auto rounding = find_claims("4,611,686,018,427,387,904 x 1 = 1.000000000000000000 TiB");
    ASSERT_EQ(rounding.size(), 1u);
    EXPECT_FALSE(rounding[0].holds);
    EXPECT_EQ(rounding[0].computed_display, "overflow");
}

TEST(Claims, DivisionByZeroIsReported) {
    auto claims = find_claims("1/0 = 5");
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_FALSE(claims[0].holds);
    EXPECT_EQ(claims[0].computed_display, "division by zero");
}

TEST(Claims, InvalidUtf8AroundAClaim) {
    const std::string text = "\xff\xfe 2 x 3 = 6 \xc3";
    auto claims = find_claims(text);
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_EQ(claims[0].offset, 3u);
    EXPECT_TRUE(claims[0].holds);
}

TEST(Claims, LongDegenerateInputs) {
    auto repeat = [](std::string_view unit, std::size_t total) {
        std::string out;
        while (out.size() < total) out += unit;
        return out;
    };
    EXPECT_TRUE(find_claims(repeat("x ", 1 << 20)).empty());
    EXPECT_TRUE(find_claims(repeat("1 x ", 1 << 16)).empty());
    EXPECT_TRUE(find_claims(repeat("1 = ", 1 << 16)).empty());
    EXPECT_TRUE(find_claims(repeat("(", 1 << 16)).empty());
    EXPECT_TRUE(find_claims(repeat("9", 1 << 16)).empty());
    EXPECT_TRUE(find_claims(repeat("1,000,", 1 << 16)).empty());

    const std::string many = repeat("2 x 3 = 6. ", 1 << 14);
    auto claims = find_claims(many);
    EXPECT_EQ(claims.size(), many.size() / 11);
    for (const auto& c : claims) {
        ASSERT_TRUE(c.holds);
        ASSERT_EQ(c.text, "2 x 3 = 6");
    }
}

TEST(Claims, RandomInputsNeverCrash) {
    const std::vector<std::string> pieces = {
        "1",
        "2",
        "16",
        "65,536",
        "1.00",
        "4.0x",
        "999999999999999999999",
        " x ",
        " ",
        "=",
        " = ",
        ",",
        ".",
        "/",
        "(",
        ")",
        "*",
        "a",
        "is",
        "would be",
        "GiB",
        "B/token",
        "bytes",
        "\xC3\x97",
        "\xE2\x86\x92",
        "-",
        "\n",
        "\xff",
        "%",
        "^",
        "0",
        "x",
    };
    std::mt19937 rng(20260422);
    std::size_t total_claims = 0;
    for (int round = 0; round < 4000; ++round) {
        std::string text;
        const std::size_t count = rng() % 60;
        for (std::size_t k = 0; k < count; ++k) {
            if (round % 4 == 3) {
                text += static_cast<char>(rng() % 256);  // raw bytes
            } else {
                text += pieces[rng() % pieces.size()];
            }
        }
        std::vector<Claim> claims;
        ASSERT_NO_THROW(claims = find_claims(text)) << text;
        std::size_t previous_end = 0;
        for (const auto& c : claims) {
            SCOPED_TRACE(text);
            expect_well_formed(text, c);
            EXPECT_GE(c.offset, previous_end);  // in order, never overlapping
            previous_end = c.offset + c.length;
        }
        total_claims += claims.size();
    }
    EXPECT_GT(total_claims, 0u);  // the generator does produce claims
}

}  // namespace

// --- Units on operands, ambiguous units, boundaries and the forms authors use --------
// The passages below are taken from public GitHub threads about KV-cache sizes; the
// corpus test (tests/prose-corpus/) holds them with their addresses.

using Verdict = kvcat::Claim::Verdict;

Claim only_claim(std::string_view text) {
    auto claims = find_claims(text);
    EXPECT_EQ(claims.size(), 1u) << text;
    if (claims.empty()) return Claim{};
    expect_well_formed(text, claims[0]);
    return claims[0];
}

TEST(Claims, UnitsOnOperandsAreCarried) {
    for (const char* text : {"320 KiB x 32,768 = 10 GiB", "960 blocks x 36 KB = 34.6 MB",
                             "8 \xC3\x97 256 \xC3\x97 4MB = 8,192 MB", "3500 token \xC3\x97 128 KiB = 437.5 MiB"}) {
        SCOPED_TRACE(text);
        Claim c = only_claim(text);
        EXPECT_EQ(c.verdict, Verdict::holds);
    }
    Claim wrong = only_claim("320 KiB x 32,768 = 12 GiB");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.expression, "320 KiB x 32768");
    EXPECT_EQ(wrong.computed_display, "10 GiB");  // never the "0 GiB" of a dropped unit
}

TEST(Claims, BillionsBeforeBytesPerParameter) {
    Claim c = only_claim("13B \xC3\x97 2 bytes (bf16) = 26 GB");
    EXPECT_EQ(c.verdict, Verdict::holds);
    Claim wrong = only_claim("13B \xC3\x97 2 bytes (bf16) = 20 GB");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.computed_display, "26 GB");
    // Alone, a glued B is bytes.
    EXPECT_EQ(only_claim("2 x 2 = 4B").verdict, Verdict::holds);
}

TEST(Claims, BitsAreEighthsOfAByte) {
    EXPECT_EQ(only_claim("32 x 8 x 128 x 2 x 8 bits = 64 KiB").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("32 x 8 x 128 x 2 x 8 bits = 512 KiB").verdict, Verdict::wrong);
}

TEST(Claims, DecimalUnitsHoldInEitherReadingBinaryOnlyIsANote) {
    Claim binary = only_claim("32 layers \xC3\x97 16,384 = 512 KB/token");
    EXPECT_EQ(binary.verdict, Verdict::binary_only);
    EXPECT_TRUE(binary.holds);
    EXPECT_EQ(binary.computed_display, "524 KB/token");
    EXPECT_NE(binary.why.find("KiB for KB"), std::string::npos) << binary.why;
    EXPECT_EQ(only_claim("2 x 65,536 bytes = 131,072 bytes = 128 KB").verdict, Verdict::binary_only);
    EXPECT_EQ(only_claim("32 x 16,384 = 524 KB").verdict, Verdict::holds);
    // Neither reading: wrong, shown in the reading nearer the stated figure.
    Claim wrong = only_claim("32 layers x 16,384 = 600 KB/token");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.computed_display, "524 KB/token");
}

TEST(Claims, UnsureUnitsAreLeftUnjudged) {
    Claim tokens = only_claim("8,000 tokens \xC3\x97 1 user \xE2\x86\x92 1 GB");
    EXPECT_EQ(tokens.verdict, Verdict::unjudged);
    EXPECT_TRUE(tokens.holds);
    EXPECT_FALSE(tokens.why.empty());
    // A bare result for KiB operands: which unit is meant is not written.
    EXPECT_EQ(only_claim("320 KiB x 4 = 1280").verdict, Verdict::unjudged);
    // Bytes times bytes is no size.
    EXPECT_EQ(only_claim("2 bytes x 4 KiB = 8 KiB").verdict, Verdict::unjudged);
    // A thousandfold gap means a unit was implied, not that the sum is wrong.
    Claim implied = only_claim("64 x 8 x 128 x 2 = 32 GB");
    EXPECT_EQ(implied.verdict, Verdict::unjudged);
    EXPECT_NE(implied.why.find("131,072"), std::string::npos) << implied.why;
}

TEST(Claims, AWrongFigureIsNeverShownAsZero) {
    // 30 MiB against "1.0 GiB" would read "0.0 GiB": it is shown in the operand's unit.
    Claim c = only_claim("30 MiB x 1 = 1.0 GiB");
    EXPECT_EQ(c.verdict, Verdict::wrong);
    EXPECT_EQ(c.computed_display, "30 MiB");
    EXPECT_EQ(c.expression, "30 MiB x 1");
    // A figure that reads at the stated digits keeps the stated unit.
    Claim gib = only_claim("300 MiB x 2 = 1.0 GiB");
    EXPECT_EQ(gib.computed_display, "0.6 GiB");
    // A bare chain already in the result's unit.
    EXPECT_EQ(only_claim("2 x 4.99 = 9.98 GiB").verdict, Verdict::holds);
    Claim wrong = only_claim("2 x 4.99 = 10.5 GiB");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.computed_display, "10.0 GiB");
    // Far below the stated unit (bytes, KiB, bits against GB or TB): the operand's unit, not 0.
    Claim byte = only_claim("1 byte x 3 = 1.0 TB");
    EXPECT_EQ(byte.verdict, Verdict::wrong);
    EXPECT_EQ(byte.expression, "1 byte x 3");
    EXPECT_EQ(byte.computed_display, "3 bytes");
    Claim bytes = only_claim("4 bytes x 2 = 8 GB");
    EXPECT_EQ(bytes.verdict, Verdict::wrong);
    EXPECT_EQ(bytes.expression, "4 bytes x 2");
    EXPECT_EQ(bytes.computed_display, "8 bytes");
    Claim kib = only_claim("320 KiB x 2 = 1 TB");
    EXPECT_EQ(kib.computed_display, "640 KiB");
    Claim bits = only_claim("8 bits x 3 = 1 GB");
    EXPECT_EQ(bits.expression, "8 bits x 3");
    EXPECT_EQ(bits.computed_display, "24 bits");
}

TEST(Claims, ApproximateOperandsAreNeverErrors) {
    Claim before = only_claim(
        "8.3 GB (\xE2\x89\x88"
        "8 entries \xC3\x97 ~1.1k tokens \xC3\x97 128 KB)");
    EXPECT_EQ(before.verdict, Verdict::unjudged);
    EXPECT_EQ(before.expression, "8 x 1.1k x 128 KB");
    EXPECT_EQ(only_claim("~4,000 x 2 = 9,000").verdict, Verdict::unjudged);
    // Right ones still hold.
    EXPECT_EQ(only_claim("1 GiB (1,024 x 1,048,576 bytes)").verdict, Verdict::holds);
}

TEST(Claims, ResultEndsAtCjkFullStopAndAtAnOperatorOpeningTheNextLine) {
    const std::string cjk =
        "2 x 32 x 8 x 128 x 2 = 131,072 bytes = 128 KiB\xE3\x80\x82"
        "3500 token \xC3\x97 128 KiB = 437.5 MiB";
    auto claims = find_claims(cjk);
    ASSERT_EQ(claims.size(), 2u);
    EXPECT_EQ(claims[0].verdict, Verdict::holds);
    EXPECT_EQ(claims[1].verdict, Verdict::holds);

    // The next line carries the chain on from the result, which ends before its operator.
    const std::string two_lines = "2 x 8 x 128 x 2 = 4096 bytes\nx 80 layers = 320 KiB";
    Claim lines = only_claim(two_lines);
    EXPECT_EQ(lines.text, two_lines);
    ASSERT_EQ(lines.sides.size(), 4u);
    EXPECT_EQ(lines.sides[1].text, "4096 bytes");
    EXPECT_EQ(lines.sides[2].text, "x 80");
    EXPECT_EQ(lines.sides[2].carried, '*');
    EXPECT_EQ(lines.verdict, Verdict::holds);
    EXPECT_EQ(lines.expression, "2 x 8 x 128 x 2 x 80");
    EXPECT_EQ(lines.computed_display, "320 KiB");
}

TEST(Claims, ALineOpeningWithAnOperatorCarriesTheChainOnFromTheResult) {
    Claim wrong = only_claim("8 x 128 x 2 = 2,048 bytes\nx 80 layers = 163,841 bytes");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.wrong_side, 3u);
    EXPECT_EQ(wrong.expression, "2048 x 80");
    EXPECT_EQ(wrong.computed_display, "163,840");
    EXPECT_EQ(only_claim("8 x 128 x 2 = 2,048 bytes\nx 80 layers = 163,840 bytes").verdict, Verdict::holds);
    // Comment markers open such lines in code blocks; a division carries on too.
    EXPECT_EQ(only_claim("# 8 x 128 x 2 = 2048\n# / 4 = 512").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("# 8 x 128 x 2 = 2048\n# / 4 = 510").computed_display, "512");
    // Not across a blank line, and not without a result of its own.
    Claim blank = only_claim("8 x 128 x 2 = 2,048 bytes\n\nx 80 layers = 163,841 bytes");
    EXPECT_EQ(blank.text, "8 x 128 x 2 = 2,048 bytes");
    EXPECT_TRUE(blank.holds);
    Claim open = only_claim("8 x 128 x 2 = 2,048 bytes\nx 80 layers, for each token");
    EXPECT_EQ(open.text, "8 x 128 x 2 = 2,048 bytes");
    EXPECT_TRUE(open.holds);
}

TEST(Claims, ABareChainAUnitStepFromItsFigureIsLeftUnjudged) {
    // 960 KB x 36 is 34.56 MB: the operands' KB is implied by the source, not written.
    Claim kb = only_claim("960 x 36 = 34.6 MB");
    EXPECT_EQ(kb.verdict, Verdict::unjudged);
    EXPECT_TRUE(kb.holds);
    EXPECT_NE(kb.why.find("34,560"), std::string::npos) << kb.why;
    EXPECT_NE(kb.why.find("1,000"), std::string::npos) << kb.why;
    Claim near = only_claim("1000 x 36 = 36.1 MB");
    EXPECT_EQ(near.verdict, Verdict::unjudged);
    EXPECT_NE(near.why.find("implied"), std::string::npos) << near.why;
    EXPECT_EQ(only_claim("1024 x 1024 = 1.0 GB").verdict, Verdict::unjudged);
    // Further off than the last stated digit, the chain is judged in the result's unit.
    Claim off = only_claim("960 x 36 = 35,000 MB");
    EXPECT_EQ(off.verdict, Verdict::wrong);
    EXPECT_EQ(off.computed_display, "34,560 MB");
}

TEST(Claims, InlineMathIsReadLikeText) {
    Claim right = only_claim("The cache: $64 \\times 4096 = 262144$ bytes per token.");
    EXPECT_EQ(right.verdict, Verdict::holds);
    EXPECT_EQ(right.text, "64 \\times 4096 = 262144");
    Claim wrong = only_claim("The cache: $64 \\times 4096 = 262140$ bytes per token.");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.computed_display, "262,144");
    Claim display = only_claim("$$\n2 \\times 32 \\times 8 \\times 128 \\times 2 = 131{,}072\n$$");
    EXPECT_EQ(display.verdict, Verdict::holds);
    EXPECT_EQ(only_claim("$$2 \\cdot 3 = 7$$").computed_display, "6");
    // Prices are not math: no claim starts at "$3".
    EXPECT_TRUE(find_claims("It costs $3 x 4 = $12 a day").empty());
    EXPECT_TRUE(find_claims("from $3-$5 x 2 = 10").empty());
}

TEST(Claims, ContinuationLinesJoinTheChain) {
    Claim comment = only_claim("# 2 * 32 * 8 * 128 * 2\n# = 131072 bytes");
    EXPECT_EQ(comment.verdict, Verdict::holds);
    EXPECT_EQ(comment.expression, "2 x 32 x 8 x 128 x 2");
    Claim slashes = only_claim("2 x 32 x 8 x 128\n// x 2 bytes\n= 131,072");
    EXPECT_EQ(slashes.expression, "2 x 32 x 8 x 128 x 2");
    EXPECT_TRUE(slashes.holds);
    Claim wrong = only_claim("2 x 32 x 8 x 128\n  x 2\n  = 262,144 bytes");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.computed_display, "131,072");
}

TEST(Claims, ResultMarkersAndOperatorSpellings) {
    for (const char* text : {"2 x 8 x 128 x 2: 4,096 bytes", "2 x 8 x 128 x 2 \xE2\x86\x92 4 KiB",
                             "2 \\times 8 \\times 128 \\times 2 = 4096", "4,096 \xC3\xB7 2 = 2,048",
                             "4 \\cdot 1024 = 4096", "2 x 8 x 128 x 2 = **4,096**"}) {
        SCOPED_TRACE(text);
        EXPECT_EQ(only_claim(text).verdict, Verdict::holds);
    }
    EXPECT_EQ(only_claim("2 x 8 x 128 x 2: 8,192 bytes").verdict, Verdict::wrong);
}

// Forms met in the prose corpus (tests/prose-corpus/), where each passage has its address.
TEST(Claims, UnitsSpelledOutOrPerRequestAndSumsWrittenTight) {
    EXPECT_EQ(only_claim("65_536 bytes is 64 * 1024 is 64 kibibytes").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("248,832,000 bytes * 60 = 14.93 gigabytes").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("2 x 65,536 = 128 KiB/token/request").verdict, Verdict::holds);
    Claim kib = only_claim("128 * 2048 * 2 = 524,288 = 524kiB");
    EXPECT_EQ(kib.verdict, Verdict::wrong);
    EXPECT_EQ(kib.computed_display, "512 KiB");
    Claim tight = only_claim("(16*4+8) bytes = 132 bytes");
    EXPECT_EQ(tight.verdict, Verdict::wrong);
    EXPECT_EQ(tight.computed_display, "72");
    // Between letters a '+' joins a word, and a sign is no operand.
    EXPECT_TRUE(find_claims("K+V = 2 tensors").empty());
    EXPECT_TRUE(find_claims("a +3 = 3 offset").empty());
}

TEST(Claims, APowerIsShownAsWritten) {
    Claim c = only_claim("3 x 1024\xC2\xB2 = 4 MiB");
    EXPECT_EQ(c.verdict, Verdict::wrong);
    EXPECT_EQ(c.expression, "3 x 1024\xC2\xB2");
    EXPECT_EQ(c.computed_display, "3 MiB");
}

TEST(Claims, ExponentNotation) {
    EXPECT_EQ(only_claim("26 \xC3\x97 10^9 bytes = 26 GB").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("1e6 tokens x 2 bytes = 2 MB").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("1e6 x 4 = 4,000,000").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("1024 ** 3 = 1 GiB").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("1024\xC2\xB2 x 4 = 4 MiB").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("2^30 x 2 = 2 GiB").verdict, Verdict::holds);
    Claim wrong = only_claim("1024 ** 3 x 2 = 3 GiB");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.expression, "1024^3 x 2");
    EXPECT_EQ(wrong.computed_display, "2 GiB");
}

TEST(Claims, SumsAndGroups) {
    Claim sum = only_claim(
        "(16\xC3\x97"
        "4\xC3\x97"
        "256 + 5\xC3\x97"
        "8\xC3\x97"
        "128) \xC3\x97 2 = 43,008");
    EXPECT_EQ(sum.verdict, Verdict::holds);
    EXPECT_EQ(sum.expression, "(16 x 4 x 256 + 5 x 8 x 128) x 2");
    Claim wrong = only_claim("(16 x 4 x 256 + 5 x 8 x 128) x 2 = 40,000");
    EXPECT_EQ(wrong.computed_display, "43,008");
    EXPECT_EQ(only_claim("2 x (3 x 4) = 24").verdict, Verdict::holds);
    Claim ratio = only_claim("128 * (34/32) = 136");
    EXPECT_EQ(ratio.verdict, Verdict::holds);
    EXPECT_EQ(ratio.expression, "128 x (34 / 32)");
    EXPECT_EQ(only_claim("4096 + 4096 = 8192").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("2 bytes + 4 = 6").verdict, Verdict::unjudged);
}

TEST(Claims, SuffixedOperandsAndResults) {
    EXPECT_EQ(only_claim("77k tokens \xC3\x97 128 KiB = 9.4 GiB").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("32k x 128 KiB = 4 GiB").verdict, Verdict::holds);  // k as 1024
    EXPECT_EQ(only_claim("671M x 2 = 1.342B").verdict, Verdict::holds);
    EXPECT_EQ(only_claim("1024 x 1024 x 1000 = **1.05B**").verdict, Verdict::holds);
    Claim wrong = only_claim("671M x 2 = 1.5B");
    EXPECT_EQ(wrong.verdict, Verdict::wrong);
    EXPECT_EQ(wrong.computed_display, "1.3B");
    EXPECT_EQ(only_claim("64 \\times 4096 = 262{,}144").verdict, Verdict::holds);
}

// Slashes that list or label rather than divide: a benchmark log's "run 2/3:" and two lists
// paired item by item. Both come from records of the shipped catalog.
TEST(Claims, SlashesThatListOrLabelAreNoClaim) {
    EXPECT_TRUE(
        find_claims("the lines \"[bench] prefill-10k run 2/3: 9997 prompt tok, 14328.3 prefill tok/s\"").empty());
    EXPECT_TRUE(find_claims("run 3/3: 9627 prompt tok, 14232.0 prefill tok/s, ttft 676ms").empty());
    EXPECT_TRUE(find_claims("TTFT at 16k / 32k / 64k / 128k = 1.09 / 2.23 / 4.68 / 10.41 s").empty());
    // A quotient written out is still judged.
    auto claims = find_claims("the ratio is 262144 / 65536 = 4");
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_TRUE(claims[0].holds);
}
