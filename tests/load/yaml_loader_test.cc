#include "load/yaml_loader.h"

#include "support/content_hash.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace kvcat {
namespace {

const Diagnostic* find_rule(const LoadedYaml& y, std::string_view rule) {
    for (const auto& d : y.diagnostics) {
        if (d.rule == rule) return &d;
    }
    return nullptr;
}

TEST(YamlLoader, KeepsLineAndColumnOfEveryValue) {
    auto y = load_yaml("f.yaml", "id: a\nnested:\n  count: 16\n  list: [1, 22]\n");
    ASSERT_TRUE(y.root);
    ASSERT_TRUE(y.diagnostics.empty());
    const YamlNode* count = y.root->find("nested")->find("count");
    ASSERT_NE(count, nullptr);
    EXPECT_EQ(count->mark.line, 3);
    EXPECT_EQ(count->mark.column, 10);
    const YamlNode* list = y.root->find("nested")->find("list");
    EXPECT_EQ(list->items.at(1).mark.line, 4);
    EXPECT_EQ(list->items.at(1).mark.column, 13);
}

TEST(YamlLoader, ColumnsCountCharactersNotBytes) {
    auto y = load_yaml("f.yaml", "name: \"×é\"\nx: 1\nz: \"é\" # é\nw: [é, 5]\n");
    ASSERT_TRUE(y.root);
    const YamlNode* w = y.root->find("w");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->items.at(1).mark.line, 4);
    EXPECT_EQ(w->items.at(1).mark.column, 8);
}

TEST(YamlLoader, QuotedAndPlainScalarsStayApart) {
    auto y = load_yaml("f.yaml", "a: null\nb: \"null\"\nc: 12\nd: '12'\ne:\n");
    ASSERT_TRUE(y.root);
    EXPECT_TRUE(y.root->find("a")->is_null());
    EXPECT_TRUE(y.root->find("b")->is_scalar());
    EXPECT_TRUE(y.root->find("b")->quoted);
    EXPECT_FALSE(y.root->find("c")->quoted);
    EXPECT_TRUE(y.root->find("d")->quoted);
    // An empty value is null, positioned on its own key's line.
    EXPECT_TRUE(y.root->find("e")->is_null());
    EXPECT_EQ(y.root->find("e")->mark.line, 5);
}

TEST(YamlLoader, ATabInTheIndentationIsNamedWithItsColumn) {
    auto first = load_yaml("f.yaml", "id: a\nnested:\n\tcount: 16\n");
    const Diagnostic* d = find_rule(first, "yaml-syntax");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->pos.line, 3);
    EXPECT_EQ(d->pos.column, 1);
    EXPECT_NE(d->message.find("a tab in the indentation (column 1); YAML indents with spaces only"), std::string::npos)
        << d->message;
    auto after_spaces = load_yaml("f.yaml", "id: a\nnested:\n  count: 16\n  \tother: 2\n");
    d = find_rule(after_spaces, "yaml-syntax");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->pos.line, 4);
    EXPECT_EQ(d->pos.column, 3);
    EXPECT_NE(d->message.find("(column 3)"), std::string::npos) << d->message;
    // A tab inside a value is not indentation, and parses.
    EXPECT_EQ(find_rule(load_yaml("f.yaml", "id: a\nnote: \"x\ty\"\n"), "yaml-syntax"), nullptr);
}

TEST(YamlLoader, DuplicateKeyNamesBothLines) {
    auto y = load_yaml("f.yaml", "id: a\nengine: vLLM\nother: 1\nengine: llama.cpp\n");
    const Diagnostic* d = find_rule(y, "yaml-duplicate-key");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->pos.line, 4);
    EXPECT_EQ(d->pos.column, 1);
    EXPECT_NE(d->message.find("'engine'"), std::string::npos);
    EXPECT_NE(d->message.find("first at line 2"), std::string::npos);
}

TEST(YamlLoader, AliasesAreRefusedAndBombsCostNothing) {
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n";
    char prev = 'a';
    for (char c = 'b'; c <= 'k'; ++c, ++prev) {
        bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" +
                prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
    }
    auto start = std::chrono::steady_clock::now();
    auto y = load_yaml("bomb.yaml", bomb);
    auto elapsed = std::chrono::steady_clock::now() - start;
    const Diagnostic* d = find_rule(y, "yaml-alias");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->pos.line, 1);
    // Not a timing assertion on speed, only a guard that nothing was expanded (9^10 nodes).
    EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(), 10);
}

