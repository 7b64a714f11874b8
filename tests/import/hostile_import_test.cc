// The importers' quiet mistakes made loud: a key given twice, heads that cannot be grouped,
// numbers past what kvcat can keep, a speed that rounds to nothing, a value of several lines.
// Each is refused with the file, the place and what is wrong, in kvcat's words: never the JSON
// library's text, never an option the user did not type.
#include <string>

#include <gtest/gtest.h>

#include "kvcat_runner.h"
#include "support/json_input.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;

using kvcat::test::contains;
using kvcat::test::fixture_path;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;
using kvcat::test::read_file;
using kvcat::test::write_file;

/// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

bool speaks_like_the_library(const std::string& err) {
    return contains(err, "json.exception") || contains(err, "number overflow parsing") || contains(err, "std::") ||
           contains(err, "parse error at line");
}

TEST(JsonInput, FindsARepeatedKeyInOneObjectOnly) {
    auto d = kvcat::first_duplicate_key("{\n  \"a\": 1,\n  \"b\": {\"a\": 2},\n  \"\\u0061\": 3\n}");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->key, "a");
    EXPECT_EQ(d->first_line, 2);
    EXPECT_EQ(d->first_column, 3);
    EXPECT_EQ(d->second_line, 4);
    EXPECT_EQ(d->second_column, 3);
    EXPECT_FALSE(kvcat::first_duplicate_key(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "c": "a", "d": "a"})"));
    EXPECT_FALSE(kvcat::first_duplicate_key(R"({"x\"": 1, "x": 2})"));
}

class HostileImport : public ::testing::Test {
  protected:
    KvcatRunner k_;

    Outcome import_config(const std::string& text) {
        write_file(k_.dir() / "config.json", text);
        return k_.run(
            {"import-config", "config.json", "--name", "Test", "--total-params-b", "8", "--active-params-b", "8"});
    }
    Outcome import_bench(const std::string& name, const std::string& text, std::vector<std::string> extra = {}) {
        write_file(k_.dir() / name, text);
        std::vector<std::string> args = {"import-bench", name, "--model", "llama-3.1-8b"};
        args.insert(args.end(), extra.begin(), extra.end());
        return k_.run(args);
    }
    std::string config_ = read_file(fixture_path("configs/llama-3.1-8b.json"));
};

