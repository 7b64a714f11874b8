// Runs the built kvcat binary as a user would.
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "kvcat_runner.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;

using kvcat::test::Outcome;

std::string slurp(const fs::path& p) {
    return kvcat::test::read_file(p);
}

class EndToEnd : public ::testing::Test {
  protected:
    /// Runs kvcat with `args` in a scratch directory holding a copy of records/.
    Outcome kvcat(const std::vector<std::string>& args) { return runner_.run(args); }

    kvcat::test::KvcatRunner runner_;
    fs::path dir_ = runner_.dir();
};

TEST_F(EndToEnd, HeadlineQueryBuildsTheCatalogAndReturnsOneRow) {
    ASSERT_FALSE(fs::exists(dir_ / "kvcat.db"));
    Outcome r = kvcat({"query", "--format", "json", "attention_variant=hybrid", "context_length>64k"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "kvcat.db"));
    auto rows = nlohmann::json::parse(r.out);
    ASSERT_EQ(rows.size(), 1u) << r.out;
    EXPECT_EQ(rows[0]["id"], "kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k");
    EXPECT_EQ(rows[0]["context_length"], 1048576);
    EXPECT_EQ(rows[0]["kv_bytes_per_token"], 10240);
    EXPECT_EQ(rows[0]["kv_cache_dtype"], "fp8_e4m3");  // vLLM's fp8, in the catalog's name
    EXPECT_TRUE(rows[0]["measured_tps_at_ctx"].is_null());
    // The 27B row sits at exactly 64k, which is not above 64k, but is at or above it.
    Outcome at =
        kvcat({"query", "--format", "csv", "--columns", "id", "attention_variant=hybrid", "context_length>=64k"});
    EXPECT_EQ(
        at.out,
        "id\r\nkv-efficiency/llamacpp-qwen35-27b-rtx3090-64k\r\nkv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k\r\n");
}

TEST_F(EndToEnd, ShippedRecordsLintClean) {
    Outcome r = kvcat({"lint"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "");
}

TEST_F(EndToEnd, SeedAsStatedFailsWithTheRightFigure) {
    // Put the seed's own figure back into the shipped record.
    fs::path file = dir_ / "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml";
    std::string text = slurp(file);
    auto at = text.find("kv_bytes_per_token: 65536");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 25, "kv_bytes_per_token: 16384");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    Outcome r = kvcat({"lint"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml:12:21: error: "
                         "[kv-basis-product] 16 x 4 x 256 x 2 x 2 = 65,536, but kv_bytes_per_token is 16,384"),
              std::string::npos)
        << r.out;
}

