#include "support/typed_number.h"

#include <cstdint>

#include <gtest/gtest.h>

namespace kvcat {
namespace {

TEST(TypedNumber, SuffixesArePowersOfTwo) {
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("64k")), 65536);
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("1M")), 1048576);
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("128K")), 131072);
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("65536")), 65536);
    EXPECT_DOUBLE_EQ(std::get<double>(*parse_number("28.8")), 28.8);
    EXPECT_EQ(std::get<std::int64_t>(*parse_number("1.5k")), 1536);
    EXPECT_FALSE(parse_number("64kb"));
    EXPECT_FALSE(parse_number("k"));
    EXPECT_FALSE(parse_number("99999999999999999999"));
}

TEST(TypedNumber, AFactorScalesExactlyAndRefusesAnOverflow) {
    // 50 hundredths is the whole number 1/2 only as a fraction; it comes out as a double.
    EXPECT_DOUBLE_EQ(std::get<double>(*parse_scaled_number("50", Rational(1, 100))), 0.5);
    EXPECT_EQ(std::get<std::int64_t>(*parse_scaled_number("2", Rational(1LL << 30))), 2147483648LL);
    EXPECT_EQ(std::get<std::int64_t>(*parse_scaled_number(" 1.5 ", Rational(1000))), 1500);
    EXPECT_FALSE(parse_scaled_number("9000000000", Rational(1000000000000LL)));
    EXPECT_FALSE(parse_scaled_number("1/2", Rational(1)));
}

}  // namespace
}  // namespace kvcat
