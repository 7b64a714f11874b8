#include "output/terminal.h"

#include <gtest/gtest.h>

namespace kvcat {
namespace {

TEST(Terminal, ColorModeNames) {
    EXPECT_EQ(parse_color_mode("auto"), ColorMode::automatic);
    EXPECT_EQ(parse_color_mode("always"), ColorMode::always);
    EXPECT_EQ(parse_color_mode("never"), ColorMode::never);
    EXPECT_FALSE(parse_color_mode("yes"));
}

TEST(Terminal, AutoColourOnlyOnATerminalWithoutNoColor) {
    EXPECT_TRUE(decide_color(ColorMode::automatic, true, false));
    EXPECT_FALSE(decide_color(ColorMode::automatic, false, false));
    EXPECT_FALSE(decide_color(ColorMode::automatic, true, true));
    EXPECT_FALSE(decide_color(ColorMode::automatic, false, true));
}

TEST(Terminal, ExplicitModesIgnoreTheTerminal) {
    for (bool tty : {false, true}) {
        for (bool no_color : {false, true}) {
            EXPECT_TRUE(decide_color(ColorMode::always, tty, no_color));
            EXPECT_FALSE(decide_color(ColorMode::never, tty, no_color));
        }
    }
}

TEST(Terminal, ColumnsFromTheEnvironment) {
    EXPECT_EQ(parse_columns_env("80"), 80u);
    EXPECT_EQ(parse_columns_env("200"), 200u);
    EXPECT_FALSE(parse_columns_env(nullptr));
    EXPECT_FALSE(parse_columns_env(""));
    EXPECT_FALSE(parse_columns_env("0"));
    EXPECT_FALSE(parse_columns_env("-5"));
    EXPECT_FALSE(parse_columns_env("80x"));
    EXPECT_FALSE(parse_columns_env("99999999999999999999999"));
}

}  // namespace
}  // namespace kvcat
