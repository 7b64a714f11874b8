// The command line as a whole: help with examples for every subcommand, did-you-mean for a
// mistyped one, --version, and -q / -v wherever they are written.
#include <algorithm>
#include <iostream>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "gguf_file.h"
#include "kvcat_runner.h"

namespace kvcat::test {
namespace {

/// The subcommands `kvcat --help` lists, in its order.
std::vector<std::string> subcommands(const std::string& help) {
    std::vector<std::string> out;
    auto at = help.find("\nSubcommands:\n");
    if (at == std::string::npos) return out;
    std::size_t pos = at + 14;
    while (pos < help.size() && help.compare(pos, 2, "  ") == 0) {
        std::size_t end = help.find_first_of(" \n", pos + 2);
        out.push_back(help.substr(pos + 2, end - pos - 2));
        pos = help.find('\n', pos);
        if (pos == std::string::npos) break;
        ++pos;
    }
    return out;
}

class Cli : public ::testing::Test {
  protected:
    KvcatRunner k_{false};
};

TEST_F(Cli, EverySubcommandHelpHasAnExample) {
    Outcome top = k_.run({"--help"});
    ASSERT_EQ(top.status, 0);
    auto names = subcommands(top.out);
    for (const char* expected : {"lint", "build", "query", "sql", "columns", "explain", "fit"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected << " in\n" << top.out;
    }
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        Outcome help = k_.run({name, "--help"});
        EXPECT_EQ(help.status, 0) << help.err;
        EXPECT_NE(help.out.find("Usage:"), std::string::npos) << help.out;
        // "Example:" or "Examples:", followed by a real command line.
        auto example = help.out.find("Example");
        ASSERT_NE(example, std::string::npos) << "no examples in `kvcat " << name << " --help`:\n" << help.out;
        EXPECT_NE(help.out.find("  kvcat " + name, example), std::string::npos) << help.out;
        EXPECT_EQ(help.err, "");
    }
}

TEST_F(Cli, EveryMissingRequiredOptionIsNamedAtOnce) {
    // A newcomer who types the command alone learns every option it needs in one error, not
    // one per try.
    Outcome fit = k_.run({"fit"});
    EXPECT_EQ(fit.status, 2);
    EXPECT_EQ(fit.err,
              "kvcat: error: kvcat fit needs --model, --accelerator and --kv-dtype; `kvcat fit --help` shows every "
              "option with an example\n");
    Outcome some = k_.run({"fit", "--model", "qwen3-32b"});
    EXPECT_EQ(some.status, 2);
    EXPECT_TRUE(contains(some.err, "kvcat fit needs --accelerator and --kv-dtype;")) << some.err;
    Outcome nested = k_.run({"new", "kv-efficiency", "--engine", "vLLM"});
    EXPECT_EQ(nested.status, 2);
    EXPECT_TRUE(contains(nested.err, "kvcat new kv-efficiency needs --model, --kv-dtype and --context;")) << nested.err;
    Outcome positional = k_.run({"sql"});
    EXPECT_EQ(positional.status, 2);
    EXPECT_TRUE(contains(positional.err, "kvcat sql needs sql (the statement);")) << positional.err;
}

TEST_F(Cli, TopLevelHelpHasExamplesOfEachEverydayCommand) {
    Outcome top = k_.run({"--help"});
    ASSERT_EQ(top.status, 0);
    auto example = top.out.find("Examples:");
    ASSERT_NE(example, std::string::npos) << top.out;
    for (const char* command : {"lint", "query", "sql", "explain", "fit", "curve", "report"}) {
        EXPECT_NE(top.out.find(std::string("  kvcat ") + command + " ", example), std::string::npos)
            << command << " in\n"
            << top.out;
    }
}

/// The long options in the "Options:" part of a --help, without --help itself.
std::vector<std::string> long_options(const std::string& help) {
    std::vector<std::string> out;
    auto at = help.find("\nOptions:\n");
    if (at == std::string::npos) return out;
    std::size_t end = help.find("\n\n", at + 1);
    std::string block = help.substr(at, end == std::string::npos ? std::string::npos : end - at);
    for (std::size_t pos = block.find("\n  "); pos != std::string::npos; pos = block.find("\n  ", pos + 1)) {
        std::size_t dash = block.find("--", pos);
        std::size_t line_end = block.find('\n', pos + 1);
        if (dash == std::string::npos || (line_end != std::string::npos && dash > line_end)) continue;
        if (block.substr(pos + 3, dash - pos - 3).find_first_not_of(" -h,") != std::string::npos) continue;
        std::size_t stop = block.find_first_of(" =\n", dash);
        std::string option = block.substr(dash, stop - dash);
        if (option != "--help") out.push_back(option);
    }
    return out;
}

TEST_F(Cli, TheManPageCoversEveryCommandAndOption) {
    std::string man = read_file(fs::path(KVCAT_SOURCE_DIR) / "docs/kvcat.1");
    // roff writes a hyphen as \-.
    auto roff = [](std::string text) {
        std::string out;
        for (char c : text) {
            if (c == '-')
                out += "\\-";
            else
                out += c;
        }
        return out;
    };
    Outcome top = k_.run({"--help"});
    std::vector<std::vector<std::string>> commands;
    for (const auto& name : subcommands(top.out)) {
        commands.push_back({name});
        for (const auto& sub : subcommands(k_.run({name, "--help"}).out)) commands.push_back({name, sub});
    }
    ASSERT_GE(commands.size(), 12u);
    for (const auto& command : commands) {
        std::string name = command.size() == 1 ? command[0] : command[0] + " " + command[1];
        SCOPED_TRACE(name);
        // An entry under COMMANDS: a line that starts with the command in bold.
        bool entry = man.find("\n.B " + roff(name) + " ") != std::string::npos ||
                     man.find("\n.BR " + roff(name) + " ") != std::string::npos ||
                     man.find("\n.BR \"" + roff(name)) != std::string::npos;
        EXPECT_TRUE(entry) << "the man page has no entry for " << name;
        auto args = command;
        args.push_back("--help");
        Outcome help = k_.run(args);
        ASSERT_EQ(help.status, 0) << help.err;
        for (const auto& option : long_options(help.out)) {
            EXPECT_NE(man.find(roff(option)), std::string::npos) << "the man page does not mention " << option;
        }
    }
    // The check reads options: a known one is found in `kvcat fit --help`.
    auto fit = long_options(k_.run({"fit", "--help"}).out);
    EXPECT_NE(std::find(fit.begin(), fit.end(), "--reserve-gib"), fit.end());
}

/// The command lines under "Example:" or "Examples:" of a --help that start with kvcat, each
/// with its continuation lines (a line ending in a backslash goes on under it).
std::vector<std::string> example_commands(const std::string& help) {
    std::vector<std::string> out;
    auto at = help.find("\nExample");
    if (at == std::string::npos) return out;
    std::size_t pos = help.find('\n', at + 1);
    bool continues = false;
    while (pos != std::string::npos && pos + 1 < help.size()) {
        std::size_t end = help.find('\n', pos + 1);
        std::string line = help.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
        pos = end;
        if (!line.starts_with("  ")) break;  // the examples end where the indented lines do
        if (continues) {
            out.back() += "\n" + line;
        } else if (line.starts_with("  kvcat ")) {
            out.push_back(line.substr(2));
        } else {
            continue;  // another tool's command, such as the llama-bench run that writes a file
        }
        continues = line.ends_with("\\");
    }
    return out;
}

TEST(HelpExamples, EveryExampleRunsOnTheShippedRecords) {
    KvcatRunner k(false);
    // The help of the program and of every command and nested command.
    std::vector<std::string> helps{k.run({"--help"}).out};
    for (const auto& name : subcommands(helps.front())) {
        helps.push_back(k.run({name, "--help"}).out);
        for (const auto& sub : subcommands(helps.back())) helps.push_back(k.run({name, sub, "--help"}).out);
    }
    std::vector<std::string> commands;
    for (const auto& help : helps) {
        for (auto& c : example_commands(help)) {
            // The program's help repeats some of the commands' own examples.
            if (std::find(commands.begin(), commands.end(), c) == commands.end()) commands.push_back(std::move(c));
        }
    }
    ASSERT_GE(commands.size(), 20u);
    // The files the examples read, by the names they give them.
    const fs::path fixtures(KVCAT_FIXTURES_DIR);
    const std::vector<std::pair<std::string, fs::path>> inputs = {
        {"config.json", fixtures / "configs/llama-3.1-8b.json"},
        {"run.json", fixtures / "import-bench/depths.jsonl"},    // a run at depths 0 to 64k, as the example's
        {"mixed.jsonl", fixtures / "import-bench/mixed.jsonl"},  // three configurations, for --select
        {"8k.json", fixtures / "import-bench/vllm-8k.json"},
        {"32k.json", fixtures / "import-bench/vllm-32k.json"},
        {"server.log", fixtures / "engine-logs/llamacpp-b9421-tp-qwen3.6-27b-ud-q4_k_xl-recurrent-2seq.log"},
        {"vllm.log", fixtures / "engine-logs/vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25.log"}};
    // Every example runs on today's records, unchanged, and the files above. The examples share a
    // folder while none changes it, so that the catalog the first one builds serves the next (a
    // sanitized kvcat, CI's, takes over a second to build one, and there are sixty examples); the
    // example after one that wrote, removed or changed a file gets a fresh folder.
    GgufFile weights(1 << 20);
    ReusedFolder folder(
        [&](const fs::path& dir) {
            fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", dir / "records", fs::copy_options::recursive);
            for (const auto& [name, from] : inputs) fs::copy_file(from, dir / name);
            fs::copy_file(weights.path(), dir / "DeepSeek-V3-Q4_K_M.gguf");
        },
        {"kvcat.db", ".stdout", ".stderr"});
    for (const auto& command : commands) {
        SCOPED_TRACE(command);
        const TempDir& scratch = folder.get();
        std::string line = shell_quote(::kvcat::test::kvcat_binary()) + command.substr(std::string("kvcat").size());
        int status = run_shell("cd " + shell_quote(scratch.path().string()) +
                               " && env -u GITHUB_ACTIONS -u NO_COLOR -u COLUMNS sh -c " + shell_quote(line) +
                               " >.stdout 2>.stderr </dev/null");
        EXPECT_EQ(status, 0) << read_file(scratch / ".stderr");
    }
    std::cout << commands.size() << " examples run in " << folder.made() << " folders" << std::endl;
}

TEST(ShortIds, ExplainFitAndCurveTakeANameOrAUniqueStart) {
    KvcatRunner k;
    Outcome explain = k.run({"explain", "vllm-qwen35"});
    EXPECT_EQ(explain.status, 0) << explain.err;
    EXPECT_TRUE(explain.out.starts_with("kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k")) << explain.out;
    Outcome several = k.run({"explain", "qwen3.5"});
    EXPECT_EQ(several.status, 2);
    EXPECT_NE(several.err.find("'qwen3.5' could be any of"), std::string::npos) << several.err;

    Outcome fit = k.run({"fit", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090", "--weight-quant", "Q4_K",
                         "--kv-dtype", "bf16", "--format", "json"});
    EXPECT_EQ(fit.status, 0) << fit.err;
    Outcome whole = k.run({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                           "--weight-quant", "Q4_K", "--kv-dtype", "bf16", "--format", "json"});
    EXPECT_EQ(fit.out, whole.out);
    Outcome typo = k.run({"fit", "--model", "qwen3.5-72b", "--accelerator", "nvidia-rtx-3090", "--weight-quant", "Q4_K",
                          "--kv-dtype", "bf16"});
    EXPECT_EQ(typo.status, 2);
    EXPECT_NE(typo.err.find("no model record 'qwen3.5-72b'; did you mean 'models/qwen3.5-27b'?"), std::string::npos)
        << typo.err;

    Outcome curve = k.run({"curve", "--model", "llama-3.1-8b", "--contexts", "8k", "--format", "csv"});
    EXPECT_EQ(curve.status, 0) << curve.err;
    EXPECT_EQ(curve.out, k.run({"curve", "--model", "models/llama-3.1-8b", "--contexts", "8k", "--format", "csv"}).out);
}

TEST(ShortIds, OnTheShippedRecords) {
    KvcatRunner k(false);
    copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", k.dir() / "records");
    const std::string vllm = "kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k";
    Outcome unique = k.run({"explain", "vllm-qwen35-35b"});
    EXPECT_EQ(unique.status, 0) << unique.err;
    EXPECT_TRUE(unique.out.starts_with(vllm)) << unique.out;
    Outcome two = k.run({"explain", "vllm-qwen35"});
    EXPECT_EQ(two.status, 2);
    EXPECT_NE(two.err.find("'vllm-qwen35' could be any of 2 records"), std::string::npos) << two.err;
    // A start that stops inside a word is not taken, but offered.
    Outcome cut = k.run({"explain", "vllm-qwen35-35"});
    EXPECT_EQ(cut.status, 2);
    EXPECT_NE(cut.err.find(": no record 'vllm-qwen35-35'; did you mean '" + vllm + "'?\n"), std::string::npos)
        << cut.err;

    // A query's id that is the start of ids in the catalog offers those, before any near one.
    Outcome rtx = k.run({"query", "--format", "csv", "accelerator=nvidia-rtx"});
    EXPECT_EQ(rtx.status, 0) << rtx.err;
    EXPECT_NE(rtx.err.find("(did you mean accelerator=nvidia-rtx-3090, accelerator=nvidia-rtx-3090-ti, "
                           "accelerator=nvidia-rtx-4090,"),
              std::string::npos)
        << rtx.err;
    EXPECT_EQ(rtx.err.find("b200"), std::string::npos) << rtx.err;
    Outcome id = k.run({"query", "--format", "csv", "id=vllm-qwen35"});
    EXPECT_EQ(id.status, 0) << id.err;
    EXPECT_NE(id.err.find("(did you mean id=vllm-qwen35-"), std::string::npos) << id.err;
    EXPECT_NE(id.err.find("'id~kv-efficiency/vllm-qwen35*' finds them all"), std::string::npos) << id.err;
    Outcome all = k.run({"query", "--format", "csv", "--columns", "id", "id~kv-efficiency/vllm-qwen35*"});
    EXPECT_GE(std::count(all.out.begin(), all.out.end(), '\n'), 3) << all.out;
}

TEST_F(Cli, MistypedSubcommandGetsADidYouMean) {
    Outcome r = k_.run({"lnt", "records"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("unknown command 'lnt'; did you mean 'lint'?"), std::string::npos) << r.err;
    Outcome q = k_.run({"-v", "qurey", "id=x"});
    EXPECT_EQ(q.status, 2);
    EXPECT_NE(q.err.find("did you mean 'query'?"), std::string::npos) << q.err;
    Outcome c = k_.run({"colums"});
    EXPECT_NE(c.err.find("did you mean 'columns'?"), std::string::npos) << c.err;
    // Nothing close: no guess, but the list of commands.
    Outcome far = k_.run({"frobnicate"});
    EXPECT_EQ(far.status, 2);
    EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
    EXPECT_NE(far.err.find("unknown command 'frobnicate'"), std::string::npos) << far.err;
    EXPECT_NE(far.err.find("lint"), std::string::npos) << far.err;
}

TEST_F(Cli, KnownSubcommandErrorsAreCli11s) {
    // A bad option of a real subcommand is not an unknown command.
    Outcome r = k_.run({"query", "--format", "xml"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.find("unknown command"), std::string::npos) << r.err;
    Outcome none = k_.run({});
    EXPECT_EQ(none.status, 2);
    EXPECT_EQ(none.err.find("unknown command"), std::string::npos) << none.err;
}

TEST_F(Cli, VersionNamesTheCatalogSchema) {
    Outcome v = k_.run({"--version"});
    EXPECT_EQ(v.status, 0);
    EXPECT_EQ(v.out, "kvcat " KVCAT_VERSION " (catalog schema " + std::to_string(kCatalogSchemaVersion) + ")\n");
}

TEST_F(Cli, NoColorAlsoPlainsTheLogOnATerminal) {
    // Both streams on one pseudo-terminal, as in an interactive shell.
    auto on_terminal = [&](const std::string& env) {
        fs::path out = k_.dir() / "tty.out";
        std::string inner =
            "env -u GITHUB_ACTIONS -u NO_COLOR " + env + " " + shell_quote(::kvcat::test::kvcat_binary()) + " lnt";
        run_shell("script -qec " + shell_quote(inner) + " /dev/null >" + shell_quote(out.string()) + " </dev/null");
        return read_file(out);
    };
    std::string coloured = on_terminal("");
    EXPECT_NE(coloured.find("did you mean 'lint'?"), std::string::npos) << coloured;
    EXPECT_NE(coloured.find('\x1b'), std::string::npos) << coloured;
    std::string plain = on_terminal("NO_COLOR=");
    EXPECT_NE(plain.find("kvcat: error: unknown command 'lnt'"), std::string::npos) << plain;
    EXPECT_EQ(plain.find('\x1b'), std::string::npos) << plain;
}

TEST_F(Cli, StdoutCarriesOnlyResults) {
    KvcatRunner with_records;
    // A query that builds the catalog first logs that on stderr; stdout is the CSV alone.
    Outcome r = with_records.run({"-v", "query", "--format", "csv", "--columns", "id"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("id\r\nkv-efficiency/")) << r.out;
    EXPECT_NE(r.err.find("building the catalog"), std::string::npos) << r.err;
    // -q silences the log, not the result.
    fs::remove(with_records.dir() / "kvcat.db");
    Outcome quiet = with_records.run({"-q", "query", "--format", "csv", "--columns", "id"});
    EXPECT_EQ(quiet.out, r.out);
    EXPECT_EQ(quiet.err, "");
}

}  // namespace
}  // namespace kvcat::test
