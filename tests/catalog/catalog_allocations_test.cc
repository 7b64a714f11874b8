// The catalog's allocations table: every shipped allocation record is a row, its figures
// read back exactly as printed, and an incremental build writes them again in full; `kvcat
// query --allocations` lists and filters them with kvcat's figure beside the printed one.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::test::contains;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;
using kvcat::test::read_file;
using kvcat::test::write_file;

class CatalogAllocations : public ::testing::Test {
  protected:
    void SetUp() override {
        fs::remove_all(k_.dir() / "records");
        fs::copy(fs::path(KVCAT_SOURCE_DIR) / "records", k_.dir() / "records", fs::copy_options::recursive);
        for (const auto& e : fs::directory_iterator(k_.dir() / "records/allocations")) {
            if (e.path().extension() == ".yaml") ++files_;
        }
        ASSERT_GE(files_, 1);
    }

    std::string count() const { return k_.run({"sql", "--format", "csv", "SELECT count(*) FROM allocations"}).out; }

    KvcatRunner k_;
    int files_ = 0;
};

TEST_F(CatalogAllocations, EveryRecordIsARowWithItsFiguresAsPrinted) {
    Outcome built = k_.run({"build"});
    ASSERT_EQ(built.status, 0) << built.err;
    EXPECT_TRUE(contains(built.err, "and " + std::to_string(files_) + " allocation records")) << built.err;
    EXPECT_EQ(count(), "count(*)\r\n" + std::to_string(files_) + "\r\n");
    // The figure a reader looks up is the text of the record, two decimals and all.
    const std::string id = "allocations/vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-40g-0.5";
    std::string text = read_file(k_.dir() / "records" / (id + ".yaml"));
    ASSERT_TRUE(contains(text, "  concurrency: 25.20\n")) << text;
    Outcome row = k_.run({"sql", "--format", "csv",
                          "SELECT engine, engine_version, json_extract(parts, '$.vllm.concurrency'), "
                          "json_extract(parts, '$.vllm.tokens') FROM allocations WHERE id = '" +
                              id + "'"});
    ASSERT_EQ(row.status, 0) << row.err;
    EXPECT_TRUE(contains(row.out, "vllm,0.10.1.1,25.20,412944")) << row.out;
}

TEST_F(CatalogAllocations, AnIncrementalBuildWritesThemAgainInFull) {
    ASSERT_EQ(k_.run({"build"}).status, 0);
    const fs::path one = k_.dir() / "records/allocations/vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-40g-0.5.yaml";
    write_file(one, read_file(one) + "# reviewed\n");
    Outcome again = k_.run({"build"});
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(count(), "count(*)\r\n" + std::to_string(files_) + "\r\n");
    fs::remove(one);
    ASSERT_EQ(k_.run({"build"}).status, 0);
    EXPECT_EQ(count(), "count(*)\r\n" + std::to_string(files_ - 1) + "\r\n");
}

}  // namespace

