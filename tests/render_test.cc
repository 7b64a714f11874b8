#include "render.h"

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

TEST(Render, FormatNames) {
    EXPECT_EQ(parse_table_format("csv"), TableFormat::csv);
    EXPECT_FALSE(parse_table_format("xml"));
}

}  // namespace
}  // namespace kvcat
