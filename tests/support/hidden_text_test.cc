// Characters a reader cannot see (src/support/hidden_text.h): found in ids and file names, escaped on
// the way to a terminal.
#include "support/hidden_text.h"

#include <gtest/gtest.h>

namespace {

using kvcat::first_hidden_character;

TEST(HiddenText, FindsControlsZeroWidthAndBidirectionalCharacters) {
    struct Case {
        const char* text;
        std::uint32_t cp;
        std::size_t offset;
    };
    for (const Case& c :
         {Case{"a\tb", 0x09, 1}, Case{"a\nb", 0x0A, 1}, Case{"\x1B[31m", 0x1B, 0}, Case{"x\x7F", 0x7F, 1},
          Case{"x\xC2\x85", 0x85, 1}, Case{"llama\xE2\x80\x8B-8b", 0x200B, 5}, Case{"\xE2\x80\x8C", 0x200C, 0},
          Case{"\xE2\x80\x8D", 0x200D, 0}, Case{"\xE2\x81\xA0", 0x2060, 0}, Case{"\xEF\xBB\xBFid", 0xFEFF, 0},
          Case{"a\xE2\x80\x8E", 0x200E, 1}, Case{"a\xE2\x80\x8F", 0x200F, 1}, Case{"\xD8\x9C", 0x061C, 0},
          Case{"\xE2\x80\xAA", 0x202A, 0}, Case{"\xE2\x80\xAE", 0x202E, 0}, Case{"\xE2\x81\xA6", 0x2066, 0},
          Case{"\xE2\x81\xA9", 0x2069, 0}, Case{"ok\xC0\xAE", 0xC0, 2}, Case{"ok\xE2\x80", 0xE2, 2}}) {
        auto found = first_hidden_character(c.text);
        ASSERT_TRUE(found) << c.text;
        EXPECT_EQ(found->code_point, c.cp) << c.text;
        EXPECT_EQ(found->offset, c.offset) << c.text;
    }
    for (const char* visible :
         {"models/llama-3.1-8b", "caf\xC3\xA9", "\xE2\x80\x8A", "\xE2\x81\xAA", "\xF0\x9F\x98\x80"}) {
        EXPECT_FALSE(first_hidden_character(visible)) << visible;
    }
    EXPECT_EQ(kvcat::describe(*first_hidden_character("a\xE2\x80\x8B")), "U+200B ZERO WIDTH SPACE");
    EXPECT_EQ(kvcat::describe(*first_hidden_character("\x1B")), "U+001B (a control character)");
}

TEST(HiddenText, EscapesForATerminal) {
    EXPECT_EQ(kvcat::escape_for_terminal("a\x1B[2Jb\nc\rd\x07\te"), "a\\e[2Jb\\nc\\rd\\x07\te");
    EXPECT_EQ(kvcat::escape_for_terminal("x\xE2\x80\xAEy\xC2\x9B"), "x\\u{202E}y\\u{009B}");
    EXPECT_EQ(kvcat::escape_for_terminal("\xFF caf\xC3\xA9"), "\\xFF caf\xC3\xA9");
    EXPECT_EQ(kvcat::escape_for_terminal("x\xE2\x80\x8By", false), "x\xE2\x80\x8By");
    EXPECT_EQ(kvcat::escape_for_terminal("x\x1By", false), "x\\ey");
}

}  // namespace
