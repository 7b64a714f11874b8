// Every command that README.md and docs/guide.md show with a `$ kvcat` prompt runs, as a
// reader would type it, on the shipped records. The commands of one indented block run in
// order in one folder (an import then the lint of what it wrote); each block gets a folder
// of its own. A command that is meant to fail says so at its end: `# exit 1: ...`.
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
        if (!body.starts_with("$ kvcat ") && body != "$ kvcat") continue;
        if (!in_block) blocks.emplace_back();
        in_block = true;
        DocCommand c{body.substr(2), 0, number};
        if (auto exit = c.line.find("  # exit "); exit != std::string::npos) {
            c.status = std::stoi(c.line.substr(exit + 9));
            c.line.erase(exit);
        }
        continues = c.line.ends_with("\\");
        blocks.back().push_back(std::move(c));
    }
    return blocks;
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
    for (const auto& block : blocks) {
        TempDir scratch;
        fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", scratch / "records", fs::copy_options::recursive);
        for (const auto& [name, from] : inputs) fs::copy_file(from, scratch / name);
        GgufFile weights(1 << 20);
        fs::copy_file(weights.path(), scratch / "weights.gguf");
        for (const auto& command : block) {
            SCOPED_TRACE(GetParam() + ":" + std::to_string(command.at) + ": " + command.line);
            std::string line = shell_quote(KVCAT_BINARY) + command.line.substr(std::string("kvcat").size());
            int status = run_shell("cd " + shell_quote(scratch.path().string()) +
                                   " && env -u GITHUB_ACTIONS -u NO_COLOR -u COLUMNS sh -c " + shell_quote(line) +
                                   " >.stdout 2>.stderr </dev/null");
            EXPECT_EQ(status, command.status) << read_file(scratch / ".stderr");
        }
    }
}

INSTANTIATE_TEST_SUITE_P(ReadmeAndGuide, DocFile, ::testing::Values("README.md", "docs/guide.md"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                             return p.param == "README.md" ? "Readme" : "Guide";
                         });

}  // namespace
}  // namespace kvcat::test
