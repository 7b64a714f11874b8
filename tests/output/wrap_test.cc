// Text broken to a terminal's width: at spaces only, the runs of spaces that align columns or
// that an engine prints kept as they were, colour escapes taking no column.
#include "output/wrap.h"

#include <sstream>

#include <gtest/gtest.h>

namespace kvcat {
namespace {

std::size_t widest(const std::string& text) {
    std::istringstream in(text);
    std::size_t most = 0;
    for (std::string line; std::getline(in, line);) most = std::max(most, line.size());
    return most;
}

TEST(Wrap, ALineThatFitsIsLeftAlone) {
    EXPECT_EQ(wrap_text("  memory    24 bytes  (a note)", 80), "  memory    24 bytes  (a note)");
}

TEST(Wrap, BreaksAtTheLastSpaceThatFitsAndHangsTheRest) {
    std::string wrapped = wrap_text("  alpha beta gamma delta", 17);
    EXPECT_EQ(wrapped, "  alpha beta\n      gamma delta");
}

TEST(Wrap, KeepsTheRunsOfSpacesItDoesNotBreakAt) {
    // An engine's own line: its padding is part of the text a reader compares with a log.
    std::string line = "    llama_memory_recurrent: size =  598.50 MiB (     4 cells,  64 layers,  4 seqs)";
    std::string wrapped = wrap_text(line, 60);
    EXPECT_EQ(wrapped, "    llama_memory_recurrent: size =  598.50 MiB (     4\n        cells,  64 layers,  4 seqs)");
    EXPECT_LE(widest(wrapped), 60u);
}

TEST(Wrap, JoiningTheBrokenLinesGivesTheTextBack) {
    std::string line = "  - fixed state        156,893,184 bytes  (linear-attention layers, per sequence x batch)";
    std::string wrapped = wrap_text(line, 80);
    ASSERT_NE(wrapped.find('\n'), std::string::npos);
    EXPECT_LE(widest(wrapped), 80u);
    std::string joined = wrapped;
    std::size_t nl = joined.find('\n');
    joined.replace(nl, joined.find_first_not_of(' ', nl + 1) - nl, " ");
    EXPECT_EQ(joined, line);
}

TEST(Wrap, ColourEscapesTakeNoColumn) {
    // 20 visible columns in a window of 20: nothing to break, however many escape bytes.
    std::string coloured = "\x1b[1;31merror:\x1b[0m ab defghijklm";
    EXPECT_EQ(wrap_text(coloured, 20), coloured);
    EXPECT_EQ(wrap_text(coloured, 19), "\x1b[1;31merror:\x1b[0m ab\n    defghijklm");
}

TEST(Wrap, AWordWiderThanTheRoomStaysWhole) {
    EXPECT_EQ(wrap_text("a records/kv-efficiency/a-very-long-name.yaml:5:1: error", 20),
              "a\n    records/kv-efficiency/a-very-long-name.yaml:5:1:\n    error");
}

TEST(Wrap, CountsCharactersNotBytes) {
    // "×" is two bytes and one column.
    EXPECT_EQ(wrap_text("a × b", 5), "a × b");
}

}  // namespace
}  // namespace kvcat
