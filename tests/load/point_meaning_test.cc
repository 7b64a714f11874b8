// One meaning per column: where a point's figures go (src/load/point_meaning.cc), and what the
// shipped catalog answers because of it: cached-prefix TTFTs kept out of the TTFT at context,
// fits kept out of the measured columns, multi-card runs found by their card, and a dtype
// family counted member by member.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kvcat_runner.h"
#include "load/point_meaning.h"
#include "test_util.h"
#include "vocab/dtype_spelling.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;
using kvcat::test::copy_tree;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;

MeasurementPoint point_with(double tps, double ttft, double prefill) {
    MeasurementPoint p;
    p.context_length = 131072;
    p.tps = tps;
    p.ttft_ms = ttft;
    p.prefill_tps = prefill;
    return p;
}

TEST(PointMeaning, ACachedPrefixMovesTheTtftAndPrefillButNotTheDecode) {
    KvRow row;
    MeasurementPoint p = point_with(28.4, 900, 12740);
    p.prefix_cached = true;
    PointSpeeds s = point_speeds(row, p);
    EXPECT_FALSE(s.measured_ttft_ms);
    EXPECT_FALSE(s.measured_prefill_tps);
    EXPECT_EQ(s.cached_prefix_ttft_ms, 900);
    EXPECT_EQ(s.cached_prefix_prefill_tps, 12740);
    EXPECT_EQ(s.measured_tps, 28.4);
    p.prefix_cached = false;
    s = point_speeds(row, p);
    EXPECT_EQ(s.measured_ttft_ms, 900);
    EXPECT_FALSE(s.cached_prefix_ttft_ms);
}

TEST(PointMeaning, ADerivedRowFillsOnlyTheDerivedColumns) {
    KvRow row;
    row.provenance = "derived";
    MeasurementPoint p = point_with(149.77, 50, 9000);
    p.total_tps = 1000;
    PointSpeeds s = point_speeds(row, p);
    EXPECT_FALSE(s.measured_tps || s.measured_ttft_ms || s.measured_prefill_tps || s.measured_total_tps);
    EXPECT_EQ(s.derived_tps, 149.77);
    EXPECT_EQ(s.derived_ttft_ms, 50);
    EXPECT_EQ(s.derived_prefill_tps, 9000);
    EXPECT_EQ(s.derived_total_tps, 1000);
}

TEST(PointMeaning, ParallelismAndSpeculationAreShownAsStated) {
    KvRow row;
    EXPECT_FALSE(parallelism_text(row));
    EXPECT_FALSE(speculative_text(row));
    row.tensor_parallel = 2;
    row.pipeline_parallel = 2;
    EXPECT_EQ(parallelism_text(row), "tensor 2 x pipeline 2");
    row.speculative_decoding = "";
    EXPECT_EQ(speculative_text(row), "off");
    row.speculative_decoding = "MTP (NEXTN)";
    EXPECT_EQ(speculative_text(row), "MTP (NEXTN)");
}

TEST(DtypeSpelling, VllmFp8IsE4m3AndTheSynonymsAreOneName) {
    EXPECT_EQ(catalog_dtype("vLLM", "fp8"), "fp8_e4m3");
    EXPECT_EQ(catalog_dtype("TensorRT-LLM", "fp8"), "fp8");  // no cited meaning: kept
    EXPECT_EQ(catalog_dtype("llama.cpp", "fp16"), "f16");
    EXPECT_EQ(catalog_dtype("SGLang", "fp8_e5m2"), "fp8_e5m2");
    auto fp8 = dtype_family("fp8");
    EXPECT_EQ(std::vector<std::string_view>(fp8.begin(), fp8.end()),
              (std::vector<std::string_view>{"fp8", "fp8_e4m3", "fp8_e5m2"}));
    EXPECT_TRUE(dtype_family("q8_0").empty());
}

/// The CSV rows of a query, header dropped, each split at its commas.
std::vector<std::vector<std::string>> csv_rows(const std::string& out) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(out);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();  // CSV lines end in CR LF
        if (line.empty() || line.front() == '(') continue;
        std::vector<std::string> cells;
        std::stringstream cells_in(line);
        for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
        rows.push_back(cells);
    }
    return rows;
}

