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

// A file within the read limit made of empty arrays took 418 MB for 15 MB of text (the parser
// keeps a node per value): the values and the nesting are counted before anything is parsed.
TEST(JsonInput, RefusesMoreValuesOrDeeperNestingThanItReadsAtThePlacePassed) {
    auto items = [](std::size_t n, const std::string& item) {
        std::string text = "[";
        for (std::size_t i = 0; i < n; ++i) text += (i ? "," : "") + item;
        return text + "]";
    };
    // The root and its items: exactly the limit reads, one more does not.
    EXPECT_EQ(kvcat::parse_json_input(items(kvcat::kJsonMaxValues - 1, "[]")).size(), kvcat::kJsonMaxValues - 1);
    try {
        kvcat::parse_json_input(items(kvcat::kJsonMaxValues, "0"));
        ADD_FAILURE() << "one value past the limit was read";
    } catch (const kvcat::JsonInputError& e) {
        EXPECT_EQ(e.line(), 1);
        // The comma before item 1,000,000, which would be the 1,000,001st value with the root.
        EXPECT_EQ(e.column(), 2 * static_cast<int>(kvcat::kJsonMaxValues) - 1);
        EXPECT_TRUE(contains(e.what(), "more than 1,000,000 values")) << e.what();
    }
    auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
    EXPECT_NO_THROW(kvcat::parse_json_input(nested(kvcat::kJsonMaxDepth)));
    try {
        kvcat::parse_json_input("{\"a\": \"[[[[\",\n \"b\": " + nested(kvcat::kJsonMaxDepth + 1) + "}");
        ADD_FAILURE() << "nesting past the limit was read";
    } catch (const kvcat::JsonInputError& e) {
        // Brackets inside a string are not nesting: under the object, the 100th bracket of
        // line 2 (from column 7) is the 101st level.
        EXPECT_EQ(e.line(), 2);
        EXPECT_EQ(e.column(), 6 + static_cast<int>(kvcat::kJsonMaxDepth));
        EXPECT_TRUE(contains(e.what(), "nested more than 100 deep")) << e.what();
    }
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

TEST_F(HostileImport, ImportConfigSaysANanWhereANumberIsReadNeverTakesItAsAbsent) {
    // NaN was read as null, so num_key_value_heads: NaN fell back to one KV head a query head:
    // four times the cache of the real model, in a record that linted clean.
    Outcome r = import_config(replaced(config_, "\"num_key_value_heads\": 8", "\"num_key_value_heads\": NaN"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(contains(r.err, "config.json: num_key_value_heads is \"NaN\"; expected a whole number")) << r.err;
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

// --- import-log ---------------------------------------------------------------------

const std::string kCacheLine =
    "llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  256.00 MiB, V (f16):  "
    "256.00 MiB";

class HostileImportLog : public ::testing::Test {
  protected:
    KvcatRunner k_;

    Outcome import_log(const std::string& name, const std::string& text, std::vector<std::string> extra = {}) {
        write_file(k_.dir() / name, text);
        std::vector<std::string> args = {"import-log", name, "--model", "llama-3.1-8b"};
        args.insert(args.end(), extra.begin(), extra.end());
        return k_.run(args);
    }
};

TEST_F(HostileImportLog, AFigurePast64BitsIsAnErrorWithItsLineNotTheLibrarysWord) {
    Outcome r = import_log("s.log", "start\n" + replaced(kCacheLine, "4096", "99999999999999999999") + "\n");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(contains(r.err, "s.log:2: the cells figure 99999999999999999999 is beyond 2^63 - 1")) << r.err;
    EXPECT_FALSE(contains(r.err, "stoll")) << r.err;
}

TEST_F(HostileImportLog, RecordsThatCouldNotLintAreRefusedNotWritten) {
    // Each of these was written as a record the lint then refused: a size of "....", 0 cells,
    // and two caches of one scope (two `kv_cache:` keys).
    Outcome dots = import_log("d.log", replaced(kCacheLine, "512.00", "....") + "\n");
    EXPECT_EQ(dots.status, 2) << dots.out;
    EXPECT_TRUE(contains(dots.err, "d.log:1: this line carries an allocation figure but does not read")) << dots.err;
    Outcome version = import_log("v.log", replaced(kCacheLine, "256.00 MiB, V", "2.5.6 MiB, V") + "\n");
    EXPECT_EQ(version.status, 2) << version.out;
    EXPECT_TRUE(contains(version.err, "v.log:1: the K size '2.5.6' is not a number")) << version.err;
    Outcome zero = import_log("z.log", replaced(kCacheLine, "4096 cells", "0 cells") + "\n");
    EXPECT_EQ(zero.status, 2) << zero.out;
    EXPECT_TRUE(contains(zero.err, "z.log:1: 0 cells, where an engine prints at least 1")) << zero.err;
    Outcome two = import_log("t.log", kCacheLine + "\nrestart\n" + kCacheLine + "\n");
    EXPECT_EQ(two.status, 2) << two.out;
    EXPECT_TRUE(contains(two.err, "t.log:3: a second cache of scope all, after the one on line 1")) << two.err;
    Outcome tokens = import_log("g.log",
                                "GPU KV cache size: 1,000 tokens\nAvailable KV cache memory: 1.00 GiB\n"
                                "GPU KV cache size: 2,000 tokens\n");
    EXPECT_EQ(tokens.status, 2) << tokens.out;
    EXPECT_TRUE(contains(tokens.err, "g.log:3: a second tokens figure, where line 1 gave another")) << tokens.err;
}

TEST_F(HostileImportLog, ACommaDecimalAndTerminalColoursReadAsTheEnginePrintedThem) {
    // llama.cpp under a locale with a decimal comma prints "512,00 MiB"; a log pasted from a
    // coloured terminal keeps ESC [ ... m around its lines.
    std::string line = "\x1b[1;32m" + kCacheLine + "\x1b[0m";
    for (const char* at : {"512.00", "256.00", "256.00"}) {
        std::string comma = at;
        comma[3] = ',';
        line = replaced(line, at, comma);
    }
    Outcome r = import_log("c.log", line + "\n");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "  size_mib: 512.00\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "  k_mib: 256.00\n")) << r.out;
    EXPECT_FALSE(contains(r.out, "\x1b")) << r.out;
}

TEST_F(HostileImportLog, EngineNamesAForkOfLlamaCppAndOnlyOverLlamaCppLines) {
    // ik_llama.cpp's logs were all filed as llama.cpp: the record now names the fork, and its
    // lines are still read and checked as llama.cpp's.
    Outcome ik = import_log("ik.log", kCacheLine + "\n", {"--engine", "ik-llama"});
    EXPECT_EQ(ik.status, 0) << ik.err;
    EXPECT_TRUE(contains(ik.out, "\nengine: ik_llama.cpp\n")) << ik.out;
    Outcome vllm = import_log("v.log", "GPU KV cache size: 1,000 tokens\n", {"--engine", "LM Studio"});
    EXPECT_EQ(vllm.status, 2) << vllm.out;
    EXPECT_TRUE(contains(vllm.err, "--engine LM Studio names a fork or an application of llama.cpp")) << vllm.err;
    // The engine the lines are already: taken as read, the record the same as without it.
    Outcome same = import_log("v.log", "GPU KV cache size: 1,000 tokens\n", {"--engine", "vllm"});
    EXPECT_EQ(same.status, 0) << same.err;
    EXPECT_EQ(same.out, import_log("v.log", "GPU KV cache size: 1,000 tokens\n").out);
}

TEST_F(HostileImportLog, ANameOrOptionOfSeveralLinesNeverBecomesKeysOfTheRecord) {
    // A log named "a<LF>url: x.log" wrote "url: x.log..." as a key of the record, which linted.
    Outcome named = import_log("a\nurl: x.log", kCacheLine + "\n");
    EXPECT_EQ(named.status, 2) << named.out;
    EXPECT_EQ(named.out, "");
    EXPECT_TRUE(contains(named.err, "the log's file name gives 'allocations/a\\nurl: x', which holds U+000A"))
        << named.err;
    Outcome url = import_log("s.log", kCacheLine + "\n", {"--url", "https://x/1\nnotes: forged"});
    EXPECT_EQ(url.status, 2) << url.out;
    EXPECT_TRUE(contains(url.err, "--url gives 'https://x/1\\nnotes: forged', which holds U+000A")) << url.err;
    Outcome given = import_log("a\nb.log", kCacheLine + "\n", {"--id", "allocations/ab"});
    EXPECT_EQ(given.status, 0) << given.err;
    EXPECT_TRUE(contains(given.out, "# Written by `kvcat import-log` from a\\nb.log.")) << given.out;
}

}  // namespace
