// Control characters are shown, never obeyed: a file name, a key or a value that holds an
// escape sequence or a line break prints as visible escapes in findings, logs and tables on a
// terminal, and a record kvcat writes (new, import-bench, import-config) never holds one.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;

using kvcat::test::contains;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;
using kvcat::test::read_file;
using kvcat::test::write_file;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        auto nl = text.find('\n', start);
        out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return out;
}

bool has_raw_escape(const std::string& s) {
    return s.find('\x1b') != std::string::npos || s.find('\x07') != std::string::npos;
}

class HostileOutput : public ::testing::Test {
  protected:
    KvcatRunner k_;
    fs::path kv_ = k_.dir() / "records/kv-efficiency";
    const std::string seed_ = "llamacpp-qwen35-27b-rtx3090-64k";

    /// The seed row moved to a file of this name, its id following.
    void rename_seed(const std::string& name) {
        std::string text = read_file(kv_ / (seed_ + ".yaml"));
        fs::remove(kv_ / (seed_ + ".yaml"));
        auto at = text.find("id: kv-efficiency/" + seed_);
        text.replace(at, 18 + seed_.size(), "id: kv-efficiency/" + seed_ + "-renamed");
        write_file(kv_ / name, text);
    }
};

// A file name written to forge a finding line and clear the screen: the lint names it with
// its escapes visible, on one line.
TEST_F(HostileOutput, AFileNameCannotForgeAFindingOrDriveTheTerminal) {
    rename_seed("x\x1b[2J\nkv-efficiency/forged.yaml:1:1: error: [forged] all clear\x07.yaml");
    Outcome r = k_.run({"lint"});
    EXPECT_EQ(r.status, 1);
    EXPECT_FALSE(has_raw_escape(r.out)) << r.out;
    EXPECT_TRUE(contains(r.out, "x\\e[2J\\nkv-efficiency/forged.yaml:1:1: error: [forged] all clear\\x07.yaml:"))
        << r.out;
    for (const auto& line : lines_of(r.out)) EXPECT_FALSE(line.starts_with("kv-efficiency/forged")) << line;
    Outcome colored = k_.run({"lint", "--color", "always"});
    EXPECT_TRUE(contains(colored.out, "x\\e[2J\\nkv-efficiency")) << colored.out;
}

TEST_F(HostileOutput, AMessageOnStderrShowsControlsAsEscapes) {
    Outcome r = k_.run({"explain", "zz\x1b]0;owned\x07\x1b[31m"});
    EXPECT_EQ(r.status, 2);
    EXPECT_FALSE(has_raw_escape(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, "zz\\e]0;owned\\x07\\e[31m")) << r.err;
}

// On a terminal a value is shown with its escapes visible; in a pipe it stays exact.
TEST_F(HostileOutput, ATableOnATerminalShowsControlsAsEscapes) {
    const std::string sql = "SELECT 'a' || char(27) || '[2Jb' AS v, char(27) || 'n' AS \"h\x1b[1m\"";
    Outcome shown = k_.run_on_terminal({"sql", sql}, {"COLUMNS=100"});
    ASSERT_EQ(shown.status, 0) << shown.err;
    EXPECT_FALSE(has_raw_escape(shown.out)) << shown.out;
    EXPECT_TRUE(contains(shown.out, "a\\e[2Jb")) << shown.out;
    EXPECT_TRUE(contains(shown.out, "h\\e[1m")) << shown.out;
    Outcome vertical = k_.run_on_terminal({"sql", "--format", "vertical", sql}, {"COLUMNS=100"});
    EXPECT_FALSE(has_raw_escape(vertical.out)) << vertical.out;
    EXPECT_TRUE(contains(vertical.out, "a\\e[2Jb")) << vertical.out;
    Outcome piped = k_.run({"sql", "--format", "tsv", sql});
    EXPECT_TRUE(contains(piped.out, "a\x1b[2Jb")) << piped.out;
}

TEST_F(HostileOutput, NewWritesNoRecordHoldingAControlCharacter) {
    Outcome r = k_.run({"new", "kv-efficiency", "--model", "models/llama-3.1-8b", "--engine", "llama.cpp", "--kv-dtype",
                        "q8_0", "--context", "64k", "--weight-quant", "Q4\x1b[31m"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(contains(r.err, "the record would hold the control character U+001B in the value of weight_quant"))
        << r.err;
    EXPECT_FALSE(has_raw_escape(r.err)) << r.err;
    // An option CLI11 refuses is quoted with its escapes visible too.
    Outcome typo = k_.run({"new", "kv-efficiency", "--model", "models/llama-3.1-8b", "--engine", "llama.cpp",
                           "--kv-dtype", "q8_0", "--context", "64k", "--engine-version", "b1\x1b[31m"});
    EXPECT_EQ(typo.status, 2);
    EXPECT_FALSE(has_raw_escape(typo.err)) << typo.err;
    EXPECT_TRUE(contains(typo.err, "b1\\e[31m")) << typo.err;
}

TEST_F(HostileOutput, ImportBenchWritesNoRecordHoldingAControlCharacter) {
    std::string bench = read_file(kvcat::test::fixture_path("import-bench/depths.jsonl"));
    for (std::size_t at = bench.find("1a2b3c4d"); at != std::string::npos; at = bench.find("1a2b3c4d", at + 1)) {
        bench.replace(at, 8, "1a2b\\u001b[2J");
    }
    write_file(k_.dir() / "bench.jsonl", bench);
    const std::string out = "records/kv-efficiency/llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k_m-f16-64k.yaml";
    Outcome r = k_.run({"import-bench", "bench.jsonl", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090",
                        "--provenance", "measured", "--out", out});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "the record would hold the control character U+001B in the value of engine_version"))
        << r.err;
    EXPECT_FALSE(fs::exists(k_.dir() / out));
}

}  // namespace
