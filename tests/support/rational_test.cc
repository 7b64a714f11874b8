#include "support/rational.h"

#include <cstdint>

#include <gtest/gtest.h>

namespace kvcat {
namespace {

TEST(Rational, KeepsLowestTerms) {
    Rational q8(34, 32);
    EXPECT_EQ(q8.num(), 17);
    EXPECT_EQ(q8.den(), 16);
    EXPECT_EQ(q8, Rational(17, 16));
    EXPECT_EQ(Rational(4, -8), Rational(-1, 2));
}

TEST(Rational, FloorAndCeilRoundTowardTheirInfinities) {
    // 17/16 of a byte a q8_0 element: one element takes 2 whole bytes, 16 take 17.
    EXPECT_EQ(Rational(17, 16).floor(), 1);
    EXPECT_EQ(Rational(17, 16).ceil(), 2);
    EXPECT_EQ(Rational(17).ceil(), 17);
    EXPECT_EQ(Rational(-3, 2).floor(), -2);
    EXPECT_EQ(Rational(-3, 2).ceil(), -1);
}

TEST(Rational, MultipliesExactly) {
    // 32 layers x 8 heads x 128 x 2 (K+V) x 34/32 bytes = 69,632 bytes for q8_0.
    Rational r = Rational(32) * Rational(8) * Rational(128) * Rational(2) * Rational(34, 32);
    EXPECT_TRUE(r.is_integer());
    EXPECT_EQ(r.num(), 69632);
}

TEST(Rational, OverflowThrowsInsteadOfWrapping) {
    Rational big(INT64_MAX / 2 + 1);
    EXPECT_THROW(big * Rational(2), OverflowError);
    EXPECT_THROW(Rational(INT64_MAX) + Rational(1), OverflowError);
    EXPECT_THROW(checked_mul(1LL << 62, 4), OverflowError);
    EXPECT_EQ(checked_mul(1LL << 31, 1LL << 31), 1LL << 62);
}

TEST(Rational, CrossReducesBeforeMultiplying) {
    // (2^62 / 3) * 3 fits once reduced, although 2^62 * 3 would not.
    Rational a(1LL << 62, 3);
    EXPECT_EQ(a * Rational(3), Rational(1LL << 62));
}

TEST(Rational, DivisionByZeroIsAnError) {
    EXPECT_THROW(Rational(1, 0), std::domain_error);
    EXPECT_THROW(Rational(1) / Rational(0), std::domain_error);
}

TEST(Rational, ParsesRecordNumbers) {
    EXPECT_EQ(*Rational::parse("65536"), Rational(65536));
    EXPECT_EQ(*Rational::parse("65,536"), Rational(65536));
    EXPECT_EQ(*Rational::parse("1,572,864"), Rational(1572864));
    EXPECT_EQ(*Rational::parse("34/32"), Rational(17, 16));
    EXPECT_EQ(*Rational::parse("1.0625"), Rational(17, 16));
    EXPECT_EQ(*Rational::parse("-3"), Rational(-3));
    EXPECT_FALSE(Rational::parse(""));
    EXPECT_FALSE(Rational::parse("1,23"));      // a thousands group has three digits
    EXPECT_FALSE(Rational::parse("28.8 t/s"));  // not a number
    EXPECT_FALSE(Rational::parse("1/0"));
    EXPECT_FALSE(Rational::parse("99999999999999999999"));  // beyond 64 bits
    EXPECT_FALSE(Rational::parse("nan"));
}

// The same number written as YAML or JSON may write it: once these read as absent, and the rules
// that needed the figure (tps-above-roofline, exceeds-memory) passed in silence.
TEST(Rational, ParsesTheSameNumberHoweverItIsWritten) {
    EXPECT_EQ(*Rational::parse("273e0"), Rational(273));
    EXPECT_EQ(*Rational::parse("1e1"), Rational(10));
    EXPECT_EQ(*Rational::parse("2.5E-3"), Rational(1, 400));
    EXPECT_EQ(*Rational::parse("1.5e+2"), Rational(150));
    EXPECT_EQ(*Rational::parse("273.00000000000000000000"), Rational(273));
    EXPECT_EQ(*Rational::parse("0.50000000000000000000000"), Rational(1, 2));
    EXPECT_EQ(*Rational::parse("10.0e2"), Rational(1000));
    EXPECT_FALSE(Rational::parse("1e"));
    EXPECT_FALSE(Rational::parse("e5"));
    EXPECT_FALSE(Rational::parse("1e5x"));
    EXPECT_FALSE(Rational::parse("1e30"));     // beyond 64 bits
    EXPECT_FALSE(Rational::parse("1,000e3"));  // a thousands separator is prose, an exponent is not
}

TEST(Rational, RoundsHalfAwayFromZeroAtStatedDigits) {
    EXPECT_EQ(Rational(1005, 1000).round_scaled(2), 101);
    EXPECT_EQ(Rational(1004, 1000).round_scaled(2), 100);
    EXPECT_EQ(Rational(-1005, 1000).round_scaled(2), -101);
    EXPECT_EQ(Rational(4).round_scaled(2), 400);
}

TEST(Rational, DisplaysForPeople) {
    EXPECT_EQ(Rational(65536).to_display(), "65,536");
    EXPECT_EQ(Rational(17, 16).to_display(), "1.0625");
    EXPECT_EQ(Rational(1, 3).to_display(), "1/3");
    EXPECT_EQ(Rational(17, 16).to_string(), "17/16");
    EXPECT_EQ(group_thousands(-1234567), "-1,234,567");
    EXPECT_EQ(group_thousands(999), "999");
}

TEST(Rational, ComparesWithoutOverflow) {
    EXPECT_LT(Rational(INT64_MAX - 1, INT64_MAX), Rational(1));
    EXPECT_GT(Rational(17, 16), Rational(1));
}

}  // namespace
}  // namespace kvcat
