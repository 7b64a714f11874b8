// The catalog's allocations table: every shipped allocation record is a row, its figures
// read back exactly as printed, and an incremental build writes them again in full.
#include <filesystem>
#include <string>

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
