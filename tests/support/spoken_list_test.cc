#include "support/spoken_list.h"

#include <gtest/gtest.h>

namespace kvcat {
namespace {

TEST(SpokenList, CommasThenAndBeforeTheLast) {
    EXPECT_EQ(spoken_list({}), "");
    EXPECT_EQ(spoken_list({"kv-basis-model"}), "kv-basis-model");
    EXPECT_EQ(spoken_list({"a", "b"}), "a and b");
    EXPECT_EQ(spoken_list({"kv-basis-model", "tps-above-roofline", "exceeds-memory"}),
              "kv-basis-model, tps-above-roofline and exceeds-memory");
}

}  // namespace
}  // namespace kvcat
