#include "support/bisect.h"

#include <cstdint>

#include <gtest/gtest.h>

namespace kvcat {
namespace {

TEST(LargestHolding, FindsTheLastNumberATestHoldsForInFewTries) {
    int tries = 0;
    auto below = [&](std::int64_t limit) {
        return [&tries, limit](std::int64_t n) {
            ++tries;
            return n <= limit;
        };
    };
    EXPECT_EQ(largest_holding(1, 1'000'000, below(25'344)), 25'344);
    EXPECT_LE(tries, 21);                                 // log2 of a million, rounded up, and one
    EXPECT_EQ(largest_holding(1, 100, below(100)), 100);  // holds throughout: the top
    EXPECT_EQ(largest_holding(1, 100, below(0)), 0);      // holds nowhere: one below the bottom
    EXPECT_EQ(largest_holding(5, 4, below(10)), 4);       // an empty range
}

}  // namespace
}  // namespace kvcat
