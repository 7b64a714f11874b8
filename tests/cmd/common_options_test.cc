// --db, --records and --format, as the commands share them: each command that took one still
// takes it, with the same default and allowed values, and reads what it is given.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kvcat_runner.h"

namespace kvcat::test {
namespace {

/// The line of a --help that describes `option` (from "  --option" to the end of the line),
/// or "" when the help has none.
std::string option_line(const std::string& help, const std::string& option) {
    for (std::size_t at = help.find("\n  " + option); at != std::string::npos;
         at = help.find("\n  " + option, at + 1)) {
        std::size_t after = at + 3 + option.size();
        if (after < help.size() && help[after] != ' ' && help[after] != ',') continue;  // --format-x
        std::size_t end = help.find('\n', at + 1);
        return help.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    }
    return "";
}

struct Expected {
    std::vector<std::string> command;
    std::map<std::string, std::string> defaults;  ///< option -> its default as --help shows it (=x); "" for none
};

TEST(CommonOptions, EachCommandTakesTheSharedOptionsItTookBefore) {
    KvcatRunner k(false);
    const std::vector<Expected> expected = {
        {{"build"}, {{"--db", "=kvcat.db"}}},
        {{"query"}, {{"--db", "=kvcat.db"}, {"--records", "=records"}, {"--format", "=table"}}},
        {{"sql"}, {{"--db", "=kvcat.db"}, {"--records", "=records"}, {"--format", "=table"}}},
        {{"report"}, {{"--db", "=kvcat.db"}, {"--records", "=records"}}},
        {{"columns"}, {{"--format", "=table"}}},
        {{"curve"}, {{"--records", "=records"}, {"--format", "=table"}}},
        {{"explain"}, {{"--records", "=records"}, {"--format", "=text"}}},
        {{"fit"}, {{"--records", "=records"}, {"--format", "=text"}}},
        {{"import-bench"}, {{"--records", "=records"}}},
        {{"new", "kv-efficiency"}, {{"--records", "=records"}}},
        {{"lint"}, {{"--format", ""}}},
    };
    for (const auto& e : expected) {
        auto args = e.command;
        args.push_back("--help");
        Outcome help = k.run(args);
        ASSERT_EQ(help.status, 0) << help.err;
        for (const auto& [option, shown_default] : e.defaults) {
            SCOPED_TRACE(e.command[0] + " " + option);
            std::string line = option_line(help.out, option);
            ASSERT_NE(line, "") << help.out;
            if (shown_default.empty()) {
                EXPECT_EQ(line.find('='), std::string::npos) << line;
            } else {
                EXPECT_NE(line.find(shown_default), std::string::npos) << line;
            }
        }
    }
}

TEST(CommonOptions, ATableFormatIsCheckedAlikeEverywhere) {
    KvcatRunner k(false);
    Outcome query = k.run({"query", "--format", "yaml"});
    EXPECT_EQ(query.status, 2);
    EXPECT_NE(query.err.find("--format: yaml not in"), std::string::npos) << query.err;
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"sql", "--format", "yaml", "SELECT 1"}, {"columns", "--format", "yaml"}}) {
        Outcome other = k.run(args);
        EXPECT_EQ(other.status, 2) << args[0];
        EXPECT_EQ(other.err, query.err) << args[0];
    }
    // text and json are a record's formats, not a table's.
    EXPECT_EQ(k.run({"columns", "--format", "text"}).status, 2);
    EXPECT_EQ(k.run({"columns", "--format", "json"}).status, 0);
}

TEST(CommonOptions, EveryCommandReadsTheRecordsAndCatalogItIsGiven) {
    KvcatRunner k;
    fs::rename(k.dir() / "records", k.dir() / "elsewhere");
    const std::vector<std::vector<std::string>> commands = {
        {"build", "--db", "built.db", "elsewhere"},
        {"query", "--db", "asked.db", "--records", "elsewhere", "engine=llama.cpp"},
        {"sql", "--db", "asked.db", "--records", "elsewhere", "SELECT count(*) FROM kv_rows"},
        {"report", "--db", "asked.db", "--records", "elsewhere", "--out", "-"},
        {"explain", "--records", "elsewhere", "vllm-qwen35"},
        {"fit", "--records", "elsewhere", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090",
         "--weight-quant", "Q4_K", "--kv-dtype", "bf16"},
        {"curve", "--records", "elsewhere", "--model", "llama-3.1-8b", "--contexts", "8k"},
        {"new", "kv-efficiency", "--records", "elsewhere", "--model", "models/llama-3.1-8b", "--engine", "llama.cpp",
         "--kv-dtype", "q8_0", "--context", "64k"},
    };
    for (const auto& args : commands) {
        SCOPED_TRACE(args[0]);
        Outcome o = k.run(args);
        EXPECT_EQ(o.status, 0) << o.err;
        EXPECT_NE(o.out + o.err, "");
    }
    EXPECT_TRUE(fs::exists(k.dir() / "built.db"));
    EXPECT_TRUE(fs::exists(k.dir() / "asked.db"));
    EXPECT_FALSE(fs::exists(k.dir() / "kvcat.db"));
    // Without --records, the default records/ is looked for, and it is not there.
    EXPECT_EQ(k.run({"curve", "--model", "llama-3.1-8b", "--contexts", "8k"}).status, 2);
    EXPECT_EQ(k.run({"explain", "vllm-qwen35"}).status, 2);
}

}  // namespace
}  // namespace kvcat::test
