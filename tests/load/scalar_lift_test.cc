#include "load/scalar_lift.h"

#include "load/yaml_loader.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace kvcat {
namespace {

namespace fs = std::filesystem;

std::string lifted_value(std::string_view text, std::size_t which = 0) {
    auto lifted = lift_scalars(text);
    if (!lifted || which >= lifted->scalars.size()) return "<not lifted>";
    return lifted->scalars[which].value;
}

TEST(ScalarLift, LiteralKeepsEachLineAndOneFinalBreak) {
    auto lifted = lift_scalars("a: 1\nnotes: |\n  one\n    two  \n\n  three\n\n\nb: 2\n");
    ASSERT_TRUE(lifted);
    ASSERT_EQ(lifted->scalars.size(), 1u);
    EXPECT_EQ(lifted->scalars[0].value, "one\n  two  \n\nthree\n");
    EXPECT_EQ(lifted->scalars[0].offset, 12u);  // the '|'
    EXPECT_EQ(lifted->text, "a: 1\nnotes: |\nb: 2\n");
}

TEST(ScalarLift, StripDropsTheFinalBreak) {
    EXPECT_EQ(lifted_value("notes: |-\n  one\n  two\n\nb: 2\n"), "one\ntwo");
    EXPECT_EQ(lifted_value("notes: >-\n  one\n  two\n\nb: 2\n"), "one two");
}

TEST(ScalarLift, FoldedJoinsLinesAndKeepsEmptyLinesAsBreaks) {
    EXPECT_EQ(lifted_value("n: >\n  a\n  b\n\n  c\n\n\n  d\nx: 1\n"), "a b\nc\n\nd\n");
    EXPECT_EQ(lifted_value("n: >\n\n\n  a\n  b\nx: 1\n"), "\n\na b\n");
}

TEST(ScalarLift, NestedKeysAndTheFileEnd) {
    auto lifted = lift_scalars("s:\n  - url: u\n    note: >-\n      said\n      here\nt: |\n  last\n");
    ASSERT_TRUE(lifted);
    ASSERT_EQ(lifted->scalars.size(), 2u);
    EXPECT_EQ(lifted->scalars[0].value, "said here");
    EXPECT_EQ(lifted->scalars[1].value, "last\n");
    EXPECT_EQ(lifted->text, "s:\n  - url: u\n    note: >-\nt: |\n");
}

TEST(ScalarLift, AListItemsKeyMayOpenABlock) {
    auto lifted = lift_scalars("sources:\n  - name: >-\n      long\n      title\n    url: u\n");
    ASSERT_TRUE(lifted);
    ASSERT_EQ(lifted->scalars.size(), 1u);
    EXPECT_EQ(lifted->scalars[0].value, "long title");
    EXPECT_EQ(lifted->text, "sources:\n  - name: >-\n    url: u\n");
    // Indented only to the key: the body is not past the item's mapping, so nothing is lifted.
    EXPECT_FALSE(lift_scalars("s:\n  - name: |\n    text\n"));
}

TEST(ScalarLift, OffsetsAfterACutMapBackToTheOriginal) {
    const std::string text = "a: |\n  xx\n  yy\nb: >\n  zz\nc: 1\n";
    auto lifted = lift_scalars(text);
    ASSERT_TRUE(lifted);
    ASSERT_EQ(lifted->text, "a: |\nb: >\nc: 1\n");
    for (std::string_view key : {"a:", "b:", "c:"}) {
        std::size_t in_lifted = lifted->text.find(key);
        EXPECT_EQ(lifted->original_offset(in_lifted), text.find(key)) << key;
    }
    EXPECT_EQ(lifted->original_offset(3), 3u);  // before any cut
    EXPECT_EQ(lifted->scalars[1].offset, text.find('>'));
}

TEST(ScalarLift, FormsItDoesNotReadLeaveTheWholeFileToYamlCpp) {
    const char* refused[] = {
        "a: |+\n  x\nb: 1\n",             // keep: yaml-cpp's count of final breaks is its own
        "a: |2\n    x\nb: 1\n",           // an indentation indicator
        "a: | # note\n  x\nb: 1\n",       // a comment after the indicator
        "l:\n  - |\n    x\nb: 1\n",       // a list item
        "a: !t |\n  x\nb: 1\n",           // a tag
        "a: |\n  x\n\ty\nb: 1\n",         // a tab where indentation would be
        "a: |\n  x\n     \n  y\nb: 1\n",  // spaces past the indentation on an empty line
        "a: |\n     \n  x\nb: 1\n",       // a leading empty line wider than the first line
        "a: >\n  x\n    more\nb: 1\n",    // a more-indented line in a folded scalar
        "a: |\n  x",                      // no line break at the end of the body
        "a: |\n  x\n  ",                  // an empty last line without one
        "b: |\n  x\nc: a |\n",            // some other line ending in an indicator
    };
    for (const char* text : refused) EXPECT_FALSE(lift_scalars(text)) << text;
}

TEST(ScalarLift, NothingToLiftIsNotLifted) {
    EXPECT_FALSE(lift_scalars("a: 1\nc: a->\n"));    // one byte; the last line
    EXPECT_FALSE(lift_scalars("a: |\nb: 1\n"));      // an empty body
    EXPECT_FALSE(lift_scalars("  a: |\n  b: 1\n"));  // the next line is not indented past the key
}

TEST(ScalarLift, APlainValueOnItsLineIsLeftAsX) {
    const std::string text = "name: Qwen3 32B dense\ns:\n  - title: vLLM sweep  \n    date: 2026-03\n";
    auto lifted = lift_scalars(text);
    ASSERT_TRUE(lifted);
    ASSERT_EQ(lifted->scalars.size(), 2u);
    EXPECT_EQ(lifted->scalars[0].kind, LiftedScalar::Kind::plain);
    EXPECT_EQ(lifted->scalars[0].value, "Qwen3 32B dense");
    EXPECT_EQ(lifted->scalars[0].offset, 6u);
    EXPECT_EQ(lifted->scalars[1].value, "vLLM sweep");  // trailing spaces are not the value's
    EXPECT_EQ(lifted->scalars[1].offset, text.find("vLLM"));
    EXPECT_EQ(lifted->text, "name: x\ns:\n  - title: x\n    date: 2026-03\n");  // the last line could run on
    EXPECT_EQ(lifted->original_offset(lifted->text.find("s:")), text.find("s:"));
    EXPECT_EQ(lifted->original_offset(lifted->text.find("date")), text.find("date"));
}

TEST(ScalarLift, PlainValuesThatCouldReadOtherwiseStayInTheText) {
    const char* kept[] = {
        "u: https://example.org\nb: 1\n",  // a colon
        "u: value # note\nb: 1\n",         // a comment
        "u: a, b and c\nb: 1\n",           // flow indicators
        "u: -5 and more\nb: 1\n",          // an indicator first
        "u: long value\n  more\nb: 1\n",   // runs on to the next line
        "u: long value\n\nb: 1\n",         // a blank line may run on too
        "u: long value\n",                 // the last line
        "u: caf\xc3\xa9 au lait\nb: 1\n",  // not ASCII
        "u: x\nb: 1\n",                    // one byte: nothing to save
        "u: ~\nb: 1\n",                    // yaml-cpp's nulls
        "u: null\nb: 1\n",
        "u: NULL\nb: 1\n",
    };
    for (const char* text : kept) EXPECT_FALSE(lift_scalars(text)) << text;
}

TEST(ScalarLift, AQuotedValueKeepsItsQuotesAroundX) {
    const std::string text = "statement: \"8 x 128 = 1,024 B\"\nnote: 'it is |'  \n";
    auto lifted = lift_scalars(text);
    ASSERT_TRUE(lifted);
    ASSERT_EQ(lifted->scalars.size(), 2u);
    EXPECT_EQ(lifted->scalars[0].kind, LiftedScalar::Kind::quoted);
    EXPECT_EQ(lifted->scalars[0].value, "8 x 128 = 1,024 B");
    EXPECT_EQ(lifted->scalars[0].offset, text.find('"'));  // where yaml-cpp places a quoted scalar
    EXPECT_EQ(lifted->scalars[1].value, "it is |");
    EXPECT_EQ(lifted->text, "statement: \"x\"\nnote: 'x'  \n");  // no next line needed: the quote ends it
    EXPECT_EQ(lifted->original_offset(lifted->text.find("note")), text.find("note"));
}

TEST(ScalarLift, QuotedValuesWithEscapesOrMoreStayInTheText) {
    const char* kept[] = {
        "u: \"tab\\there\"\nb: 1\n",   // an escape
        "u: 'it''s'\nb: 1\n",          // a doubled quote
        "u: \"x y\" # note\nb: 1\n",   // a comment after it
        "u: \"runs\n  on\"\nb: 1\n",   // over two lines
        "u: \"caf\xc3\xa9\"\nb: 1\n",  // not ASCII
        "u: \"x\"\nb: 1\n",            // one byte
        "u: \"a\" \"b\"\nb: 1\n",      // two strings
    };
    for (const char* text : kept) EXPECT_FALSE(lift_scalars(text)) << text;
}

// The loader with and without lifting: the same tree, marks and findings.

void expect_same_load(const std::string& label, const std::string& text, int* lifted_count = nullptr) {
    LoadLimits whole;
    whole.lift_scalars = false;
    LoadedYaml a = load_yaml(label, text);
    LoadedYaml b = load_yaml(label, text, whole);
    ASSERT_EQ(a.root.has_value(), b.root.has_value()) << label << "\n" << text;
    if (a.root) {
        EXPECT_TRUE(*a.root == *b.root) << label << "\n" << text;
    }
    ASSERT_EQ(a.diagnostics.size(), b.diagnostics.size()) << label << "\n" << text;
    for (std::size_t i = 0; i < a.diagnostics.size(); ++i) {
        EXPECT_EQ(format_text(a.diagnostics[i]), format_text(b.diagnostics[i])) << label;
    }
    if (lifted_count && lift_scalars(a.source->text())) ++*lifted_count;
}

TEST(ScalarLiftLoad, EveryRecordFixtureAndHostileFileLoadsAlikeEitherWay) {
    int files = 0, lifted = 0;
    for (const char* dir : {"records", "tests/fixtures", "tests/hostile", "tests/prose-corpus", "fuzz/seeds"}) {
        fs::path root = fs::path(KVCAT_SOURCE_DIR) / dir;
        if (!fs::exists(root)) continue;
        for (const auto& e : fs::recursive_directory_iterator(root)) {
            if (!e.is_regular_file() || e.path().extension() != ".yaml" || e.file_size() > (1u << 20)) continue;
            std::ifstream in(e.path(), std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            expect_same_load(e.path().string(), text.str(), &lifted);
            ++files;
        }
    }
    EXPECT_GT(files, 300);
    EXPECT_GT(lifted, 100);  // the comparison covers the lifted path, not only the refusals
}

/// A document of random keys, block scalars (lifted forms and others), quoted and plain
/// values, nested mappings and lists, with bodies that hold what breaks a lift: tabs, wide
/// empty lines, more-indented lines, header-like lines, a missing final break.
std::string random_document(std::mt19937& rng) {
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    const char* headers[] = {"|", "|-", ">", ">-", "|", ">-", "|+", ">+", "|2", "| # c", ">1-"};
    const char* words[] = {
        "text",  "8 x 128 = 1,024", "key: |",        "- item",          "# not a comment", "---", "a->b", "x |", "é ü",
        "\"q\"", "k: x y",          "a\xc2\x85next", "a\xe2\x80\xa8ls", "key: long value"};
    const char* plains[] = {"plain value",
                            "long value # c",
                            "a: b and c",
                            "null",
                            "value, with comma",
                            "x",
                            "~",
                            "-5 and 6",
                            "spaces   ",
                            "{flow: map}",
                            "[a, b, c]",
                            "caf\xc3\xa9 here",
                            "!tag value",
                            "\"quoted value\"",
                            "'single q'",
                            "\"esc\\\\aped\"",
                            "'it''s'",
                            "\"x y\" # c",
                            "\"caf\xc3\xa9\"",
                            "\"open",
                            "'a' 'b'",
                            "\"a: b\"",
                            "'# not'",
                            "Null",
                            "ok",
                            "\"\"",
                            "''"};
    std::string doc;
    int keys = 1 + pick(6);
    for (int k = 0; k < keys; ++k) {
        int shape = pick(12);
        std::string indent = shape >= 8 ? std::string(static_cast<std::size_t>(2 * (1 + pick(2))), ' ') : "";
        if (!indent.empty()) doc += fmt::format("m{}:\n", k);
        if (shape == 11) {
            doc += fmt::format("{}- name: n\n", indent);
            indent += "  ";
        }
        std::string first = indent;  // what precedes the key on its line
        if (shape == 10) {
            first = indent + "- ";  // the key opens a list item
            indent += "  ";
        }
        if (shape <= 3) {
            int form = pick(4);
            if (form == 0) {
                doc += fmt::format("{}k{}: \"quoted\n  key: |\n  k2: long value\n  on\"\n", first, k);
            } else if (form == 1) {
                doc += fmt::format("{}k{}: {{\n{}  a: long value,\n{}  b: another one\n{}}}\n", first, k, indent,
                                   indent, indent);
            } else {
                doc += fmt::format("{}k{}: {}\n", first, k, plains[pick(static_cast<int>(std::size(plains)))]);
                if (pick(3) == 0)
                    doc += fmt::format("{:{}}runs on\n", "", indent.size() + static_cast<std::size_t>(pick(4)));
            }
            continue;
        }
        doc += fmt::format("{}k{}: {}\n", first, k, headers[pick(static_cast<int>(std::size(headers)))]);
        std::size_t body_indent = indent.size() + static_cast<std::size_t>(pick(5));  // sometimes not past the key
        int lines = pick(6);
        for (int l = 0; l < lines; ++l) {
            int what = pick(14);
            if (what == 0) {
                doc += std::string(static_cast<std::size_t>(pick(static_cast<int>(body_indent) + 3)), ' ') + "\n";
            } else if (what == 1) {
                doc += "\n";
            } else if (what == 2) {
                doc += fmt::format("{:{}}more indented\n", "", body_indent + 2);
            } else if (what == 3) {
                doc += fmt::format("{:{}}\tafter a tab\n", "", body_indent);
            } else {
                doc += fmt::format("{:{}}{}{}\n", "", body_indent, words[pick(static_cast<int>(std::size(words)))],
                                   pick(4) == 0 ? "  " : "");
            }
        }
    }
    if (pick(8) == 0 && !doc.empty()) doc.pop_back();  // no final line break
    return doc;
}

TEST(ScalarLiftLoad, RandomDocumentsLoadAlikeEitherWay) {
    std::mt19937 rng(20261130);
    int lifted = 0;
    const int documents = 4000;
    for (int i = 0; i < documents; ++i) {
        std::string doc = random_document(rng);
        expect_same_load(fmt::format("random-{}.yaml", i), doc, &lifted);
        if (HasFailure()) break;
    }
    // Both paths are exercised: many documents are lifted, many refused.
    EXPECT_GT(lifted, documents / 10);
    EXPECT_LT(lifted, documents * 9 / 10);
}

TEST(ScalarLiftLoad, AMisreadHeaderFallsBackToTheWholeText) {
    // The "key: |" line sits inside a quoted string: lifting its "body" would change the
    // string, and yaml-cpp reports no block scalar there, so the whole text is read.
    const std::string text = "a: \"one\n  key: |\n    two\n  three\"\nb: 1\n";
    ASSERT_TRUE(lift_scalars(text));
    LoadedYaml y = load_yaml("f.yaml", text);
    ASSERT_TRUE(y.root);
    EXPECT_EQ(y.root->find("a")->value, "one key: | two three");
    expect_same_load("f.yaml", text);
}

}  // namespace
}  // namespace kvcat