namespace {

using nlohmann::json;

/// The rows of `kvcat query --allocations ARGS --format json`, each an object by column.
json allocation_rows(const KvcatRunner& k, std::vector<std::string> args) {
    std::vector<std::string> all = {"query", "--allocations", "--format", "json"};
    all.insert(all.end(), args.begin(), args.end());
    Outcome r = k.run(all);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json::array();
}

const json* row_of(const json& rows, const std::string& id) {
    for (const auto& row : rows) {
        if (row["id"] == id) return &row;
    }
    return nullptr;
}

TEST_F(CatalogAllocations, QueryListsEachRecordWithWhatTheEnginePrintedAndKvcatsFigure) {
    json rows = allocation_rows(k_, {});
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(files_));
    std::vector<std::string> columns;
    for (const auto& [name, value] : rows[0].items()) columns.push_back(name);
    std::sort(columns.begin(), columns.end());
    EXPECT_EQ(columns, (std::vector<std::string>{"computed", "context", "engine", "engine_version", "id",
                                                 "kv_cache_dtype", "model", "printed", "seqs", "url"}));
    // vLLM: the printed tokens beside the range the printed GiB's rounding leaves.
    const json* vllm = row_of(rows, "allocations/vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25");
    ASSERT_TRUE(vllm);
    EXPECT_EQ((*vllm)["model"], "models/qwen2-7b-instruct");
    EXPECT_EQ((*vllm)["engine_version"], "0.10.1.1");
    EXPECT_EQ((*vllm)["kv_cache_dtype"], "bf16");  // auto, with the model's bfloat16 in the log
    EXPECT_EQ((*vllm)["context"], 16384);
    EXPECT_EQ((*vllm)["printed"], "93,872 tokens");
    EXPECT_EQ((*vllm)["computed"], "93,712 to 93,888 tokens");
    // llama.cpp ISWA: both caches, as printed and as recomputed.
    const json* iswa = row_of(rows, "allocations/llamacpp-hexagon-doc-gpt-oss-20b-q4_0-iswa-q8_0-8k");
    ASSERT_TRUE(iswa);
    EXPECT_EQ((*iswa)["kv_cache_dtype"], "q8_0");
    EXPECT_EQ((*iswa)["context"], 8192);
    EXPECT_EQ((*iswa)["seqs"], 1);
    EXPECT_EQ((*iswa)["printed"], "102.00 + 3.19 MiB");
    EXPECT_EQ((*iswa)["computed"], "102.00 + 3.19 MiB");
    // A line that printed no types is shown as printed, and not as recomputed.
    const json* untyped = row_of(rows, "allocations/lmstudio-metal-2.14.0-qwen3.6-27b-q8-262k-4seq");
    ASSERT_TRUE(untyped);
    EXPECT_EQ((*untyped)["printed"], "16384.00 + 598.50 MiB");
    EXPECT_TRUE((*untyped)["computed"].is_null());
    EXPECT_EQ((*untyped)["seqs"], 4);
}

TEST_F(CatalogAllocations, QueryFiltersAllocationsAsItFiltersRows) {
    json qwen2 = allocation_rows(k_, {"engine=vllm", "model=qwen2-7b-instruct"});
    std::size_t want = 0;  // the same rows, counted here among all of them
    for (const auto& row : allocation_rows(k_, {"--columns", "id,engine,model"})) {
        want += row["engine"] == "vllm" && row["model"] == "models/qwen2-7b-instruct" ? 1 : 0;
    }
    ASSERT_GE(want, 3u);
    ASSERT_EQ(qwen2.size(), want);
    for (const auto& row : qwen2) EXPECT_EQ(row["model"], "models/qwen2-7b-instruct") << row;
    // A dtype family is each of its members; a number takes k; an id may leave out its folder.
    std::set<std::string> fp8;
    for (const auto& row : allocation_rows(k_, {"kv_cache_dtype=fp8"})) fp8.insert(row["kv_cache_dtype"]);
    EXPECT_EQ(fp8, (std::set<std::string>{"fp8_e4m3", "fp8_e5m2"}));
    json long_context = allocation_rows(k_, {"context>=256k"});
    ASSERT_FALSE(long_context.empty());
    for (const auto& row : long_context) EXPECT_GE(row["context"].get<std::int64_t>(), 262144);
    json one = allocation_rows(k_, {"id=sglang-qwen3-235b-a22b-fp8-tp4-h100-0.93", "--columns", "id,tokens,printed"});
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0]["tokens"], 367404);
    EXPECT_EQ(one[0]["printed"], "8.23 + 8.23 GB");
    // Sorted by a column, and cut to a limit that says how many it left out.
    Outcome limited = k_.run(
        {"query", "--allocations", "--format", "csv", "--columns", "id,tokens", "--sort", "-tokens", "--limit", "2"});
    ASSERT_EQ(limited.status, 0) << limited.err;
    // The two with the most tokens, found here in every row's JSON.
    std::vector<std::pair<std::int64_t, std::string>> by_tokens;
    for (const auto& row : allocation_rows(k_, {"--columns", "id,tokens"})) {
        if (row["tokens"].is_number()) by_tokens.emplace_back(row["tokens"].get<std::int64_t>(), row["id"]);
    }
    ASSERT_GE(by_tokens.size(), 3u);
    std::sort(by_tokens.begin(), by_tokens.end(), std::greater<>());
    ASSERT_GT(by_tokens[1].first, by_tokens[2].first);  // no tie at the cut
    EXPECT_EQ(limited.out, fmt::format("id,tokens\r\n{},{}\r\n{},{}\r\n", by_tokens[0].second, by_tokens[0].first,
                                       by_tokens[1].second, by_tokens[1].first));
    EXPECT_TRUE(contains(limited.err, "the first 2 of " + std::to_string(files_) + " rows")) << limited.err;
    // A kv_rows column is not one of the allocations', and the error lists theirs.
    Outcome wrong = k_.run({"query", "--allocations", "accelerator=nvidia-h100"});
    EXPECT_NE(wrong.status, 0);
    EXPECT_TRUE(contains(wrong.err, "unknown column 'accelerator'")) << wrong.err;
    EXPECT_TRUE(contains(wrong.err, "valid columns of --allocations: id, model, engine")) << wrong.err;
    // Without --allocations the query still reads the kv-efficiency rows.
    Outcome rows = k_.run({"query", "--format", "csv", "--columns", "id", "id~allocations/*"});
    ASSERT_EQ(rows.status, 0) << rows.err;
    EXPECT_EQ(rows.out, "id\r\n");
}

