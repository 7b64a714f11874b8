// Every command that README.md and docs/guide.md show with a `$ kvcat` prompt runs, as a
// reader would type it, on the shipped records, and prints what the page shows under it. The commands of one indented
// block run in order in one folder (an import then the lint of what it wrote); each block starts on the shipped records
// unchanged, in the folder of the block before only when that block changed nothing there. A command that is meant to
// fail says so at its end: `# exit 1: ...`.
#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

#include "gguf_file.h"
#include "kvcat_runner.h"

namespace kvcat::test {
namespace {

struct DocCommand {
    std::string line;  ///< from `kvcat` on, continuation lines joined with their backslashes
    int status = 0;    ///< the exit status the text promises
    int at = 0;        ///< the line of the file it starts on
    /// The output the text shows under it, without the block's indentation: "..." on a line of
    /// its own stands for lines left out, and a line ending in "..." for the rest of that line.
    std::vector<std::string> shown;
};

/// The `$ kvcat ...` commands of a Markdown file, by indented block.
std::vector<std::vector<DocCommand>> doc_commands(const std::string& text) {
    std::vector<std::vector<DocCommand>> blocks;
    std::istringstream in(text);
    std::string line;
    bool in_block = false, continues = false;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        bool indented = line.starts_with("    ");
        if (!indented && !line.empty()) {
            in_block = false;
            continues = false;
            continue;
        }
        if (!indented) continue;  // a blank line inside a block
        std::string body = line.substr(line.find_first_not_of(' '));
        if (continues) {
            blocks.back().back().line += "\n" + body;
            continues = body.ends_with("\\");
            continue;
        }
        if (!body.starts_with("$ kvcat ") && body != "$ kvcat") {
            // Another program's command ends the output of the one before; anything else under
            // a kvcat command is its output.
            if (body.starts_with("$ ")) {
                in_block = false;
            } else if (in_block && !blocks.back().empty()) {
                blocks.back().back().shown.push_back(line.substr(4));
            }
            continue;
        }
        if (!in_block) blocks.emplace_back();
        in_block = true;
        DocCommand c{body.substr(2), 0, number, {}};
        if (auto exit = c.line.find("  # exit "); exit != std::string::npos) {
            c.status = std::stoi(c.line.substr(exit + 9));
            c.line.erase(exit);
        }
        continues = c.line.ends_with("\\");
        blocks.back().push_back(std::move(c));
    }
    return blocks;
}

/// Whether `shown` (a document's output, "..." for lines left out) is in `out`: each run of
/// lines between "..." lines appears whole and in order, a line ending in "..." matching any
/// line it starts; trailing spaces and carriage returns do not count.
bool shows(const std::vector<std::string>& shown, const std::string& out) {
    auto trimmed = [](std::string s) {
        while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
        return s;
    };
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);) lines.push_back(trimmed(l));
    std::vector<std::vector<std::string>> runs(1);
    for (const auto& l : shown) {
        if (trimmed(l) == "...") {
            runs.emplace_back();
        } else {
            runs.back().push_back(trimmed(l));
        }
    }
    auto same = [](const std::string& doc, const std::string& got) {
        if (doc.size() > 3 && doc.ends_with("...")) return got.starts_with(doc.substr(0, doc.size() - 3));
        return doc == got;
    };
    std::size_t from = 0;
    for (const auto& run : runs) {
        if (run.empty()) continue;
        bool found = false;
        for (std::size_t start = from; start + run.size() <= lines.size() && !found; ++start) {
            std::size_t k = 0;
            while (k < run.size() && same(run[k], lines[start + k])) ++k;
            if (k == run.size()) {
                found = true;
                from = start + run.size();
            }
        }
        if (!found) return false;
    }
    return true;
}

TEST(DocCommands, ShownOutputMatchesRunsInOrderWithGaps) {
    std::string out = "header\nrule\nrow 1\nrow 2\nrow 3\n(3 rows)\n";
    EXPECT_TRUE(shows({"header", "rule", "row 1", "...", "(3 rows)"}, out));
    EXPECT_TRUE(shows({"row 2", "row 3"}, out));          // an excerpt
    EXPECT_TRUE(shows({"rule", "row..."}, out));          // the rest of a line left out
    EXPECT_FALSE(shows({"header", "row 1"}, out));        // not contiguous without "..."
    EXPECT_FALSE(shows({"row 3", "...", "row 1"}, out));  // out of order
    EXPECT_FALSE(shows({"(4 rows)"}, out));               // a figure that drifted
}