TEST_F(EndToEnd, BuildWithErrorsWritesNothing) {
    Outcome ok = kvcat({"build"});
    ASSERT_EQ(ok.status, 0) << ok.err;
    std::string before = slurp(dir_ / "kvcat.db");
    std::ofstream(dir_ / "records/kv-efficiency/broken.yaml") << "id: kv-efficiency/broken\n";
    Outcome r = kvcat({"build"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("[schema-missing-key]"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir_ / "kvcat.db"), before);
}

TEST_F(EndToEnd, SqlCannotWriteAndLeavesTheCatalogByteIdentical) {
    ASSERT_EQ(kvcat({"build"}).status, 0);
    std::string before = slurp(dir_ / "kvcat.db");
    Outcome r = kvcat({"sql", "DROP TABLE models"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir_ / "kvcat.db"), before);
    Outcome count = kvcat({"sql", "--format", "csv", "SELECT count(*) AS n FROM models"});
    EXPECT_EQ(count.status, 0);
    EXPECT_EQ(count.out.substr(0, 3), "n\r\n");
}

TEST_F(EndToEnd, SqlRefusesAttachEvenOfADatabaseThatWouldOpen) {
    ASSERT_EQ(kvcat({"build"}).status, 0);
    ASSERT_EQ(kvcat({"build", "--db", "other.db"}).status, 0);
    for (const std::string& sql :
         {std::string("ATTACH DATABASE ':memory:' AS x"), std::string("ATTACH 'other.db' AS x")}) {
        Outcome r = kvcat({"sql", sql});
        EXPECT_EQ(r.status, 2) << sql;
        EXPECT_EQ(r.out, "") << sql;
        EXPECT_NE(r.err.find("writes, ATTACH, load_extension and pragmas that change settings are refused"),
                  std::string::npos)
            << sql << ": " << r.err;
    }
}

/// Runs `kvcat sql ...` in `dir` with its answer thrown away and a 60 s guard: a gigabyte of
/// output must not fill the disk when the limits fail. Returns the status and stderr.
std::pair<int, std::string> sql_to_nowhere(const fs::path& dir, const std::vector<std::string>& args) {
    std::string command = "cd " + kvcat::test::shell_quote(dir.string()) + " && timeout 60 " +
                          kvcat::test::shell_quote(::kvcat::test::kvcat_binary()) + " sql";
    for (const auto& a : args) {
        command += ' ';
        command += kvcat::test::shell_quote(a);
    }
    command += " >/dev/null 2>" + kvcat::test::shell_quote((dir / "sql.err").string());
    int status = kvcat::test::run_shell(command);
    return {status, slurp(dir / "sql.err")};
}

TEST_F(EndToEnd, SqlStopsAGigabyteValueAtTheValueLimit) {
    ASSERT_EQ(kvcat({"build"}).status, 0);
    auto start = std::chrono::steady_clock::now();
    auto [status, err] = sql_to_nowhere(dir_, {"--timeout", "3000", "SELECT zeroblob(1000000000)"});
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(status, 2) << err;
    EXPECT_NE(err.find("larger than the limit of 16777216 bytes on a single value (--max-value-bytes)"),
              std::string::npos)
        << err;
    // Not a speed test: the guard only says the command did not run to the 60 s timeout.
    EXPECT_LT(took, std::chrono::seconds(60));
}

TEST_F(EndToEnd, SqlStopsAnAnswerPastItsByteBudgetOrItsTime) {
    ASSERT_EQ(kvcat({"build"}).status, 0);
    const std::string many =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 2000000) "
        "SELECT x, 'a line of text' FROM c";
    auto [status, err] = sql_to_nowhere(dir_, {"--max-output-bytes", "1000000", many});
    EXPECT_EQ(status, 2) << err;
    EXPECT_NE(err.find("larger than the output limit of 1000000 bytes (--max-output-bytes)"), std::string::npos) << err;
    auto [late, why] = sql_to_nowhere(dir_, {"--timeout", "100", "--max-output-bytes", "100000000000", many});
    EXPECT_EQ(late, 2) << why;
    EXPECT_NE(why.find("ran past its time limit of 100 ms (--timeout)"), std::string::npos) << why;
}

TEST_F(EndToEnd, ARecordLinkedOutOfTheRootIsNeverReadByAnyCommand) {
    // The secret sits beside the records, outside their root; a record file links to it.
    std::ofstream(dir_ / "secret.txt") << "HOST-SECRET-91c2\n";
    fs::create_symlink(dir_ / "secret.txt", dir_ / "records/kv-efficiency/leak.yaml");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"lint"}, std::vector<std::string>{"lint", "records/kv-efficiency/leak.yaml"},
          std::vector<std::string>{"lint", "--format", "json"},
          std::vector<std::string>{"explain", "records/kv-efficiency/leak.yaml"}, std::vector<std::string>{"build"},
          std::vector<std::string>{"query"}}) {
        Outcome r = kvcat(args);
        std::string all = r.out + r.err;
        EXPECT_EQ(all.find("HOST-SECRET"), std::string::npos) << args[0] << " printed the file: " << all;
        EXPECT_NE(all.find("file-outside-root"), std::string::npos) << args[0] << ": " << all;
    }
}