class ShippedMeaning : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        runner_ = new KvcatRunner(false);
        copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", runner_->dir() / "records");
        Outcome built = runner_->run({"build"});
        ASSERT_EQ(built.status, 0) << built.err;
    }
    static void TearDownTestSuite() {
        delete runner_;
        runner_ = nullptr;
    }
    static std::vector<std::vector<std::string>> query(const std::vector<std::string>& args,
                                                       std::string* err = nullptr) {
        std::vector<std::string> full = {"query", "--format", "csv"};
        full.insert(full.end(), args.begin(), args.end());
        Outcome r = runner_->run(full);
        EXPECT_EQ(r.status, 0) << r.err;
        if (err) *err = r.err;
        return csv_rows(r.out);
    }
    static KvcatRunner* runner_;
};
KvcatRunner* ShippedMeaning::runner_ = nullptr;

TEST_F(ShippedMeaning, AFourCardRunIsFoundByItsCardWithGpusFour) {
    auto rows = query({"--columns", "record_id,gpus,parallelism", "accelerator=nvidia-rtx-pro-6000-blackwell-server"});
    ASSERT_FALSE(rows.empty());
    std::set<std::string> records;
    for (const auto& r : rows) {
        ASSERT_EQ(r.size(), 3u);
        EXPECT_EQ(r[1], "4") << r[0];
        EXPECT_EQ(r[2], "tensor 4") << r[0];
        records.insert(r[0]);
    }
    EXPECT_TRUE(records.count("kv-efficiency/sglang-qwen35-397b-a17b-4x-rtxpro6000-awq-int4-fp8-e4m3"));
    // The vLLM-vs-SGLang pairs ran on the same four Server Edition cards (their source's README).
    EXPECT_TRUE(records.count("kv-efficiency/vllm-qwen3.5-397b-a17b-4x-rtxpro6000-nvfp4-bf16-vs-mtp"));
    EXPECT_TRUE(records.count("kv-efficiency/sglang-qwen35-397b-a17b-4x-rtxpro6000-nvfp4-fp8-e4m3-vs-nomtp"));
    EXPECT_EQ(records.size(), 8u);
    // The default columns show the count.
    Outcome plain = runner_->run({"query", "--format", "csv", "accelerator=nvidia-rtx-pro-6000-blackwell-server"});
    EXPECT_TRUE(plain.out.starts_with("id,model,card,gpus,")) << plain.out.substr(0, 200);
}

TEST_F(ShippedMeaning, TheCachedPrefixTtftsAreOutOfTheTtftAtContext) {
    auto cached = query({"--columns", "id,measured_ttft_ms_at_ctx,cached_prefix_ttft_ms", "prefix_cached=1",
                         "cached_prefix_ttft_ms!=null"});
    // 30 SGLang TTFTs over a radix-cached context, and the 11 vLLM runs of random prompts whose
    // engine lines print a prefix-cache hit rate above zero (dennislee22/vLLM-benchmarking).
    EXPECT_EQ(cached.size(), 41u);
    for (const auto& r : cached) EXPECT_EQ(r[1], "") << r[0];
    auto partly = query({"--columns", "id", "prefix_cached=1", "record_id~*dennislee*"});
    EXPECT_EQ(partly.size(), 11u);
    // The headline "TTFT at context" of the deepest points holds full prefills only: the
    // 900 ms cached TTFT at 128k is not among them.
    auto deep =
        query({"--columns", "id,measured_ttft_ms_at_ctx", "context_length>=128k", "measured_ttft_ms_at_ctx<5000"});
    for (const auto& r : deep) ADD_FAILURE() << "a sub-prefill TTFT at 128k: " << r[0] << " " << r[1];
}