TEST(DocCommands, TheParserFindsBlocksContinuationsAndStatuses) {
    auto blocks = doc_commands(
        "Text\n\n    $ kvcat query a=b \\\n        --format csv\n    output line\n\n    $ kvcat lint x  # exit 1: "
        "notes\n"
        "more text\n    kvcat lint [PATH...]\n    $ llama-bench -m x\n    $ kvcat columns\n");
    ASSERT_EQ(blocks.size(), 2u);
    ASSERT_EQ(blocks[0].size(), 2u);
    EXPECT_EQ(blocks[0][0].line, "kvcat query a=b \\\n--format csv");
    EXPECT_EQ(blocks[0][0].at, 3);
    EXPECT_EQ(blocks[0][1].line, "kvcat lint x");
    EXPECT_EQ(blocks[0][1].status, 1);
    ASSERT_EQ(blocks[1].size(), 1u);
    EXPECT_EQ(blocks[1][0].line, "kvcat columns");
    EXPECT_EQ(blocks[0][0].shown, std::vector<std::string>{"output line"});
    EXPECT_TRUE(blocks[0][1].shown.empty());
}

class DocFile : public ::testing::TestWithParam<std::string> {};

TEST_P(DocFile, EveryCommandRunsOnTheShippedRecords) {
    const fs::path file = fs::path(KVCAT_SOURCE_DIR) / GetParam();
    auto blocks = doc_commands(read_file(file));
    std::size_t count = 0;
    for (const auto& b : blocks) count += b.size();
    // Both pages show commands; a parser that found none would pass anything.
    ASSERT_GE(count, 5u) << file;
    const fs::path fixtures(KVCAT_FIXTURES_DIR);
    const std::vector<std::pair<std::string, fs::path>> inputs = {
        {"config.json", fixtures / "configs/llama-3.1-8b.json"},
        {"run.json", fixtures / "import-bench/depths.jsonl"},
        {"mixed.jsonl", fixtures / "import-bench/mixed.jsonl"},
        {"8k.json", fixtures / "import-bench/vllm-8k.json"},
        {"32k.json", fixtures / "import-bench/vllm-32k.json"}};
    // Each block starts on today's records, unchanged, and the files above. Blocks share a folder
    // while none changes it, so that the catalog the first one builds serves the next (a
    // sanitized kvcat, CI's, takes over a second to build one); the block after one that wrote,
    // removed or changed a file gets a fresh folder.
    GgufFile weights(1 << 20);
    ReusedFolder folder(
        [&](const fs::path& dir) {
            fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", dir / "records", fs::copy_options::recursive);
            for (const auto& [name, from] : inputs) fs::copy_file(from, dir / name);
            fs::copy_file(weights.path(), dir / "weights.gguf");
        },
        {"kvcat.db", ".stdout", ".stderr", ".terminal"});
    for (const auto& block : blocks) {
        const TempDir& scratch = folder.get();
        for (const auto& command : block) {
            SCOPED_TRACE(GetParam() + ":" + std::to_string(command.at) + ": " + command.line);
            std::string line =
                shell_quote(::kvcat::test::kvcat_binary()) + command.line.substr(std::string("kvcat").size());
            int status = run_shell("cd " + shell_quote(scratch.path().string()) +
                                   " && env -u GITHUB_ACTIONS -u NO_COLOR -u COLUMNS sh -c " + shell_quote(line) +
                                   " >.stdout 2>.stderr </dev/null");
            EXPECT_EQ(status, command.status) << read_file(scratch / ".stderr");
            if (command.shown.empty()) continue;
            // The output the page shows is the one kvcat prints: in a pipe, or on a terminal of
            // the width the page's captures are taken at (the README's 80 columns, the guide's
            // 100), where a table is fitted to the window.
            std::string piped = read_file(scratch / ".stdout");
            if (shows(command.shown, piped)) continue;
            bool found = false;
            std::string printed = "Printed in a pipe:\n" + piped;
            for (int columns : {80, 100}) {
                run_shell("cd " + shell_quote(scratch.path().string()) + " && script -qec " +
                          shell_quote("env -u GITHUB_ACTIONS NO_COLOR=1 COLUMNS=" + std::to_string(columns) +
                                      " sh -c " + shell_quote(line) + " 2>.stderr") +
                          " /dev/null >.terminal </dev/null");
                std::string terminal = read_file(scratch / ".terminal");
                found = found || shows(command.shown, terminal);
                printed += "Printed on a terminal of " + std::to_string(columns) + " columns:\n" + terminal;
            }
            std::string documented;
            for (const auto& l : command.shown) documented += l + "\n";
            EXPECT_TRUE(found) << "the output shown has drifted from what kvcat prints.\nShown:\n"
                               << documented << printed;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(ReadmeAndGuide, DocFile, ::testing::Values("README.md", "docs/guide.md"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                             return p.param == "README.md" ? "Readme" : "Guide";
                         });

}  // namespace
}  // namespace kvcat::test
