// import-log's reading of a start-up log: the figures, the settings and the build it prints,
// each from a real log of tests/fixtures/engine-logs/.
#include "import/log_import.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

ParsedLog parse_fixture(const std::string& name) {
    fs::path file = fs::path(KVCAT_FIXTURES_DIR) / "engine-logs" / (name + ".log");
    return parse_engine_log(test::read_file(file), file.filename().string());
}

TEST(LogImport, MainlineLlamaCppBuildIsItsReleaseTag) {
    ParsedLog log = parse_fixture("llamacpp-b5192-qwen3-235b-a22b-q8_0-f16-32k");
    EXPECT_EQ(log.engine, Engine::llamacpp);
    EXPECT_EQ(log.version, "b5192");
}

TEST(LogImport, BuildInfoLinesGiveTheBuildAndCommit) {
    EXPECT_EQ(parse_fixture("llamacpp-b8999-metal-qwen3.5-9b-q4_k_s-q8_0-262k").version, "b8999");
    EXPECT_EQ(parse_fixture("ik-b3748-qwen3-235b-a22b-128k-q4_k_m-q8_0-64k-ub4096").version, "build 3748 (066ed4fd)");
}

TEST(LogImport, TheLaunchCommandGivesTheTensorParallelSize) {
    // SGLang's --tp 4 on the command line the log starts with; before, the record said 1 card.
    ParsedLog sglang = parse_fixture("sglang-qwen3-235b-a22b-fp8-tp4-h100-0.93");
    EXPECT_EQ(sglang.engine, Engine::sglang);
    ASSERT_TRUE(sglang.tensor_parallel);
    EXPECT_EQ(*sglang.tensor_parallel, 4);
    std::string record = allocation_record_text(sglang, "allocations/x", "models/qwen3-235b-a22b", "", "", "", "x.log");
    EXPECT_NE(record.find("  tensor_parallel: 4\n"), std::string::npos) << record;
}

TEST(LogImport, AFigureLineThatDoesNotReadStopsTheImportWithItsLine) {
    std::string text = "llama_kv_cache: size = 4352.00 MiB (131072 cells, 16 layers, 4/1 seqs), K (q8_0): 2176.00\n";
    try {
        parse_engine_log(text, "pasted.log");
        FAIL() << "a cut line was read";
    } catch (const LogError& e) {
        EXPECT_NE(std::string(e.what()).find("pasted.log:1"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace kvcat