TEST_F(EndToEnd, ARecordUnderAFolderLinkedOutOfTheRootIsNeverReadByAnyCommand) {
    // records/models/sub links to a folder beside the records, which holds a record.
    fs::create_directories(dir_ / "elsewhere");
    std::ofstream(dir_ / "elsewhere" / "s.yaml") << "HOST-SECRET-4d07\n";
    fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "records/models/sub");
    const std::string resolved = fs::canonical(dir_ / "elsewhere").generic_string();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"lint"}, std::vector<std::string>{"lint", "records/models/sub"},
          std::vector<std::string>{"explain", "records/models/sub/s.yaml"}, std::vector<std::string>{"build"}}) {
        Outcome r = kvcat(args);
        std::string all = r.out + r.err;
        EXPECT_EQ(all.find("HOST-SECRET"), std::string::npos) << args[0] << " printed the file: " << all;
        EXPECT_NE(all.find("file-outside-root"), std::string::npos) << args[0] << ": " << all;
        EXPECT_NE(all.find(resolved), std::string::npos) << args[0] << " does not say where the link leads: " << all;
        EXPECT_EQ(all.find("no record"), std::string::npos) << args[0] << ": " << all;
    }
    EXPECT_EQ(kvcat({"lint"}).status, 1);
}

TEST_F(EndToEnd, StaleCatalogIsRebuiltBeforeAQuery) {
    ASSERT_EQ(kvcat({"build"}).status, 0);
    // Add a row; the next query must see it without an explicit build.
    std::string text = slurp(dir_ / "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml");
    auto replace = [&](const std::string& from, const std::string& to) {
        auto at = text.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at, from.size(), to);
    };
    replace("id: kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k", "id: kv-efficiency/copy-32k");
    replace("context_length: 65536", "context_length: 32768");
    std::ofstream(dir_ / "records/kv-efficiency/copy-32k.yaml") << text;
    fs::last_write_time(dir_ / "records/kv-efficiency/copy-32k.yaml",
                        fs::last_write_time(dir_ / "kvcat.db") + std::chrono::seconds(2));
    Outcome r = kvcat({"query", "--format", "csv", "--columns", "id", "context_length=32k"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "id\r\nkv-efficiency/copy-32k\r\n");
}

TEST_F(EndToEnd, FitAnswersInJson) {
    Outcome r = kvcat({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                       "--weight-quant", "Q4_K", "--kv-dtype", "bf16", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["max_context"].get<std::int64_t>(), 65536);
    EXPECT_LT(j["max_context"].get<std::int64_t>(), 131072);
    for (const char* key : {"memory_bytes", "weight_bytes", "fixed_state_bytes", "reserve_bytes",
                            "available_for_kv_bytes", "kv_bytes_per_token"}) {
        EXPECT_TRUE(j.contains(key)) << key;
    }
    // A llama.cpp mix is answered at its base type, a lower bound, and said to be one.
    Outcome mix = kvcat({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                         "--weight-quant", "Q4_K_M", "--kv-dtype", "bf16", "--format", "json"});
    ASSERT_EQ(mix.status, 0) << mix.err;
    auto m = nlohmann::json::parse(mix.out);
    EXPECT_EQ(m["max_context"], j["max_context"]);
    EXPECT_EQ(m["weights_lower_bound"], true);
    EXPECT_EQ(kvcat({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                     "--weight-quant", "Q4_X", "--kv-dtype", "bf16"})
                  .status,
              2);
}

TEST_F(EndToEnd, ExplainShowsWhatWasChecked) {
    Outcome r = kvcat({"explain", "kv-efficiency/vllm-qwen35-35b-hybrid-fp8kv-256k"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("checked, holds  kv_bytes_basis.statement"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("= 10 x 2 x 256 x 2 = 10,240 B/token"), std::string::npos) << r.out;
    Outcome j = kvcat({"explain", "records/kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml", "--format", "json"});
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_EQ(nlohmann::json::parse(j.out)["basis"]["product"], 65536);
    EXPECT_EQ(kvcat({"explain", "kv-efficiency/nope"}).status, 2);
}

TEST_F(EndToEnd, UsageErrorsExitTwo) {
    EXPECT_EQ(kvcat({"query", "nope>1"}).status, 2);
    EXPECT_EQ(kvcat({"lint", "does/not/exist"}).status, 2);
    EXPECT_EQ(kvcat({"frobnicate"}).status, 2);
    Outcome v = kvcat({"--version"});
    EXPECT_EQ(v.status, 0);
    EXPECT_NE(v.out.find("catalog schema " + std::to_string(kvcat::kCatalogSchemaVersion)), std::string::npos) << v.out;
}

}  // namespace
