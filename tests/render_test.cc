#include "render.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kvcat {
namespace {

Table sample() {
    Table t;
    t.columns = {"id", "context_length", "tps", "note"};
    t.rows.push_back({std::string("a"), std::int64_t{65536}, 28.8, std::string("has, comma and \"quotes\"")});
    t.rows.push_back({std::string("bb"), std::int64_t{1048576}, std::monostate{}, std::string("x|y")});
    return t;
}

TEST(Render, TableRightAlignsNumbersAndShowsNullAsDash) {
    std::string out = render_table(sample(), TableFormat::table);
    EXPECT_EQ(out,
              "id  context_length   tps  note\n"
              "--  --------------  ----  -----------------------\n"
              "a            65536  28.8  has, comma and \"quotes\"\n"
              "bb         1048576     -  x|y\n"
              "(2 rows)\n");
    EXPECT_NE(out.find("(2 rows)"), std::string::npos);
    EXPECT_EQ(out.find(" \n"), std::string::npos) << "trailing space in:\n" << out;
}

TEST(Render, CsvQuotesPerRfc4180) {
    std::string out = render_table(sample(), TableFormat::csv);
    EXPECT_EQ(out,
              "id,context_length,tps,note\r\n"
              "a,65536,28.8,\"has, comma and \"\"quotes\"\"\"\r\n"
              "bb,1048576,,x|y\r\n");
}

TEST(Render, JsonKeepsNumbersAndNulls) {
    auto parsed = nlohmann::json::parse(render_table(sample(), TableFormat::json));
    ASSERT_TRUE(parsed.is_array());
    ASSERT_EQ(parsed.size(), 2u);
    EXPECT_EQ(parsed[0]["context_length"], 65536);
    EXPECT_TRUE(parsed[0]["context_length"].is_number_integer());
    EXPECT_DOUBLE_EQ(parsed[0]["tps"].get<double>(), 28.8);
    EXPECT_TRUE(parsed[1]["tps"].is_null());
    EXPECT_EQ(parsed[0]["note"], "has, comma and \"quotes\"");
}

TEST(Render, MarkdownEscapesPipes) {
    std::string out = render_table(sample(), TableFormat::markdown);
    EXPECT_NE(out.find("| id | context_length | tps | note |"), std::string::npos) << out;
    EXPECT_NE(out.find("x\\|y"), std::string::npos) << out;
    EXPECT_NE(out.find("---: |"), std::string::npos) << out;
}

/// Display columns of the longest line (UTF-8 code points; the ellipsis is one).
std::size_t widest_line(const std::string& text) {
    std::size_t widest = 0, n = 0;
    for (unsigned char c : text) {
        if (c == '\n') {
            widest = std::max(widest, n);
            n = 0;
        } else if ((c & 0xC0) != 0x80) {
            ++n;
        }
    }
    return std::max(widest, n);
}

Table wide() {
    Table t;
    t.columns = {"id", "kv_bytes_per_token", "engine", "note"};
    t.rows.push_back({std::string("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k"), std::int64_t{65536},
                      std::string("llama.cpp"), std::string("a long note that says a great deal about the row")});
    t.rows.push_back({std::string("kv-efficiency/short"), std::int64_t{10240}, std::monostate{}, std::string("brief")});
    return t;
}

TEST(Render, TableFitsTheWidthByCuttingTheWidestTextColumns) {
    const std::string natural = render_table(wide(), TableFormat::table);
    ASSERT_GT(widest_line(natural), 60u);
    std::string fitted = render_table(wide(), TableFormat::table, RenderOptions{60});
    EXPECT_LE(widest_line(fitted), 60u) << fitted;
    // The two widest text columns are cut to a common width (13: one more would make 61),
    // with an ellipsis; the narrow text column and the number are whole.
    EXPECT_EQ(fitted,
              "id             kv_bytes_per_token  engine     note\n"
              "-------------  ------------------  ---------  -------------\n"
              "kv-efficienc\u2026               65536  llama.cpp  a long note \u2026\n"
              "kv-efficienc\u2026               10240  -          brief\n"
              "(2 rows)\n");
    EXPECT_EQ(widest_line(fitted), 59u);
}

TEST(Render, TableIsNotCutWhenItFitsOrNoWidthIsGiven) {
    const std::string natural = render_table(wide(), TableFormat::table);
    EXPECT_EQ(natural.find("\u2026"), std::string::npos);
    EXPECT_EQ(render_table(wide(), TableFormat::table, RenderOptions{widest_line(natural)}), natural);
    EXPECT_EQ(render_table(wide(), TableFormat::table, RenderOptions{500}), natural);
}

TEST(Render, NumbersAreNeverCutEvenWhenNothingFits) {
    std::string fitted = render_table(wide(), TableFormat::table, RenderOptions{10});
    EXPECT_NE(fitted.find("65536"), std::string::npos) << fitted;
    EXPECT_NE(fitted.find("kv_bytes_per_token"), std::string::npos) << fitted;
    // Text columns stop at four columns, three characters and the ellipsis.
    EXPECT_NE(fitted.find("kv-\u2026"), std::string::npos) << fitted;
}

TEST(Render, WidthOnlyAffectsTheTableFormat) {
    for (auto format : {TableFormat::csv, TableFormat::tsv, TableFormat::json, TableFormat::ndjson,
                        TableFormat::markdown}) {
        EXPECT_EQ(render_table(wide(), format, RenderOptions{20}), render_table(wide(), format));
    }
}

TEST(Render, MultiLineCellShowsItsFirstLineAndStaysAligned) {
    Table t;
    t.columns = {"a", "b"};
    t.rows.push_back({std::string("one\ntwo"), std::string("x")});
    t.rows.push_back({std::string("three"), std::string("y")});
    EXPECT_EQ(render_table(t, TableFormat::table),
              "a      b\n"
              "-----  -\n"
              "one\u2026   x\n"
              "three  y\n"
              "(2 rows)\n");
}

TEST(Render, FormatNames) {
    EXPECT_EQ(parse_table_format("csv"), TableFormat::csv);
    EXPECT_FALSE(parse_table_format("xml"));
}

}  // namespace
}  // namespace kvcat
