#include "load/source_map.h"

#include <gtest/gtest.h>

namespace kvcat {
namespace {

struct Located {
    int line;
    int column;
};

/// Loads `yaml`, finds `needle` in the value of `key`, returns where the file holds it.
Located locate(const std::string& yaml, const char* key, const std::string& needle) {
    auto loaded = load_yaml("f.yaml", yaml);
    EXPECT_TRUE(loaded.root);
    if (!loaded.root) return {0, 0};
    const YamlNode* node = loaded.root->find(key);
    EXPECT_NE(node, nullptr);
    auto at = node->value.find(needle);
    EXPECT_NE(at, std::string::npos) << node->value;
    Mark m = locate_in_scalar(*loaded.source, *node, at);
    return {m.line, m.column};
}

TEST(SourceMap, PlainOneLine) {
    Located l = locate("id: a\nnote: the product 16 x 4 = 64\n", "note", "16 x 4");
    EXPECT_EQ(l.line, 2);
    EXPECT_EQ(l.column, 19);
}

TEST(SourceMap, LiteralBlockThirdLine) {
    std::string yaml =
        "id: a\n"
        "notes: |\n"
        "  first line\n"
        "  second line\n"
        "  third: 64 x 4 x 256 x 2 x 2 = 65,536 B/token\n";
    Located l = locate(yaml, "notes", "64 x 4");
    EXPECT_EQ(l.line, 5);
    EXPECT_EQ(l.column, 10);
}

TEST(SourceMap, FoldedBlockJoinsLines) {
    std::string yaml =
        "notes: >-\n"
        "    alpha beta\n"
        "    gamma 10 x 2 = 20\n";
    Located l = locate(yaml, "notes", "10 x 2");
    EXPECT_EQ(l.line, 3);
    EXPECT_EQ(l.column, 11);
}

TEST(SourceMap, DoubleQuotedWithEscape) {
    Located l = locate("s: \"a \\\"q\\\" 16 x 4 = 64\"\n", "s", "16");
    EXPECT_EQ(l.line, 1);
    EXPECT_EQ(l.column, 13);
}

TEST(SourceMap, SingleQuotedWithDoubledQuote) {
    Located l = locate("s: 'it''s 16 x 4 = 64'\n", "s", "16");
    EXPECT_EQ(l.line, 1);
    EXPECT_EQ(l.column, 11);
}

TEST(SourceMap, PlainMultiLine) {
    std::string yaml =
        "s: words that wrap\n"
        "  onto a second line 8 x 8 = 64\n";
    Located l = locate(yaml, "s", "8 x 8");
    EXPECT_EQ(l.line, 2);
    EXPECT_EQ(l.column, 22);
}

TEST(SourceMap, BlankLinesInsideABlock) {
    std::string yaml =
        "notes: |\n"
        "  one\n"
        "\n"
        "  three 2 x 3 = 6\n";
    Located l = locate(yaml, "notes", "2 x 3");
    EXPECT_EQ(l.line, 4);
    EXPECT_EQ(l.column, 9);
}

}  // namespace
}  // namespace kvcat