TEST_F(HostileImport, ImportConfigRefusesAKeyGivenTwiceNamingBoth) {
    Outcome r = import_config(
        replaced(config_, "\"num_hidden_layers\": 32,", "\"num_hidden_layers\": 32,\n  \"num_hidden_layers\": 16,"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(contains(r.err,
                         "config.json:16:3: the key \"num_hidden_layers\" appears twice in one object, at 15:3 "
                         "and at 16:3"))
        << r.err;
}

TEST_F(HostileImport, ImportConfigRefusesHeadsThatCannotBeGrouped) {
    Outcome r = import_config(replaced(config_, "\"num_key_value_heads\": 8", "\"num_key_value_heads\": 7"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(contains(r.err, "num_key_value_heads is 7, which does not divide num_attention_heads 32")) << r.err;
}

TEST_F(HostileImport, ImportConfigSaysANumberPastADoubleInItsOwnWords) {
    Outcome r = import_config(replaced(config_, "\"rms_norm_eps\": 1e-05", "\"rms_norm_eps\": 1e400"));
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "config.json:18:19: the number 1e400 is beyond the range of a double")) << r.err;
    EXPECT_FALSE(speaks_like_the_library(r.err)) << r.err;
    Outcome broken = import_config("{\"num_hidden_layers\": 32,,}");
    EXPECT_EQ(broken.status, 2);
    EXPECT_TRUE(contains(broken.err, "config.json:1:26: not valid JSON at \",}\"")) << broken.err;
    EXPECT_FALSE(speaks_like_the_library(broken.err)) << broken.err;
}

TEST_F(HostileImport, ImportBenchRefusesAKeyGivenTwiceAndAColumnNamedTwice) {
    std::string vllm = read_file(fixture_path("import-bench/vllm-8k.json"));
    Outcome json = import_bench(
        "r.json", replaced(vllm, "\"median_tpot_ms\": 8.0,", "\"median_tpot_ms\": 8.0,\n  \"median_tpot_ms\": 80.0,"),
        {"--kv-dtype", "bf16"});
    EXPECT_EQ(json.status, 2) << json.out;
    EXPECT_TRUE(
        contains(json.err, "r.json:22:3: the key \"median_tpot_ms\" appears twice in one object, at 21:3 and at 22:3"))
        << json.err;

    std::string jsonl = read_file(fixture_path("import-bench/depths.jsonl"));
    jsonl = replaced(jsonl, "\"avg_ts\": 1104.2", "\"avg_ts\": 1104.2, \"avg_ts\": 9999");
    Outcome lines = import_bench("d.jsonl", jsonl);
    EXPECT_EQ(lines.status, 2) << lines.out;
    EXPECT_TRUE(contains(lines.err, "d.jsonl:1:")) << lines.err;
    EXPECT_TRUE(contains(lines.err, "the key \"avg_ts\" appears twice in this line's object")) << lines.err;

    Outcome csv =
        import_bench("c.csv", "context_length,tps,tps\n8192,30,60\n", {"--engine", "llama.cpp", "--kv-dtype", "f16"});
    EXPECT_EQ(csv.status, 2) << csv.out;
    EXPECT_TRUE(contains(csv.err, "c.csv:1:1: the column 'tps' is named twice in the header, as columns 2 and 3"))
        << csv.err;
}

TEST_F(HostileImport, ImportBenchRefusesAModelSizePast64BitsAndATpotThatRoundsToNoSpeed) {
    std::string jsonl = read_file(fixture_path("import-bench/depths.jsonl"));
    for (auto at = jsonl.find("16500000000"); at != std::string::npos; at = jsonl.find("16500000000", at + 1)) {
        jsonl.replace(at, 11, "18446744073709551615");
    }
    Outcome big = import_bench("d.jsonl", jsonl);
    EXPECT_EQ(big.status, 2) << big.out;
    EXPECT_TRUE(contains(big.err, "'model_size' is 18446744073709551615, past the largest whole number kvcat keeps"))
        << big.err;
    EXPECT_FALSE(contains(big.out, "weight_bytes: -1"));

    std::string vllm = read_file(fixture_path("import-bench/vllm-8k.json"));
    Outcome slow = import_bench("r.json", replaced(vllm, "\"median_tpot_ms\": 8.0", "\"median_tpot_ms\": 1e300"),
                                {"--kv-dtype", "bf16"});
    EXPECT_EQ(slow.status, 2) << slow.out;
    EXPECT_TRUE(contains(slow.err, "'median_tpot_ms' is 1e+300 ms a token")) << slow.err;
    EXPECT_FALSE(contains(slow.out, "measured_tps_at_ctx: 0"));
}

TEST_F(HostileImport, ImportBenchNamesTheFilesFieldNotAnOptionNeverTyped) {
    std::string jsonl = read_file(fixture_path("import-bench/depths.jsonl"));
    for (auto at = jsonl.find("\"1a2b3c4d\""); at != std::string::npos; at = jsonl.find("\"1a2b3c4d\"", at + 1)) {
        jsonl.replace(at, 10, "\"1a2b\\nkv-efficiency/x.yaml:1:1: error: forged\"");
    }
    Outcome r = import_bench("d.jsonl", jsonl);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(
        contains(r.err, "d.jsonl: the engine version (build_commit, build_number) the file gives is not one line"))
        << r.err;
    EXPECT_FALSE(contains(r.err, "--engine-version")) << r.err;
}

}  // namespace