/// A row whose id names several cards shows the card and the count in the default columns,
/// even when no one accelerator record applies (an edition its source leaves unsaid).
TEST_F(ShippedMeaning, EveryMultiCardRowShowsItsCardAndCount) {
    std::set<std::string> without_card;
    for (const auto& r : query({"--columns", "id,engine", "card=null"})) without_card.insert(r[0]);
    auto rows = query({"--columns", "id,gpus,engine"});
    ASSERT_FALSE(rows.empty());
    std::size_t multi = 0;
    const std::regex several("-[0-9]+x-");
    for (const auto& r : rows) {
        ASSERT_EQ(r.size(), 3u) << r[0];
        if (!std::regex_search(r[0], several) && r[1] == "1") continue;
        ++multi;
        EXPECT_NE(r[1], "1") << r[0];
        EXPECT_FALSE(without_card.count(r[0])) << r[0] << ": a multi-card row with no card";
    }
    EXPECT_GT(multi, 500u);
    // The Kimi-K2.6 and carve rows name the card as their source does: no one record applies.
    EXPECT_FALSE(query({"--columns", "id,engine", "accelerator=null", "accelerator_named!=null", "gpus>1"}).empty());
    Outcome plain = runner_->run({"query", "--format", "csv", "attention_variant=hybrid", "context_length>64k"});
    EXPECT_NE(plain.out.find(",RTX PRO 6000 Blackwell,4,"), std::string::npos) << plain.out;
}

/// The fastest decode speeds in the catalog are MTP runs: a sort on speed marks them (the
/// column is among the defaults; CmdQuery.DefaultColumnsShowTheConcurrency holds that).
TEST_F(ShippedMeaning, SpeculativeSpeedsAreMarkedInTheDefaultColumns) {
    auto rows = query({"--columns", "id,speculative,engine", "--sort", "-measured_tps_at_ctx", "--limit", "5",
                       "measured_tps_at_ctx!=null"});
    ASSERT_EQ(rows.size(), 5u);
    std::size_t on = 0;
    for (const auto& r : rows) on += r[1] == "on" ? 1 : 0;
    EXPECT_GT(on, 0u);
    // on is every method the records name; off is the source saying none.
    for (const auto& r : query({"--columns", "id,speculative_decoding", "speculative=on"})) {
        EXPECT_NE(r[1], "off") << r[0];
        EXPECT_NE(r[1], "") << r[0];
    }
}

TEST_F(ShippedMeaning, NoFitIsReturnedByASortOnMeasuredSpeed) {
    auto rows = query({"--columns", "id,provenance,measured_tps_at_ctx", "context_length>=32k", "measured_tps_at_ctx>0",
                       "--sort", "measured_tps_at_ctx", "--desc"});
    ASSERT_FALSE(rows.empty());
    for (const auto& r : rows) EXPECT_NE(r[1], "derived") << r[0];
    auto fits = query({"--columns", "id,derived_tps_at_ctx", "provenance=derived"});
    ASSERT_FALSE(fits.empty());
    for (const auto& r : fits) EXPECT_NE(r[1], "") << r[0];
}

TEST_F(ShippedMeaning, Fp8IsAFamilyAndSaysWhatEachMemberGave) {
    std::string err;
    auto rows = query({"--columns", "id,kv_cache_dtype,written_kv_cache_dtype", "kv_cache_dtype=fp8"}, &err);
    ASSERT_FALSE(rows.empty());
    std::size_t e4m3 = 0, written_fp8 = 0;
    for (const auto& r : rows) {
        if (r[1] == "fp8_e4m3") ++e4m3;
        if (r[2] == "fp8") ++written_fp8;
    }
    EXPECT_EQ(e4m3, rows.size());  // vLLM's fp8 is named fp8_e4m3 in the catalog
    EXPECT_GT(written_fp8, 0u);    // and keeps its spelling
    std::string counted = "'kv_cache_dtype=fp8' is the family fp8: fp8 0 rows, fp8_e4m3 " + std::to_string(e4m3) +
                          " rows, fp8_e5m2 0 rows";
    EXPECT_NE(err.find(counted), std::string::npos) << err;
    // The catalog's name finds the same rows.
    EXPECT_EQ(query({"--columns", "id", "kv_cache_dtype=fp8_e4m3"}).size(), e4m3);
}

}  // namespace
}  // namespace kvcat