TEST(YamlLoader, DeepNestingStopsAtTheLimit) {
    std::string deep(200, '[');
    deep += std::string(200, ']');
    auto y = load_yaml("deep.yaml", "a: " + deep + "\n");
    EXPECT_FALSE(y.root);
    ASSERT_NE(find_rule(y, "yaml-too-deep"), nullptr);
}

TEST(YamlLoader, OneDocumentPerFile) {
    auto y = load_yaml("f.yaml", "id: a\n---\nid: b\n");
    const Diagnostic* d = find_rule(y, "yaml-multiple-documents");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->pos.line, 2);
}

TEST(YamlLoader, EmptyFileIsAFinding) {
    EXPECT_NE(find_rule(load_yaml("f.yaml", ""), "file-empty"), nullptr);
    EXPECT_NE(find_rule(load_yaml("f.yaml", "# only a comment\n"), "file-empty"), nullptr);
}

TEST(YamlLoader, EncodingProblemsArePositioned) {
    auto nul = load_yaml("f.yaml", std::string("id: a\nname: b\0c\n", 15));
    const Diagnostic* d = find_rule(nul, "yaml-encoding");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->pos.line, 2);
    EXPECT_EQ(d->pos.column, 8);

    auto bad = load_yaml("f.yaml", "id: a\nname: \xff\n");
    d = find_rule(bad, "yaml-encoding");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->pos.line, 2);
    EXPECT_NE(d->message.find("0xFF"), std::string::npos);

    EXPECT_NE(find_rule(load_yaml("f.yaml", "\xEF\xBB\xBFid: a\n"), "yaml-encoding"), nullptr);
    EXPECT_NE(find_rule(load_yaml("f.yaml", "id: \xC0\x80\n"), "yaml-encoding"), nullptr);  // overlong NUL
}

TEST(YamlLoader, ControlCharactersSpelledAsEscapesAreRefusedAtTheScalar) {
    // Each spelling decodes to a character that would reach a terminal or the catalog raw.
    struct Case {
        std::string text;
        std::string code_point;
        std::string where;
    };
    for (const Case& c : std::vector<Case>{{"id: a\nengine: \"llama\\e[31mRED\"\n", "U+001B", "value"},
                                           {"id: a\nengine: \"a\\0b\"\n", "U+0000", "value"},
                                           {"id: a\nengine: \"a\\rb\"\n", "U+000D", "value"},
                                           {"id: a\nengine: \"a\\x7Fb\"\n", "U+007F", "value"},
                                           {"id: a\nengine: \"a\\x85b\"\n", "U+0085", "value"},
                                           {"id: a\nengine: \"a\\u202Eb\"\n", "U+202E", "value"},
                                           {"id: a\n\"en\\bgine\": x\n", "U+0008", "key"}}) {
        auto y = load_yaml("f.yaml", c.text);
        const Diagnostic* d = find_rule(y, "yaml-encoding");
        ASSERT_NE(d, nullptr) << c.text;
        EXPECT_EQ(d->pos.line, 2) << c.text;
        EXPECT_EQ(d->pos.column, c.where == "key" ? 1 : 9) << c.text;
        EXPECT_NE(d->message.find(c.code_point + " in a " + c.where), std::string::npos) << d->message;
    }
    // Tabs and line breaks are text, escaped or not; so is a right-to-left letter.
    for (std::string ok : {"id: a\nengine: \"a\\tb\\nc\"\n", "id: a\nnotes: |\n  one\n  two\n",
                           "id: a\nname: \"\u05d0\u2014\u00e9\"\n"}) {
        auto y = load_yaml("f.yaml", ok);
        EXPECT_EQ(find_rule(y, "yaml-encoding"), nullptr) << ok;
    }
}

TEST(YamlLoader, AThousandAliasesAreTwentyFindingsAndASummary) {
    std::string text = "id: a\nx: &v 1\nlist:\n";
    for (int i = 0; i < 1000; ++i) text += "  - *v\n";
    auto y = load_yaml("f.yaml", text);
    std::vector<const Diagnostic*> aliases;
    for (const auto& d : y.diagnostics) {
        if (d.rule == "yaml-alias") aliases.push_back(&d);
    }
    ASSERT_EQ(aliases.size(), 21u);
    EXPECT_EQ(aliases[0]->pos.line, 2);    // the anchor
    EXPECT_EQ(aliases[1]->pos.line, 4);    // the first alias
    EXPECT_EQ(aliases[20]->pos.line, 23);  // the 21st: where the reports stop
    EXPECT_NE(aliases[20]->message.find("only the first 20 are reported"), std::string::npos) << aliases[20]->message;
}

