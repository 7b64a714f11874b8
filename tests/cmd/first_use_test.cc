// What a new user meets first, each trap they fell into and the behaviour that replaced it:
// query's limits, sort keys and id order, --distinct, id= of a record with points, the
// default columns and the 80-column table; fit and curve with a llama.cpp mix, the KV at each
// context, several cards; messages that say what to do; -q and machine-readable output;
// import-bench --select. All on the shipped records, as a user runs them.
#include <algorithm>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kvcat_runner.h"

namespace kvcat::test {
namespace {

/// A runner in a folder holding a copy of today's records.
class FirstUse : public ::testing::Test {
  protected:
    FirstUse() { copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", k_.dir() / "records"); }
    KvcatRunner k_{false};
};

/// The lines of `text`, without the CR that CSV (RFC 4180) ends a line with.
std::vector<std::string> output_lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (!out.back().empty() && out.back().back() == '\r') out.back().pop_back();
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return out;
}

// ---- query ----

TEST_F(FirstUse, LimitKeepsTheFirstRowsAndSaysHowManyThereWere) {
    Outcome all = k_.run({"query", "--format", "csv", "--columns", "id"});
    ASSERT_EQ(all.status, 0) << all.err;
    std::size_t total = output_lines(all.out).size() - 1;
    ASSERT_GT(total, 10u);
    Outcome five = k_.run({"query", "--format", "csv", "--columns", "id", "--limit", "5"});
    ASSERT_EQ(five.status, 0) << five.err;
    auto rows = output_lines(five.out);
    ASSERT_EQ(rows.size(), 6u) << five.out;  // the header and five rows
    auto first = output_lines(all.out);
    EXPECT_TRUE(std::equal(rows.begin(), rows.end(), first.begin())) << five.out;
    EXPECT_NE(five.err.find("the first 5 of " + std::to_string(total) + " rows (--limit 5)"), std::string::npos)
        << five.err;
    EXPECT_NE(k_.run({"query", "--limit", "0"}).status, 0);
}

TEST_F(FirstUse, IdsSortByTheirContextAsANumber) {
    Outcome r = k_.run({"query", "--format", "csv", "--columns", "id,context_length",
                        "record_id=ollama-qwen3.5-27b-rtx4090-q4_k_m-q8_0-tianchengwu"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = output_lines(r.out);
    ASSERT_GE(rows.size(), 5u) << r.out;
    std::vector<long long> contexts;
    for (std::size_t i = 1; i < rows.size(); ++i) contexts.push_back(std::stoll(rows[i].substr(rows[i].find(',') + 1)));
    EXPECT_TRUE(std::is_sorted(contexts.begin(), contexts.end())) << r.out;
    // As text, @16k would come before @1k and @4k.
    EXPECT_LT(r.out.find("@1k,"), r.out.find("@4k,")) << r.out;
    EXPECT_LT(r.out.find("@4k,"), r.out.find("@16k,")) << r.out;
}

TEST_F(FirstUse, SeveralSortKeysEachWithItsDirection) {
    Outcome r = k_.run({"query", "--format", "csv", "--columns", "context_length,measured_tps_at_ctx", "--sort",
                        "context_length,-measured_tps_at_ctx", "measured_tps_at_ctx!=null"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = output_lines(r.out);
    ASSERT_GT(rows.size(), 10u);
    std::vector<std::pair<long long, double>> seen;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        auto comma = rows[i].find(',');
        seen.emplace_back(std::stoll(rows[i].substr(0, comma)), std::stod(rows[i].substr(comma + 1)));
    }
    for (std::size_t i = 1; i < seen.size(); ++i) {
        ASSERT_LE(seen[i - 1].first, seen[i].first) << r.out;
        if (seen[i - 1].first == seen[i].first) {
            EXPECT_GE(seen[i - 1].second, seen[i].second) << r.out;
        }
    }
    Outcome bad = k_.run({"query", "--sort", "context_length,-nope"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("unknown column 'nope'"), std::string::npos) << bad.err;
}

TEST_F(FirstUse, DistinctListsTheValuesInUseWithTheirCounts) {
    Outcome r = k_.run({"query", "--format", "csv", "--distinct", "engine"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = output_lines(r.out);
    ASSERT_GE(rows.size(), 3u) << r.out;
    EXPECT_EQ(rows[0], "engine,rows");
    // The counts add up to the catalog's rows, the commonest first.
    Outcome all = k_.run({"query", "--format", "csv", "--columns", "id"});
    long long sum = 0, previous = -1;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        long long n = std::stoll(rows[i].substr(rows[i].rfind(',') + 1));
        if (previous >= 0) {
            EXPECT_LE(n, previous) << r.out;
        }
        previous = n;
        sum += n;
    }
    EXPECT_EQ(sum, static_cast<long long>(output_lines(all.out).size() - 1));
    // With a filter, among the rows it keeps.
    Outcome hybrid =
        k_.run({"query", "--format", "csv", "--distinct", "attention_variant", "attention_variant=hybrid"});
    EXPECT_EQ(output_lines(hybrid.out).size(), 2u) << hybrid.out;
}

TEST_F(FirstUse, IdOfARecordWithPointsFindsItsPoints) {
    const std::string id = "kv-efficiency/ollama-qwen3.5-27b-rtx4090-q4_k_m-q8_0-tianchengwu";
    Outcome by_id = k_.run({"query", "--format", "csv", "--columns", "id", "id=" + id});
    ASSERT_EQ(by_id.status, 0) << by_id.err;
    Outcome by_record = k_.run({"query", "--format", "csv", "--columns", "id", "record_id=" + id});
    EXPECT_GE(output_lines(by_id.out).size(), 6u) << by_id.out;
    EXPECT_EQ(by_id.out, by_record.out);
    // A point by its own id is that row alone, and != leaves out the record's points.
    Outcome one = k_.run({"query", "--format", "csv", "--columns", "id", "id=" + id + "@4k"});
    EXPECT_EQ(one.out, "id\r\n" + id + "@4k\r\n");
    Outcome rest = k_.run({"query", "--format", "csv", "--columns", "id", "id!=" + id});
    EXPECT_EQ(rest.out.find(id), std::string::npos);
}

TEST_F(FirstUse, DefaultColumnsNameTheModelAndTheWeights) {
    Outcome r = k_.run({"query", "--format", "csv", "--limit", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string header = output_lines(r.out)[0];
    EXPECT_NE(header.find(",model,"), std::string::npos) << header;
    EXPECT_NE(header.find(",weight_quant,"), std::string::npos) << header;
}

TEST_F(FirstUse, AtEightyColumnsTheHeadlineQueryKeepsTheBytesPerTokenAndSaysWhatWent) {
    Outcome r = k_.run_on_terminal({"query", "attention_variant=hybrid", "context_length>64k"}, {"COLUMNS=80"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string out = std::regex_replace(r.out, std::regex("\r"), "");
    for (const auto& line : output_lines(out)) EXPECT_LE(line.size(), 80u + 8) << line;  // an ellipsis is 3 bytes
    std::string header = output_lines(out)[0];
    // What the headline question asks stays: the row, its cache dtype and context, the bytes.
    EXPECT_NE(header.find("kv_bytes_per_token"), std::string::npos) << out;
    EXPECT_NE(header.find("context_length"), std::string::npos) << out;
    EXPECT_NE(header.find("kv_cache_dtype"), std::string::npos) << out;
    // At 110 columns the decode speed fits beside them.
    Outcome wider = k_.run_on_terminal({"query", "attention_variant=hybrid", "context_length>64k"}, {"COLUMNS=110"});
    EXPECT_NE(output_lines(wider.out)[0].find("measured_tps_at_ctx"), std::string::npos) << wider.out;
    // What went, in the order it went, under the table.
    EXPECT_NE(out.find("left out to fit the window, in this order: "), std::string::npos) << out;
    auto ttft = out.find("measured_ttft_ms_at_ctx,");
    auto model = out.find("model");
    EXPECT_NE(ttft, std::string::npos) << out;
    EXPECT_LT(ttft, out.find("weight_quant", ttft)) << out;
    EXPECT_NE(model, std::string::npos);
}

// ---- fit and curve ----

TEST_F(FirstUse, FitTakesALlamaCppMixAsALowerBoundAndSaysSo) {
    Outcome mix = k_.run({"fit", "--model", "deepseek-v2-lite", "--accelerator", "nvidia-rtx-3090", "--weight-quant",
                          "Q4_K_M", "--kv-dtype", "bf16"});
    ASSERT_EQ(mix.status, 0) << mix.err;
    Outcome base = k_.run({"fit", "--model", "deepseek-v2-lite", "--accelerator", "nvidia-rtx-3090", "--weight-quant",
                           "Q4_K", "--kv-dtype", "bf16"});
    // The same figures as its base type, said to be a lower bound, with its source and the way
    // to the real size.
    auto largest = [](const std::string& text) {
        auto at = text.find("= largest context");
        return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
    };
    EXPECT_FALSE(largest(mix.out).empty()) << mix.out;
    EXPECT_EQ(largest(mix.out), largest(base.out));
    EXPECT_NE(mix.out.find("at least: all parameters x 4.5 bits / 8, Q4_K throughout"), std::string::npos) << mix.out;
    EXPECT_NE(mix.out.find("Q4_K_M is llama.cpp's mix of Q4_K"), std::string::npos) << mix.out;
    EXPECT_NE(mix.out.find("src/llama-quant.cpp"), std::string::npos) << mix.out;
    EXPECT_NE(mix.out.find("--weight-file FILE.gguf, or --weight-bytes N"), std::string::npos) << mix.out;
    Outcome as_json = k_.run({"fit", "--model", "deepseek-v2-lite", "--accelerator", "nvidia-rtx-3090",
                              "--weight-quant", "q5_k_s", "--kv-dtype", "bf16", "--format", "json"});
    ASSERT_EQ(as_json.status, 0) << as_json.err;
    auto j = nlohmann::json::parse(as_json.out);
    EXPECT_EQ(j["weights_lower_bound"], true);
    Outcome unknown = k_.run({"fit", "--model", "deepseek-v2-lite", "--accelerator", "nvidia-rtx-3090",
                              "--weight-quant", "Q4_X", "--kv-dtype", "bf16"});
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("For the real size give --weight-file FILE.gguf or --weight-bytes N"), std::string::npos)
        << unknown.err;
}

TEST_F(FirstUse, FitShowsTheKvAtEachContextOnALineOfItsOwn) {
    Outcome r = k_.run({"fit", "--model", "llama-3.1-8b", "--accelerator", "nvidia-rtx-3090", "--weight-quant", "Q8_0",
                        "--kv-dtype", "bf16", "--contexts", "8k"});
    ASSERT_EQ(r.status, 0) << r.err;
    // Llama-3.1-8B at bf16: 32 layers x 8 heads x 128 x 2 x 2 = 131,072 bytes a token; 8,192
    // tokens hold 1 GiB.
    EXPECT_NE(r.out.find("8,192 tokens  KV cache          1,073,741,824 bytes  (1.00 GiB)"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("+ weights, fixed state, reserve = "), std::string::npos) << r.out;
}

TEST_F(FirstUse, FitOnSeveralCardsSaysWhichRunIt) {
    Outcome r =
        k_.run({"fit", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090,nvidia-rtx-4090,apple-m4-max",
                "--weight-quant", "Q8_0", "--kv-dtype", "bf16"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = output_lines(r.out);
    ASSERT_GE(rows.size(), 4u) << r.out;
    EXPECT_NE(rows[0].find("of 3 cards run it"), std::string::npos) << r.out;
    // 27B at 8.5 bits is 28.7 GB: not on a 24 GB card; the M4 Max has more memory.
    EXPECT_NE(r.out.find("accelerators/nvidia-rtx-3090  does not fit: the weights alone need"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("accelerators/apple-m4-max     largest context"), std::string::npos) << r.out;
    Outcome one = k_.run({"fit", "--model", "qwen3.5-27b", "--accelerator", "apple-m4-max", "--weight-quant", "Q8_0",
                          "--kv-dtype", "bf16", "--format", "json"});
    auto j = nlohmann::json::parse(one.out);
    std::string context = std::to_string(j["max_context"].get<long long>());
    std::string grouped;
    for (std::size_t i = 0; i < context.size(); ++i) {
        if (i && (context.size() - i) % 3 == 0) grouped += ',';
        grouped += context[i];
    }
    EXPECT_NE(r.out.find("largest context " + std::string(11 - grouped.size(), ' ') + grouped), std::string::npos)
        << r.out << grouped;
    Outcome none = k_.run({"fit", "--model", "qwen3.5-397b-a17b", "--accelerator", "nvidia-rtx-3090,nvidia-rtx-4090",
                           "--weight-quant", "Q8_0", "--kv-dtype", "bf16"});
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.out.find("0 of 2 cards run it"), std::string::npos) << none.out;
}

TEST_F(FirstUse, CurveSpreadsTheModelOverGpus) {
    // Llama-3.1-70B at Q4_K is 39.7 GB: on no single 24 GB card, on four of them.
    std::vector<std::string> args = {"curve",
                                     "--model",
                                     "llama-3.1-70b",
                                     "--accelerator",
                                     "nvidia-rtx-4090",
                                     "--weight-quant",
                                     "Q4_K",
                                     "--contexts",
                                     "8k",
                                     "--format",
                                     "csv"};
    Outcome one = k_.run(args);
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_NE(one.out.find(",fits_nvidia-rtx-4090\r\n"), std::string::npos) << one.out;
    EXPECT_TRUE(one.out.ends_with(",no\r\n")) << one.out;
    args.insert(args.end(), {"--gpus", "4"});
    Outcome four = k_.run(args);
    ASSERT_EQ(four.status, 0) << four.err;
    EXPECT_NE(four.out.find(",fits_4x_nvidia-rtx-4090\r\n"), std::string::npos) << four.out;
    EXPECT_TRUE(four.out.ends_with(",yes\r\n")) << four.out;
}

// ---- messages ----

TEST_F(FirstUse, ACopiedCheckoutIsToldToRunKvcatBuild) {
    ASSERT_EQ(k_.run({"build"}).status, 0);
    // The checkout copied elsewhere: its catalog remembers the first folder.
    KvcatRunner copy(false);
    copy_tree(k_.dir() / "records", copy.dir() / "records");
    fs::copy_file(k_.dir() / "kvcat.db", copy.dir() / "kvcat.db");
    Outcome r = copy.run({"query", "engine=vllm"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("run `kvcat build`"), std::string::npos) << r.err;
    ASSERT_EQ(copy.run({"build"}).status, 0);
    EXPECT_EQ(copy.run({"query", "engine=vllm"}).status, 0);
}

TEST_F(FirstUse, ADbInAMissingFolderOrAFolderAsDbSaysWhatToDo) {
    Outcome missing = k_.run({"query", "--db", "no/such/folder/kvcat.db"});
    EXPECT_EQ(missing.status, 2);
    EXPECT_NE(missing.err.find("the folder no/such/folder does not exist; make it (mkdir -p no/such/folder)"),
              std::string::npos)
        << missing.err;
    EXPECT_EQ(missing.err.find("unable to open"), std::string::npos) << missing.err;
    fs::create_directories(k_.dir() / "a-folder");
    Outcome folder = k_.run({"build", "--db", "a-folder"});
    EXPECT_EQ(folder.status, 2);
    EXPECT_NE(folder.err.find("a-folder is a folder; give the catalog's file, such as --db a-folder/kvcat.db"),
              std::string::npos)
        << folder.err;
    EXPECT_EQ(folder.err.find("disk I/O"), std::string::npos) << folder.err;
}

TEST(FirstUseOutside, OutsideACheckoutTheMessageSaysWhereItLookedAndWhatToDo) {
    KvcatRunner k(false);  // no records/ here and none installed beside a build tree's binary
    for (const auto& args : std::vector<std::vector<std::string>>{{"query", "engine=vllm"}, {"lint"}}) {
        Outcome r = k.run(args);
        EXPECT_EQ(r.status, 2) << args[0];
        EXPECT_NE(r.err.find("there is no records folder in " + k.dir().string()), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("give --records DIR, or set KVCAT_RECORDS"), std::string::npos) << r.err;
    }
    // KVCAT_RECORDS names them; the catalog goes to the cache, not to this folder.
    TempDir records;
    copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", records / "records");
    TempDir home;
    Outcome r =
        k.run({"query", "--format", "csv", "attention_variant=hybrid", "context_length>64k"},
              {"KVCAT_RECORDS=" + (records / "records").string(), "HOME=" + home.path().string(), "XDG_CACHE_HOME="});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_GT(output_lines(r.out).size(), 5u) << r.out;
    EXPECT_FALSE(fs::exists(k.dir() / "kvcat.db"));
    EXPECT_TRUE(fs::exists(home / ".cache/kvcat/kvcat.db"));
}

TEST_F(FirstUse, AnUnquotedGreaterThanGetsAHintToQuote) {
    // What the shell hands over for `kvcat query context_length>64k`.
    Outcome r = k_.run({"query", "context_length"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("'context_length' is a column, not a filter"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("quote the filter: 'context_length>64k'"), std::string::npos) << r.err;
    Outcome other = k_.run({"query", "nonsense"});
    EXPECT_NE(other.err.find("'nonsense' is not a filter"), std::string::npos) << other.err;
}

TEST_F(FirstUse, DidYouMeanReadsTokens) {
    auto fit = [&](const std::string& model, const std::string& accelerator) {
        return k_.run(
            {"fit", "--model", model, "--accelerator", accelerator, "--weight-quant", "Q4_K", "--kv-dtype", "bf16"});
    };
    Outcome llama = fit("llama-3-70b", "nvidia-h100-sxm");
    EXPECT_EQ(llama.status, 2);
    EXPECT_NE(llama.err.find("did you mean 'models/llama-3.1-70b' or 'models/llama-3.3-70b'?"), std::string::npos)
        << llama.err;
    EXPECT_EQ(llama.err.find("llama-2-7b"), std::string::npos) << llama.err;
    Outcome h100 = fit("llama-3.1-70b", "h100");
    EXPECT_NE(h100.err.find("did you mean 'accelerators/nvidia-h100-pcie' or 'accelerators/nvidia-h100-sxm'?"),
              std::string::npos)
        << h100.err;
    Outcome ryzen = k_.run({"query", "--format", "csv", "accelerator=ryzen-395"});
    EXPECT_NE(ryzen.err.find("did you mean accelerator=amd-ryzen-ai-max-plus-395?"), std::string::npos) << ryzen.err;
    Outcome card = k_.run({"query", "--format", "csv", "accelerator=h100"});
    EXPECT_NE(card.err.find("did you mean accelerator=nvidia-h100-pcie or accelerator=nvidia-h100-sxm?"),
              std::string::npos)
        << card.err;
    // A 4090 run written as the 3090 one's id is: the 4090 records, never the 3090 one.
    Outcome explain = k_.run({"explain", "llamacpp-qwen3.5-27b-rtx4090-64k"});
    EXPECT_EQ(explain.status, 2);
    EXPECT_NE(explain.err.find("kv-efficiency/llamacpp-qwen3.5-27b-rtx4090-q4_k_m-q4_0-tianchengwu"), std::string::npos)
        << explain.err;
    EXPECT_EQ(explain.err.find("3090"), std::string::npos) << explain.err;
    // A plain typo still gets its one near id.
    Outcome typo = fit("qwen3.5-72b", "nvidia-rtx-3090");
    EXPECT_NE(typo.err.find("did you mean 'models/qwen3.5-27b'?"), std::string::npos) << typo.err;
}

TEST_F(FirstUse, NoMatchingIdPointsToDistinctNotAListOfRepeats) {
    Outcome r = k_.run({"query", "--format", "csv", "accelerator=zzzz-unknown-card"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("`kvcat query --distinct accelerator` lists those in use"), std::string::npos) << r.err;
    Outcome listed = k_.run({"query", "--distinct", "accelerator", "--format", "csv"});
    auto rows = output_lines(listed.out);
    std::vector<std::string> sorted(rows.begin(), rows.end());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << listed.out;
    EXPECT_LT(rows.size(), 40u) << listed.out;
}

TEST(FirstUseLint, QuietNeverDropsFindingsFromSarifOrJson) {
    KvcatRunner k(false);
    copy_tree(fs::path(KVCAT_FIXTURES_DIR) / "id-context-tag/fail", k.dir() / "records");
    fs::remove(k.dir() / "records/expected.txt");
    Outcome loud = k.run({"lint", "--format", "sarif"});
    Outcome quiet = k.run({"-q", "lint", "--format", "sarif"});
    ASSERT_NE(loud.out.find("id-context-tag"), std::string::npos) << loud.out;
    auto results = [](const std::string& sarif) { return nlohmann::json::parse(sarif)["runs"][0]["results"].size(); };
    EXPECT_EQ(results(quiet.out), results(loud.out));
    EXPECT_GE(results(quiet.out), 1u);
    Outcome as_json = k.run({"lint", "-q", "--format", "json"});
    EXPECT_EQ(nlohmann::json::parse(as_json.out)["findings"].size(),
              nlohmann::json::parse(k.run({"lint", "--format", "json"}).out)["findings"].size());
    // Text is for a person: there -q still shows only errors.
    Outcome text = k.run({"-q", "lint"});
    EXPECT_EQ(text.out.find("warning"), std::string::npos) << text.out;
}

// ---- import-bench ----

TEST_F(FirstUse, ImportBenchSelectsOneConfigurationOutOfAMixedFile) {
    fs::copy_file(fs::path(KVCAT_FIXTURES_DIR) / "import-bench/mixed.jsonl", k_.dir() / "mixed.jsonl");
    Outcome mixed = k_.run({"import-bench", "mixed.jsonl", "--model", "models/qwen3.5-27b"});
    EXPECT_EQ(mixed.status, 2);
    EXPECT_NE(mixed.err.find("(--select type_k=f16)"), std::string::npos) << mixed.err;
    Outcome q8 = k_.run({"import-bench", "mixed.jsonl", "--model", "models/qwen3.5-27b", "--select", "type_k=q8_0",
                         "--select", "n_prompt=512"});
    ASSERT_EQ(q8.status, 0) << q8.err;
    EXPECT_NE(q8.out.find("kv_cache_dtype: q8_0"), std::string::npos) << q8.out;
    // The q8_0 pp512, tg128 and pg test at depth 0 and the pp512 and tg128 at 16384.
    EXPECT_NE(q8.out.find("5 of the file's 13 entries, picked with --select type_k=q8_0 n_prompt=512"),
              std::string::npos)
        << q8.out;
    // pp2048 was left out: the prefill speed at depth 0 is the pp512 one, 1104.2 x 0.97.
    EXPECT_NE(q8.out.find("measured_prefill_tps_at_ctx: 1071.07"), std::string::npos) << q8.out;
    Outcome none = k_.run({"import-bench", "mixed.jsonl", "--model", "models/qwen3.5-27b", "--select", "type_k=q4_0"});
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("--select type_k=q4_0 keeps no entry; the file's type_k values: f16, q8_0"),
              std::string::npos)
        << none.err;
    Outcome malformed = k_.run({"import-bench", "mixed.jsonl", "--model", "models/qwen3.5-27b", "--select", "type_k"});
    EXPECT_EQ(malformed.status, 2);
    EXPECT_NE(malformed.err.find("write KEY=VALUE"), std::string::npos) << malformed.err;
}

}  // namespace
}  // namespace kvcat::test