// tools/catalog-stats counts the allocation records the catalog holds, read from their folder.
TEST_F(CatalogAllocations, CatalogStatsCountsThemAsTheCatalogDoes) {
    const fs::path out = k_.dir() / "stats.txt";
    std::string cmd = kvcat::test::shell_quote(KVCAT_PYTHON3) + " " +
                      kvcat::test::shell_quote((fs::path(KVCAT_SOURCE_DIR) / "tools/catalog-stats").string()) + " " +
                      kvcat::test::shell_quote((k_.dir() / "records").string()) + " >" +
                      kvcat::test::shell_quote(out.string()) + " 2>&1";
    ASSERT_EQ(kvcat::test::run_shell(cmd), 0) << read_file(out);
    std::string stats = read_file(out);
    auto at = stats.find("\nallocation records ");
    ASSERT_NE(at, std::string::npos) << stats;
    std::string line = stats.substr(at + 1, stats.find('\n', at + 1) - at - 1);
    std::string count = line.substr(line.find_first_of("0123456789"));
    count = count.substr(0, count.find(' '));
    EXPECT_EQ(count, std::to_string(files_)) << line;
    EXPECT_TRUE(contains(stats, "allocation records read from: records/allocations")) << stats;
    ASSERT_EQ(k_.run({"build"}).status, 0);
    EXPECT_EQ(this->count(), "count(*)\r\n" + count + "\r\n");
}

// A record holds no control character (yaml-encoding refuses one), so what a hostile record can
// put in a cell is a formula: CSV and TSV write it as text unless --no-formula-guard.
TEST_F(CatalogAllocations, QueryNeutralisesAFormulaInAnAllocationCell) {
    const fs::path file = k_.dir() / "records/allocations/llamacpp-hexagon-doc-gpt-oss-20b-q4_0-iswa-q8_0-8k.yaml";
    std::string text = read_file(file);
    auto at = text.find("engine_version: null");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 20, "engine_version: \"=HYPERLINK(\\\"http://attacker.example\\\", \\\"b1\\\")\"");
    write_file(file, text);
    Outcome lint = k_.run({"lint"});
    ASSERT_EQ(lint.status, 0) << lint.out << lint.err;
    const std::vector<std::string> query = {"query", "--allocations", "--columns", "engine_version",
                                            "id=llamacpp-hexagon-doc-gpt-oss-20b-q4_0-iswa-q8_0-8k"};
    std::vector<std::string> csv = query;
    csv.insert(csv.end(), {"--format", "csv"});
    Outcome guarded = k_.run(csv);
    ASSERT_EQ(guarded.status, 0) << guarded.err;
    EXPECT_EQ(guarded.out, "engine_version\r\n\"'=HYPERLINK(\"\"http://attacker.example\"\", \"\"b1\"\")\"\r\n");
    std::vector<std::string> tsv = query;
    tsv.insert(tsv.end(), {"--format", "tsv"});
    EXPECT_EQ(k_.run(tsv).out, "engine_version\n'=HYPERLINK(\"http://attacker.example\", \"b1\")\n");
    csv.push_back("--no-formula-guard");
    EXPECT_EQ(k_.run(csv).out, "engine_version\r\n\"=HYPERLINK(\"\"http://attacker.example\"\", \"\"b1\"\")\"\r\n");
}

}  // namespace