TEST(YamlLoader, CrlfLineEndsKeepPositions) {
    auto y = load_yaml("f.yaml", "id: a\r\nx: |\r\n  one\r\n  two\r\ny: 5\r\n");
    ASSERT_TRUE(y.root);
    EXPECT_TRUE(y.diagnostics.empty());
    EXPECT_EQ(y.root->find("x")->value, "one\ntwo\n");
    EXPECT_EQ(y.root->find("y")->mark.line, 5);
    EXPECT_EQ(y.root->find("y")->mark.column, 4);
}

TEST(YamlLoader, SyntaxErrorIsPositioned) {
    auto y = load_yaml("f.yaml", "id: a\nlist: [1, 2\nz: 3\n");
    const Diagnostic* d = find_rule(y, "yaml-syntax");
    ASSERT_NE(d, nullptr);
    EXPECT_GE(d->pos.line, 2);
    EXPECT_FALSE(y.root);
}

TEST(YamlLoader, TooLargeIsRefusedBeforeParsing) {
    LoadLimits limits;
    limits.max_bytes = 16;
    auto y = load_yaml("f.yaml", "id: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", limits);
    const Diagnostic* d = find_rule(y, "file-too-large");
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("at most 16 bytes"), std::string::npos);
}

TEST(YamlLoader, SourceTextMapsOffsets) {
    SourceText s("f", "ab\ncd\n\nef");
    EXPECT_EQ(s.mark_at(0).line, 1);
    EXPECT_EQ(s.mark_at(4).line, 2);
    EXPECT_EQ(s.mark_at(4).column, 2);
    EXPECT_EQ(s.mark_at(7).line, 4);
    EXPECT_EQ(s.mark_at(100).line, 4);  // clamped, never out of range
}

TEST(YamlLoader, AnInvalidByteIsFoundWhereverItSitsAmongAsciiWords) {
    // ASCII is skipped eight bytes at a time; a bad byte at any offset of a word, and at
    // the last bytes of the text, is still the one reported.
    for (std::size_t at = 0; at < 24; ++at) {
        std::string text = "name: abcdefghijklmnopqrstuvwxyz0123\n";
        text[6 + at] = '\xff';
        auto y = load_yaml("f.yaml", text);
        const Diagnostic* d = find_rule(y, "yaml-encoding");
        ASSERT_NE(d, nullptr) << at;
        EXPECT_EQ(d->pos.line, 1);
        EXPECT_EQ(d->pos.column, static_cast<int>(7 + at)) << at;
    }
    // Valid multi-byte characters after a run of ASCII pass.
    EXPECT_EQ(
        find_rule(load_yaml("f.yaml", "name: abcdefghijklmnop \xC3\xA9t\xC3\xA9 \xE2\x89\x88 4\n"), "yaml-encoding"),
        nullptr);
}

TEST(ContentHash, EveryOneByteEditChangesTheFingerprint) {
    std::string text;
    for (int i = 0; text.size() < 4099; ++i) text += "line " + std::to_string(i) + ": 65,536 bytes per token\n";
    const std::uint64_t base = content_hash(text);
    std::set<std::uint64_t> seen{base};
    for (std::size_t i = 0; i < text.size(); ++i) {
        std::string edited = text;
        edited[i] = static_cast<char>(edited[i] ^ 0x01);
        EXPECT_TRUE(seen.insert(content_hash(edited)).second) << "offset " << i;
    }
    // Lengths count: a byte added or dropped at the end is a change too.
    EXPECT_NE(content_hash(text + " "), base);
    EXPECT_NE(content_hash(std::string_view(text).substr(0, text.size() - 1)), base);
    EXPECT_NE(content_hash(""), content_hash(std::string(1, '\0')));
}

TEST(ContentHash, IsTheSameFigureOnEveryMachine) {
    // Catalogs store it, so it must not depend on the build or the byte order: these are
    // the figures of the little-endian word reading, fixed once.
    EXPECT_EQ(content_hash_hex(content_hash("")), "f52a15e9a9b5e89b");
    EXPECT_EQ(content_hash_hex(content_hash("id: kv-efficiency/x\n")), "81c6da8f432a9dad");
}

TEST(YamlLoader, AFileKeepsTheStampItWasReadWith) {
    auto dir = std::filesystem::temp_directory_path() / ("kvcat-stamp-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto file = dir / "r.yaml";
    {
        std::ofstream out(file);
        out << "id: a\nname: b\n";
    }
    auto y = load_yaml_file(file.string(), "r.yaml");
    ASSERT_TRUE(y.source->stamp());
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ(y.source->stamp()->size, 14);
    EXPECT_EQ(y.source->stamp()->mtime_ns,
              static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec);
    EXPECT_FALSE(load_yaml("t.yaml", "id: a\n").source->stamp());  // text from no file has none
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kvcat
