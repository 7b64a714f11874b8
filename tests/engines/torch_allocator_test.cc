// PyTorch's caching allocator as engines/torch_allocator.h reads it: what it counts as allocated
// for tensors made one after another and kept, case by case.
#include "engines/torch_allocator.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace kvcat {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

std::int64_t allocated(const std::vector<std::int64_t>& sizes) {
    return torch_allocated_bytes(sizes);
}

// A large tensor takes a segment of its size rounded up to 2 MiB, and the whole segment when that
// leaves 1 MiB or less: 31.25 MiB counts 32, 32.5 MiB (1.5 MiB left, split off) counts itself.
TEST(TorchAllocator, ALargeTensorTakesItsWholeSegmentWhenAtMostOneMiBWouldBeLeft) {
    EXPECT_EQ(allocated({31 * kMiB + kMiB / 4}), 32 * kMiB);
    EXPECT_EQ(allocated({32 * kMiB + kMiB / 2}), 32 * kMiB + kMiB / 2);
    EXPECT_EQ(allocated({63 * kMiB}), 64 * kMiB);            // exactly 1 MiB left: not split
    EXPECT_EQ(allocated({10 * kMiB}), 10 * kMiB);            // a whole number of 2 MiB
    EXPECT_EQ(allocated({12 * kMiB + 1}), 12 * kMiB + 512);  // rounded to 512, then 1.5 MiB split off
}

// Under 10 MiB a tensor is cut from a 20 MiB segment, and what is left serves the next one that
// fits it; the last piece of a segment is taken whole when 1 MiB or less would be left of it.
TEST(TorchAllocator, MediumTensorsShareTwentyMiBSegments) {
    EXPECT_EQ(allocated({9 * kMiB}), 9 * kMiB);
    EXPECT_EQ(allocated({9 * kMiB, 8 * kMiB}), 17 * kMiB);  // the second in the first's 11 MiB
    // 10.5 MiB fits the 11 MiB left and would leave 0.5 MiB: it takes all 11.
    EXPECT_EQ(allocated({9 * kMiB, 10 * kMiB + kMiB / 2}), 20 * kMiB);
    // 12 MiB does not fit the 11 left: a segment of its own.
    EXPECT_EQ(allocated({9 * kMiB, 12 * kMiB}), 21 * kMiB);
}

// Up to 1 MiB a tensor comes from the small pool in blocks rounded up to 512 bytes.
TEST(TorchAllocator, SmallTensorsAreRoundedToFiveHundredTwelveBytes) {
    EXPECT_EQ(allocated({1}), 512);
    EXPECT_EQ(allocated({256, 256}), 1024);
    EXPECT_EQ(allocated({7168}), 7168);
    EXPECT_EQ(allocated({kMiB}), kMiB);  // the largest small one, from a 2 MiB segment
    EXPECT_EQ(allocated({kMiB, kMiB}), 2 * kMiB);
    // Blocks of whole 512s leave whole 512s: a small segment filled to its end counts no more.
    EXPECT_EQ(allocated({kMiB, kMiB - 1024, 1024}), 2 * kMiB);
}

}  // namespace
}  // namespace kvcat
