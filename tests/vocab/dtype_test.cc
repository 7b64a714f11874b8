#include "vocab/dtype.h"

#include <gtest/gtest.h>

#include "load/schema.h"

namespace kvcat {
namespace {

Rational bytes(std::string_view name) {
    auto d = find_cache_dtype(name);
    EXPECT_TRUE(d) << name;
    return d ? d->bytes_per_element() : Rational(0);
}

// Figures from ggml-common.h block layouts and vLLM's CacheDType, via kv-facts.md.
TEST(CacheDtype, PlainTypes) {
    EXPECT_EQ(bytes("f32"), Rational(4));
    EXPECT_EQ(bytes("f16"), Rational(2));
    EXPECT_EQ(bytes("bf16"), Rational(2));
    EXPECT_EQ(bytes("fp8"), Rational(1));
    EXPECT_EQ(bytes("fp8_e4m3"), Rational(1));
    EXPECT_EQ(bytes("fp8_e5m2"), Rational(1));
}

TEST(CacheDtype, LlamaCppBlockTypesAreExactFractions) {
    EXPECT_EQ(bytes("q8_0"), Rational(34, 32));
    EXPECT_EQ(bytes("q5_1"), Rational(24, 32));
    EXPECT_EQ(bytes("q5_0"), Rational(22, 32));
    EXPECT_EQ(bytes("q4_1"), Rational(20, 32));
    EXPECT_EQ(bytes("q4_0"), Rational(18, 32));
    EXPECT_EQ(bytes("iq4_nl"), Rational(18, 32));
    EXPECT_NE(bytes("q8_0"), Rational(1));     // the common mistake
    EXPECT_NE(bytes("q4_0"), Rational(1, 2));  // and its twin
}

TEST(CacheDtype, UnknownNameIsNotGuessed) {
    EXPECT_FALSE(find_cache_dtype("int3"));
}

TEST(CacheDtype, SchemaEnumListsExactlyTheTable) {
    auto names = cache_dtype_names();
    auto table = cache_dtypes();
    ASSERT_EQ(names.size(), table.size());
    for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(names[i], table[i].name);
}

}  // namespace
}  // namespace kvcat
