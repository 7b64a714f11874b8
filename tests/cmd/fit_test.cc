// kvcat fit for real deployments: tensor parallel over several cards, the weights' real size
// (given, or read from a GGUF file's header), the memory at chosen contexts, and a model that
// cannot fit refused with exit status 1.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "check/lint.h"
#include "config_fixture.h"
#include "gguf_file.h"
#include "import/gguf.h"
#include "import/import_config.h"
#include "kvcat_runner.h"
#include "model/kv_math.h"
#include "model/physics.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using kvcat::Accelerator;
using kvcat::FitSetup;
using kvcat::FitTerms;
using kvcat::LintResult;
using kvcat::Model;
using kvcat::Rational;
using kvcat::test::contains;
using kvcat::test::GgufFile;
using kvcat::test::KvcatRunner;
using kvcat::test::Outcome;
using kvcat::test::TempDir;

LintResult shipped() {
    return kvcat::lint_paths({fs::path(KVCAT_SOURCE_DIR) / "records"});
}
const Model& model(const LintResult& r, const std::string& id) {
    return *r.records.find(id)->model;
}
const Accelerator& card(const LintResult& r, const std::string& id) {
    return *r.records.find(id)->accelerator;
}

FitTerms fit(const Model& m, const Accelerator& a, const char* quant, const char* dtype, std::int64_t gpus) {
    FitSetup s;
    s.gpus = gpus;
    auto q = kvcat::find_weight_quant(quant);
    return kvcat::fit_context(m, a, &*q, *kvcat::find_cache_dtype(dtype), s);
}

// ---- tensor parallel --------------------------------------------------------------------

TEST(FitTensorParallel, KvHeadsThatDivideAreSplitWeightsToo) {
    LintResult r = shipped();
    const Model& llama = model(r, "models/llama-3.1-70b");  // 80 layers x 8 KV heads x 128
    const Accelerator& h100 = card(r, "accelerators/nvidia-h100-sxm");
    FitTerms one = fit(llama, h100, "bf16", "bf16", 1);
    FitTerms four = fit(llama, h100, "bf16", "bf16", 4);
    EXPECT_EQ(one.growing_per_token, Rational(327680));
    EXPECT_EQ(four.growing_per_token, Rational(327680 / 4));  // 2 of the 8 heads on each card
    EXPECT_EQ(four.weights, one.weights / Rational(4));
    EXPECT_EQ(four.kv_split_how, "8 KV heads split over 4 cards: 2 on each");
    EXPECT_FALSE(one.fits);  // 141 GB of bf16 weights on one 80 GB card
    EXPECT_TRUE(four.fits);
    EXPECT_EQ(four.max_context, ((four.memory - four.weights - four.reserve) / Rational(81920)).floor());
}

TEST(FitTensorParallel, MoreCardsThanKvHeadsKeepOneHeadEach) {
    LintResult r = shipped();
    FitTerms sixteen =
        fit(model(r, "models/llama-3.1-70b"), card(r, "accelerators/nvidia-h100-sxm"), "bf16", "bf16", 16);
    // Each card keeps a copy of one of the 8 heads: 80 x 1 x 128 x 2 x 2.
    EXPECT_EQ(sixteen.growing_per_token, Rational(40960));
    EXPECT_EQ(sixteen.kv_split_how, "8 KV heads on 16 cards: each card keeps a copy of one head");
}

TEST(FitTensorParallel, HeadsThatDoNotSpreadAreRefused) {
    LintResult r = shipped();
    try {
        fit(model(r, "models/llama-3.1-70b"), card(r, "accelerators/nvidia-h100-sxm"), "bf16", "bf16", 3);
        FAIL() << "8 KV heads over 3 cards should be refused";
    } catch (const kvcat::PhysicsError& e) {
        EXPECT_TRUE(contains(e.what(), "8 KV heads do not spread over 3 cards")) << e.what();
    }
}

TEST(FitTensorParallel, AnMlaLatentIsWholeOnEveryCard) {
    LintResult r = shipped();
    FitTerms eight = fit(model(r, "models/deepseek-v3"), card(r, "accelerators/nvidia-h200"), "fp8", "bf16", 8);
    EXPECT_EQ(eight.growing_per_token, Rational(70272));  // 61 x 576 x 2, not divided
    EXPECT_EQ(eight.weights, Rational(671000000000LL / 8));
    EXPECT_TRUE(eight.fits);
}

TEST(FitBounded, AModelNoneOfWhoseLayersGrowsFitsAnyContextOnceItsWindowDoes) {
    // Mistral-7B-v0.1 slides on every layer: 32 x 8 x 128 x 2 x 2 = 131,072 bytes per token up to
    // 4,096 tokens, 512 MiB in all, whatever the context.
    kvcat::ImportOptions o;
    o.config_file = "mistral-7b-v0.1.json";
    o.name = "Mistral-7B-v0.1";
    o.total_params_b = o.active_params_b = 7.24;
    auto config = kvcat::test::config_fixture("mistral-7b-v0.1.json");
    kvcat::ImportResult r = kvcat::import_model_config(config, o);
    ASSERT_TRUE(r.ok()) << r.message();
    TempDir dir;
    kvcat::test::copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records" / "accelerators",
                           dir.path() / "records" / "accelerators");
    kvcat::test::write_file(dir.path() / "records" / (r.id + ".yaml"), r.text);
    LintResult lint = kvcat::lint_paths({dir.path() / "records"});
    ASSERT_TRUE(lint.diagnostics.empty()) << kvcat::test::describe(lint.diagnostics);
    FitTerms t = fit(model(lint, r.id), card(lint, "accelerators/nvidia-rtx-3090"), "bf16", "bf16", 1);
    EXPECT_TRUE(t.bounded);
    EXPECT_EQ(t.growing_per_token, Rational(0));
    EXPECT_EQ(t.sliding_per_token, Rational(131072));
    EXPECT_EQ(t.max_context, 32768);  // the native context: no layer grows past 4,096 tokens
    EXPECT_EQ(kvcat::fit_bytes_at(t, 1000000) - kvcat::fit_bytes_at(t, 4096), Rational(0));
}

TEST(FitTensorParallel, Mamba2GroupsAreRepeatedUntilTheCardsDivideThem) {
    // Falcon-H1-1.5B: 24 Mamba-2 mixers of 48 heads x 64, one group of 256, conv 4, f32.
    kvcat::ImportOptions o;
    o.config_file = "falcon-h1-1.5b.json";
    o.name = "Falcon-H1-1.5B";
    o.total_params_b = o.active_params_b = 1.55;
    auto config = kvcat::test::config_fixture("falcon-h1-1.5b.json");
    kvcat::ImportResult r = kvcat::import_model_config(config, o);
    ASSERT_TRUE(r.ok()) << r.message();
    TempDir dir;
    kvcat::test::write_file(dir.path() / "records" / (r.id + ".yaml"), r.text);
    LintResult lint = kvcat::lint_paths({dir.path() / "records"});
    const Model& m = model(lint, r.id);
    std::int64_t ssm = 48 * 64 * 256;
    EXPECT_EQ(kvcat::fixed_state_bytes(m), Rational(24LL * (3 * (3072 + 2 * 256) + ssm) * 4));
    // On 2 cards the one group becomes 2: conv over 3,072 + 2 x 2 x 256 channels, halved.
    EXPECT_EQ(kvcat::fixed_state_bytes(m, 2), Rational(24LL * (3 * (3072 + 2 * 2 * 256) + ssm) * 4) / Rational(2));
}

// ---- does not fit -----------------------------------------------------------------------

TEST(FitCli, AModelThatCannotFitExitsOneSayingWhy) {
    KvcatRunner k;
    Outcome o = k.run({"fit", "--model", "models/deepseek-v3", "--accelerator", "accelerators/nvidia-rtx-3090",
                       "--weight-quant", "Q4_K", "--kv-dtype", "bf16"});
    EXPECT_EQ(o.status, 1) << o.err;
    // 671e9 x 4.5 / 8 = 377,437,500,000 bytes = 351.52 GiB; 24e9 bytes = 22.35 GiB.
    EXPECT_TRUE(contains(o.err, "does not fit: the weights alone need 351.52 GiB of 22.35 GiB")) << o.err;
    // The budget stops at the weights: no remainder, no context, the refusal as its last line.
    EXPECT_TRUE(contains(o.out, "- weights")) << o.out;
    EXPECT_FALSE(contains(o.out, "largest context")) << o.out;
    EXPECT_FALSE(contains(o.out, "left for the KV cache")) << o.out;
    // 24e9 - 377,437,500,000 - 0 - 1,073,741,824 = -354,511,241,824, which must not be printed.
    EXPECT_FALSE(contains(o.out, "354,511,241,824")) << o.out;
    EXPECT_FALSE(contains(o.out, "runtime reserve")) << o.out;
    EXPECT_TRUE(contains(o.out, "= does not fit: the weights alone need 351.52 GiB of 22.35 GiB\n")) << o.out;

    Outcome json = k.run({"fit", "--model", "models/deepseek-v3", "--accelerator", "accelerators/nvidia-rtx-3090",
                          "--weight-quant", "Q4_K", "--kv-dtype", "bf16", "--format", "json"});
    EXPECT_EQ(json.status, 1);
    auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["fits"], false);
    EXPECT_EQ(j["refusal"], "does not fit: the weights alone need 351.52 GiB of 22.35 GiB");
    EXPECT_TRUE(j["max_context"].is_null()) << j.dump();
    EXPECT_TRUE(j["available_for_kv_bytes"].is_null()) << j.dump();
}

TEST(FitCli, WhenTheReserveIsWhatRunsOutTheBudgetShowsItAndStops) {
    KvcatRunner k;
    // Qwen3.5-27B at Q4_K: 15,187,500,000 B of weights fit in 24e9 B, but with 156,893,184 B
    // of state and a 10 GiB (10,737,418,240 B) reserve they need 26,081,811,424 B.
    Outcome o = k.run({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                       "--weight-quant", "Q4_K", "--kv-dtype", "bf16", "--reserve-gib", "10"});
    EXPECT_EQ(o.status, 1) << o.err;
    EXPECT_TRUE(contains(o.out, "runtime reserve")) << o.out;
    EXPECT_TRUE(contains(o.out, "= does not fit: the weights (")) << o.out;
    EXPECT_FALSE(contains(o.out, "largest context")) << o.out;
    EXPECT_FALSE(contains(o.out, "left for the KV cache")) << o.out;
}

TEST(FitCli, WeightBytesAndContexts) {
    KvcatRunner k;
    // Qwen3.5-27B at a Q4_K_M size of 16,500,000,000 bytes on a 3090, bf16 cache.
    Outcome o =
        k.run({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
               "--weight-bytes", "16500000000", "--kv-dtype", "bf16", "--contexts", "8k,64k,128k", "--format", "json"});
    ASSERT_EQ(o.status, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    std::int64_t fixed = 156893184, reserve = 1LL << 30, weights = 16500000000LL;
    EXPECT_EQ(j["weight_bytes"], weights);
    EXPECT_EQ(j["max_context"], (24000000000LL - weights - fixed - reserve) / 65536);
    ASSERT_EQ(j["at_contexts"].size(), 3u);
    for (const auto& [i, ctx] : std::vector<std::pair<int, std::int64_t>>{{0, 8192}, {1, 65536}, {2, 131072}}) {
        EXPECT_EQ(j["at_contexts"][i]["context"], ctx);
        EXPECT_EQ(j["at_contexts"][i]["bytes"], weights + fixed + reserve + 65536 * ctx);
    }
    EXPECT_EQ(j["at_contexts"][1]["fits"], true);   // 22.01 GB
    EXPECT_EQ(j["at_contexts"][2]["fits"], false);  // 26.3 GB

    Outcome both = k.run({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                          "--weight-bytes", "1", "--weight-quant", "Q4_K", "--kv-dtype", "bf16"});
    EXPECT_EQ(both.status, 2);
    EXPECT_TRUE(contains(both.err, "give the weights' size one way")) << both.err;
    Outcome bad = k.run({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                         "--weight-quant", "Q4_K", "--kv-dtype", "bf16", "--contexts", "8k,lots"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_TRUE(contains(bad.err, "'lots' is not a context")) << bad.err;
}

// fit and plan read --reserve-gib with one check: a value that is not a non-negative number of GiB
// is refused by name before anything is worked out, and a fraction is taken exactly.
TEST(FitCli, BothCommandsRefuseAReserveThatIsNotANumberOfGib) {
    KvcatRunner k;
    for (const char* value : {"lots", "-1"}) {
        Outcome fit = k.run({"fit", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090", "--weight-quant",
                             "Q4_K", "--kv-dtype", "bf16", "--reserve-gib", value});
        EXPECT_EQ(fit.status, 2) << value;
        EXPECT_TRUE(contains(fit.err, "--reserve-gib")) << fit.err;
        EXPECT_TRUE(contains(fit.err, fmt::format("'{}' is not a number of GiB such as 1 or 0.5", value))) << fit.err;
        Outcome plan =
            k.run({"plan", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090", "--reserve-gib", value});
        EXPECT_EQ(plan.status, 2) << value;
        EXPECT_TRUE(contains(plan.err, fmt::format("'{}' is not a number of GiB such as 1 or 0.5", value))) << plan.err;
    }
    Outcome half = k.run({"fit", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090", "--weight-quant", "Q4_K",
                          "--kv-dtype", "bf16", "--reserve-gib", "0.5", "--format", "json"});
    ASSERT_EQ(half.status, 0) << half.err;
    EXPECT_EQ(nlohmann::json::parse(half.out)["reserve_bytes"], 1LL << 29);
}

// ---- GGUF ------------------------------------------------------------------------------

TEST(Gguf, WeightsAreTheFileLessItsAlignedHeader) {
    GgufFile f(1000);
    kvcat::GgufWeights w = kvcat::read_gguf_weights(f.path());
    EXPECT_EQ(w.version, 3u);
    EXPECT_EQ(w.tensors, 2u);
    EXPECT_EQ(w.alignment, 64u);
    EXPECT_EQ(w.data_offset, f.header());
    EXPECT_EQ(w.data_offset % 64, 0u);
    EXPECT_EQ(w.data_bytes, 1000u);
    EXPECT_EQ(w.file_size, f.size());
}

TEST(Gguf, NotAGgufOrCutShortIsAnError) {
    GgufFile wrong(100, 0x12345678u);
    EXPECT_THROW(kvcat::read_gguf_weights(wrong.path()), kvcat::GgufError);
    GgufFile cut(100);
    cut.truncate(40);  // inside the metadata
    try {
        kvcat::read_gguf_weights(cut.path());
        FAIL() << "a header cut short should be refused";
    } catch (const kvcat::GgufError& e) {
        EXPECT_TRUE(contains(e.what(), "cut short")) << e.what();
    }
    GgufFile no_data(10);  // the second tensor starts at 64, past the end of the data
    EXPECT_THROW(kvcat::read_gguf_weights(no_data.path()), kvcat::GgufError);
    EXPECT_THROW(kvcat::read_gguf_weights("/nonexistent/model.gguf"), std::runtime_error);
}

TEST(FitCli, WeightFileGivesTheWeightsSize) {
    KvcatRunner k;
    GgufFile f(5000);
    Outcome o = k.run({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                       "--weight-file", f.path(), "--kv-dtype", "bf16", "--gpus", "2", "--format", "json"});
    ASSERT_EQ(o.status, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["weight_bytes"], 2500);  // 5,000 bytes of tensor data over 2 cards
    EXPECT_TRUE(contains(j["weights_how"].get<std::string>(), "2 tensors")) << j.dump();
}

}  // namespace

// ---- the engine's verdict ------------------------------------------------------------------

namespace {

/// kvcat fit for Qwen3-32B with Q4_K weights on one RTX 3090 of the shipped records, with `extra`.
Outcome fit_qwen3_32b_on_3090(const std::vector<std::string>& extra) {
    return kvcat::test::fit_qwen3_32b_on_3090("Q4_K", extra);
}

Outcome fit_vllm(const std::string& max_model_len, const std::string& available_gib, bool json) {
    std::vector<std::string> extra = {"--kv-dtype", "bf16", "--engine", "vllm", "--max-model-len", max_model_len};
    if (!available_gib.empty()) extra.insert(extra.end(), {"--available-kv-gib", available_gib});
    if (json) extra.insert(extra.end(), {"--format", "json"});
    return fit_qwen3_32b_on_3090(extra);
}

}  // namespace

// Qwen3-32B's 64 layers x 8 KV heads x 128 x 2 x 2 bytes = 262,144 bytes a token: 32,768 tokens
// need 8 GiB, and 6 GiB hold 24,576 (a whole number of 16-token blocks), vLLM's estimate.
TEST(FitEngineVerdict, VllmRefusesARequestOfMaxModelLenThatDoesNotFitAndSaysSoInItsWords) {
    Outcome out = fit_vllm("32768", "6", true);
    EXPECT_EQ(out.status, 1) << out.err;
    nlohmann::json j = nlohmann::json::parse(out.out);
    EXPECT_EQ(j["fits"], false);
    EXPECT_EQ(j["engine_refusal"],
              "ValueError: To serve at least one request with the models's max seq len (32768), (8.0 GiB KV cache is "
              "needed, which is larger than the available KV cache memory (6.0 GiB). Based on the available memory, "
              "the estimated maximum model length is 24576. Try increasing `gpu_memory_utilization` or decreasing "
              "`max_model_len` when initializing the engine. See "
              "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.");
    EXPECT_EQ(j["engine"]["estimated_max_context"], 24576);
    EXPECT_FALSE(j["engine"].contains("max_concurrency")) << "a refused start has no pool";
    EXPECT_TRUE(j.contains("max_context")) << "the keys scripts read stay";
    EXPECT_TRUE(contains(out.err, "--engine vllm would not start with these settings")) << out.err;

    Outcome text = fit_vllm("32768", "6", false);
    EXPECT_EQ(text.status, 1);
    EXPECT_TRUE(contains(text.out, "the engine refuses to start, in its words:")) << text.out;
    EXPECT_TRUE(contains(text.out, "the estimated maximum model length is 24576.")) << text.out;
}

TEST(FitEngineVerdict, VllmStartsWhenOneRequestFitsAndTheEstimateIsTheLongestThatDoes) {
    // One block less than the estimate's length fits, as does the estimate itself.
    Outcome at = fit_vllm("24576", "6", true);
    EXPECT_EQ(at.status, 0) << at.err;
    nlohmann::json j = nlohmann::json::parse(at.out);
    EXPECT_EQ(j["fits"], true);
    EXPECT_FALSE(j.contains("engine_refusal"));
    EXPECT_DOUBLE_EQ(j["engine"]["max_concurrency"].get<double>(), 1.0);
    // A token more takes a 1,537th block: refused, and the estimate stays 24,576.
    Outcome past = fit_vllm("24577", "6", true);
    EXPECT_EQ(past.status, 1);
    EXPECT_EQ(nlohmann::json::parse(past.out)["engine"]["estimated_max_context"], 24576);
}

// A hybrid keeps each decode sequence's state in one block of vLLM's pool, and vLLM will not start
// with more sequences than blocks (vLLM issue 49064): --max-num-seqs, or its default for the card
// (256 on a 24 GiB card, 1024 on an 80 GB H100), against the pool's blocks.
TEST(FitEngineVerdict, VllmRefusesAHybridMoreSequencesThanItsPoolHasBlocks) {
    auto run = [](std::vector<std::string> extra, const std::string& card = "nvidia-rtx-4090",
                  const std::string& weights = "Q4_K") {
        std::vector<std::string> args = {"fit",
                                         "--records",
                                         KVCAT_SOURCE_DIR "/records",
                                         "--model",
                                         "qwen3.6-27b",
                                         "--accelerator",
                                         card,
                                         "--weight-quant",
                                         weights,
                                         "--kv-dtype",
                                         "bf16",
                                         "--engine",
                                         "vllm",
                                         "--max-model-len",
                                         "65536",
                                         "--format",
                                         "json"};
        args.insert(args.end(), extra.begin(), extra.end());
        return KvcatRunner(false).run(args);
    };
    Outcome by_default = run({});
    ASSERT_EQ(by_default.status, 1) << by_default.err;
    nlohmann::json j = nlohmann::json::parse(by_default.out);
    std::int64_t blocks = j["engine"]["engine_blocks"].get<std::int64_t>();
    ASSERT_LT(blocks, 256);
    EXPECT_EQ(j["fits"], false);
    EXPECT_EQ(j["engine_refusal"],
              fmt::format("ValueError: max_num_seqs (256) exceeds available Mamba cache blocks ({0}). Each decode "
                          "sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower "
                          "max_num_seqs to at most {0} or increase gpu_memory_utilization.",
                          blocks));
    EXPECT_GT(j["engine"]["max_concurrency"].get<double>(), 1.0) << "the pool itself holds the request";
    EXPECT_TRUE(contains(j["engine"]["differences"].dump(), "default --max-num-seqs on this card is 256"));
    // As many sequences as blocks start. Fewer sequences also make the sampler's peak in vLLM's
    // profiling run smaller (vllm_sampler_peak), so the pool has at least as many blocks again;
    // one sequence more than that pool's blocks does not start.
    Outcome at = run({"--max-num-seqs", std::to_string(blocks)});
    EXPECT_EQ(at.status, 0) << at.err;
    nlohmann::json at_json = nlohmann::json::parse(at.out);
    EXPECT_EQ(at_json["fits"], true);
    std::int64_t at_blocks = at_json["engine"]["engine_blocks"].get<std::int64_t>();
    EXPECT_GE(at_blocks, blocks);
    Outcome past = run({"--max-num-seqs", std::to_string(at_blocks + 1)});
    EXPECT_EQ(past.status, 1) << past.out;
    nlohmann::json past_json = nlohmann::json::parse(past.out);
    EXPECT_TRUE(contains(past_json["engine_refusal"].get<std::string>(),
                         fmt::format("max_num_seqs ({}) exceeds available Mamba cache blocks ({})", at_blocks + 1,
                                     past_json["engine"]["engine_blocks"].get<std::int64_t>())))
        << past.out;
    // Before the check came (pull 38270; kvcat takes 0.19.0 as its release) vLLM started.
    EXPECT_EQ(run({"--engine-version", "0.18.0"}).status, 0);
    // An H100 of 80 GB takes 1024 sequences by default: bf16 weights leave it fewer blocks.
    Outcome h100 = run({}, "nvidia-h100-sxm", "bf16");
    nlohmann::json big = nlohmann::json::parse(h100.out);
    if (big["engine"]["engine_blocks"].get<std::int64_t>() < 1024) {
        EXPECT_EQ(h100.status, 1);
        EXPECT_TRUE(contains(big["engine_refusal"].get<std::string>(), "max_num_seqs (1024) exceeds")) << h100.out;
    } else {
        ADD_FAILURE() << "the H100 case no longer reaches the check: " << big["engine"]["engine_blocks"];
    }
    // A model without Mamba layers has no such check. (Its profiling run samples min(max_num_seqs,
    // max_num_batched_tokens) requests: 512 here, whose peak leaves the 3090 room for a pool.)
    Outcome dense =
        fit_qwen3_32b_on_3090({"--kv-dtype", "bf16", "--engine", "vllm", "--max-model-len", "8192", "--max-num-seqs",
                               "100000", "--max-num-batched-tokens", "512", "--format", "json"});
    EXPECT_EQ(dense.status, 0) << dense.err;
}

// Without --available-kv-gib the memory is the card's driver total less the weights and the
// reserve; the verdict and the exit status follow it.
TEST(FitEngineVerdict, VllmOnTheCardsOwnMemoryRefusesAndTheTextbookFitStaysShown) {
    Outcome out = fit_vllm("32768", "", true);
    EXPECT_EQ(out.status, 1) << out.err;
    nlohmann::json j = nlohmann::json::parse(out.out);
    EXPECT_EQ(j["memory_bytes"], 25769803776LL);
    EXPECT_EQ(j["fits"], false);
    EXPECT_GT(j["max_context"].get<std::int64_t>(), 0) << "the textbook's largest context is still given";
    EXPECT_LT(j["engine"]["estimated_max_context"].get<std::int64_t>(), 32768);
}

// llama.cpp allocates its whole cache at start-up, its cells padded to 256, and its --fit keeps
// 1,024 MiB of the card free beside the start (--fit-target; common/fit.cpp at 80fb11ac). On the
// 3090 the start is 18.43 GB of Q4_K weights (32,762,123,264 parameters x 4.5 bits), what the card
// holds before llama.cpp starts (986 MiB, llamacpp_card_held.h), the compute buffer (its
// feed-forward stage: 512 x (3 x 25,600 + 3 x 5,120) x 4 bytes, the f16 mask of cells x 512 x 2
// and 512 positions x 4) and 262,144 bytes a cell: with that 1 GiB kept free, 18,944 cells leave
// 59,271,360 bytes and 19,200 are 8,099,648 over. Past that the verdict is "does not fit", exit 1,
// in text, JSON and the planner alike (the browser check holds the page to it); with -fit off
// (--fit-target 0) the start alone must fit: 23,040 cells (23,296 are 12,293,952 over).
TEST(FitEngineVerdict, LlamaCppsCacheThatDoesNotFitTheCardExitsOneNamingTheLargestCThatDoes) {
    auto run = [](const std::string& c, bool json, const std::string& target = "1024") {
        std::vector<std::string> extra = {"--kv-dtype", "f16", "--engine",     "llama.cpp",
                                          "--ctx-size", c,     "--fit-target", target};
        if (json) extra.insert(extra.end(), {"--format", "json"});
        return fit_qwen3_32b_on_3090(extra);
    };
    Outcome past = run("32768", true);
    EXPECT_EQ(past.status, 1) << past.err;
    nlohmann::json j = nlohmann::json::parse(past.out);
    EXPECT_EQ(j["fits"], false);
    EXPECT_EQ(j["max_context"], 23908) << "the textbook's largest context stays";
    EXPECT_TRUE(contains(j["engine_overflow"].get<std::string>(),
                         "at -c 32,768 llama.cpp allocates 8,589,934,592 bytes of cache and state"))
        << j["engine_overflow"];
    EXPECT_TRUE(
        contains(j["engine_overflow"].get<std::string>(), "the largest -c that leaves --fit its target is 18,944"))
        << j["engine_overflow"];
    EXPECT_TRUE(contains(j["engine_overflow"].get<std::string>(), "with -fit off it fails to allocate"))
        << j["engine_overflow"];
    EXPECT_TRUE(contains(past.err, "--engine llama.cpp: does not fit on accelerators/nvidia-rtx-3090")) << past.err;
    Outcome text = run("32768", false);
    EXPECT_EQ(text.status, 1);
    EXPECT_TRUE(contains(text.out, "does not fit: at -c 32,768")) << text.out;
    // The boundary, both ways: 18,944 cells fit, one token more pads to 19,200, which does not.
    Outcome at = run("18944", true);
    EXPECT_EQ(at.status, 0) << at.err;
    EXPECT_EQ(nlohmann::json::parse(at.out)["fits"], true);
    EXPECT_FALSE(nlohmann::json::parse(at.out).contains("engine_overflow"));
    Outcome over = run("18945", true);
    EXPECT_EQ(over.status, 1) << over.err;
    EXPECT_EQ(nlohmann::json::parse(over.out)["fits"], false);
    // -fit off: the start alone against the card, 23,040 cells and not one more.
    Outcome off = run("32768", true, "0");
    EXPECT_TRUE(contains(nlohmann::json::parse(off.out)["engine_overflow"].get<std::string>(),
                         "the largest -c whose allocation fits is 23,040"))
        << off.out;
    EXPECT_EQ(run("23040", true, "0").status, 0);
    EXPECT_EQ(run("23041", true, "0").status, 1);
}

// ---- sizes as people type them -------------------------------------------------------------

namespace {

Outcome fit_with(std::vector<std::string> extra) {
    extra.insert(extra.end(), {"--format", "json"});
    return fit_qwen3_32b_on_3090(extra);
}

}  // namespace

// --ctx-size 32k once failed with "Could not convert" and --max-model-len 32K printed a range of
// 309 digits, while --contexts took 32k; --kv-dtype Q8_0 was refused where --weight-quant q4_k
// was taken. Every token option now reads sizes one way, and dtype names in either case.
TEST(FitSizes, TokenOptionsTakeKAndMAsContextsDoAndDtypesTakeEitherCase) {
    Outcome plain = fit_with({"--kv-dtype", "q8_0", "--engine", "llama.cpp", "--ctx-size", "32768"});
    ASSERT_EQ(plain.status, 0) << plain.err;
    Outcome k = fit_with({"--kv-dtype", "Q8_0", "--engine", "llama.cpp", "--ctx-size", "32k"});
    ASSERT_EQ(k.status, 0) << k.err;
    EXPECT_EQ(nlohmann::json::parse(k.out), nlohmann::json::parse(plain.out));

    Outcome vllm = fit_with({"--kv-dtype", "bf16", "--engine", "vllm", "--max-model-len", "16384",
                             "--max-num-batched-tokens", "2048", "--available-kv-gib", "6"});
    Outcome vllm_k = fit_with({"--kv-dtype", "BF16", "--engine", "vllm", "--max-model-len", "16K",
                               "--max-num-batched-tokens", "2k", "--available-kv-gib", "6"});
    ASSERT_EQ(vllm_k.status, 0) << vllm_k.err;
    EXPECT_EQ(nlohmann::json::parse(vllm_k.out), nlohmann::json::parse(vllm.out));

    // llama.cpp's -c 0 (the model's own context, 40,960) stays a choice: it leaves less than the
    // 1,024 MiB llama.cpp's --fit keeps free (exit 1, the verdict), and fits with -fit off.
    Outcome zero = fit_with({"--kv-dtype", "q8_0", "--engine", "llama.cpp", "--ctx-size", "0"});
    EXPECT_EQ(zero.status, 1) << zero.err;
    EXPECT_EQ(nlohmann::json::parse(zero.out)["engine_tokens"], 40960) << zero.out;
    Outcome zero_off =
        fit_with({"--kv-dtype", "q8_0", "--engine", "llama.cpp", "--ctx-size", "0", "--fit-target", "0"});
    EXPECT_EQ(zero_off.status, 0) << zero_off.err;

    for (const char* bad : {"32x", "0", "1.5"}) {
        Outcome refused = fit_with({"--kv-dtype", "bf16", "--engine", "vllm", "--max-model-len", bad});
        EXPECT_EQ(refused.status, 2) << bad << ": " << refused.err;
        EXPECT_TRUE(contains(refused.err, "is not a number of tokens such as 32768, 32k or 1M")) << refused.err;
        EXPECT_LT(refused.err.size(), 400u) << "no 309-digit range: " << refused.err;
    }
}

// ---- what llama.cpp refuses before it allocates (release 80fb11ac) ---------------------------

namespace {

nlohmann::json refused_by_llama(std::vector<std::string> extra, int* status) {
    std::vector<std::string> args = {"fit",           "--records",   (fs::path(KVCAT_SOURCE_DIR) / "records").string(),
                                     "--accelerator", "nvidia-h200", "--weight-bytes",
                                     "1000000000",    "--engine",    "llama.cpp",
                                     "--ctx-size",    "8192",        "--format",
                                     "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    Outcome out = KvcatRunner(false).run(args);
    *status = out.status;
    return nlohmann::json::parse(out.out);
}

}  // namespace

TEST(FitEngineVerdict, LlamaCppRefusesWhatItRefusesInItsWords) {
    int status = 0;
    nlohmann::json fp8 = refused_by_llama({"--model", "qwen3-32b", "--kv-dtype", "fp8"}, &status);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(fp8["fits"], false);
    EXPECT_TRUE(fp8["engine_refusal"].get<std::string>().starts_with("Unsupported cache type: fp8 ")) << fp8.dump();
    EXPECT_TRUE(fp8["engine_kv_bytes"].is_null());

    nlohmann::json np = refused_by_llama({"--model", "qwen3-32b", "--kv-dtype", "q8_0", "--parallel", "257"}, &status);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(np["engine_refusal"],
              "llama_init_from_model: failed to initialize the context: n_seq_max must be <= 256 (-np 257)");
    refused_by_llama({"--model", "qwen3-32b", "--kv-dtype", "q8_0", "--parallel", "256"}, &status);
    EXPECT_EQ(status, 0) << "256 sequences are LLAMA_MAX_SEQ itself";

    nlohmann::json mla =
        refused_by_llama({"--model", "deepseek-v3", "--kv-dtype", "q8_0", "--v-dtype", "f16"}, &status);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(mla["engine_refusal"],
              "llama_init_from_model: model does not support different K (q8_0) and V (f16) cache types");
    refused_by_llama({"--model", "qwen3-32b", "--kv-dtype", "q8_0", "--v-dtype", "f16"}, &status);
    EXPECT_EQ(status, 0) << "a model without MLA takes different K and V types";

    // A quantized V needs flash attention (found by the oracle test against llama.cpp itself);
    // a quantized K alone does not, and -fa on (llama.cpp's auto) takes either.
    nlohmann::json v_off = refused_by_llama(
        {"--model", "qwen3-32b", "--kv-dtype", "f16", "--v-dtype", "q4_0", "--flash-attn", "off"}, &status);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(v_off["engine_refusal"],
              "llama_init_from_model: quantized V cache requires flash_attn to be enabled (-ctv q4_0 with -fa off)");
    refused_by_llama({"--model", "qwen3-32b", "--kv-dtype", "q8_0", "--v-dtype", "f16", "--flash-attn", "off"},
                     &status);
    EXPECT_EQ(status, 0) << "a quantized K with an f16 V needs no flash attention";
    refused_by_llama({"--model", "qwen3-32b", "--kv-dtype", "q4_0", "--flash-attn", "on"}, &status);
    EXPECT_EQ(status, 0);

    // kvcat's fp16 is llama.cpp's f16, and its lines say f16.
    nlohmann::json f16 = refused_by_llama({"--model", "qwen3-32b", "--kv-dtype", "fp16"}, &status);
    EXPECT_EQ(status, 0);
    std::string line = f16["engine"]["log_lines"][0];
    EXPECT_TRUE(contains(line, "K (f16)")) << line;
}

// curve once said Qwen3-32B "fits" at 128k on a 3090 with no word that the weights were left
// out or that 128k is above the model's 40,960: both are said now, under the table.
TEST(CurveNotes, WeightsLeftOutAndContextsAboveNativeAreSaid) {
    std::vector<std::string> args = {"curve",    "--records",     (fs::path(KVCAT_SOURCE_DIR) / "records").string(),
                                     "--model",  "qwen3-32b",     "--contexts",
                                     "32k,128k", "--accelerator", "nvidia-rtx-3090"};
    Outcome bare = KvcatRunner(false).run(args);
    ASSERT_EQ(bare.status, 0) << bare.err;
    EXPECT_TRUE(contains(bare.err, "count the KV cache and the fixed state only, not the weights")) << bare.err;
    EXPECT_TRUE(contains(bare.err, "131,072 tokens is above models/qwen3-32b's native context of 40,960")) << bare.err;
    EXPECT_FALSE(contains(bare.err, "32,768 tokens is above")) << bare.err;
    args.insert(args.end(), {"--weight-quant", "Q4_K"});
    Outcome weighed = KvcatRunner(false).run(args);
    ASSERT_EQ(weighed.status, 0) << weighed.err;
    EXPECT_FALSE(contains(weighed.err, "not the weights")) << weighed.err;
}

// curve weighs a mix as fit does: to the byte for a model whose record lists its tensors (the
// same weight_bytes as fit, --imatrix included), a lower bound said so for one that does not.
TEST(CurveNotes, AMixWeighsWhatFitWeighs) {
    const std::string records = (fs::path(KVCAT_SOURCE_DIR) / "records").string();
    auto curve_weights = [&](const std::string& model, const std::string& mix, bool imatrix, std::string* err) {
        std::vector<std::string> args = {
            "curve",           "--records",  records, "--model",        model, "--contexts", "8k",  "--accelerator",
            "nvidia-rtx-3090", "--kv-dtype", "f16",   "--weight-quant", mix,   "--format",   "json"};
        if (imatrix) args.emplace_back("--imatrix");
        Outcome o = KvcatRunner(false).run(args);
        EXPECT_EQ(o.status, 0) << o.err;
        if (err) *err = o.err;
        return nlohmann::json::parse(o.out).at(0).at("weight_bytes");
    };
    auto fit_weights = [&](const std::string& model, const std::string& mix, bool imatrix) {
        std::vector<std::string> args = {
            "fit",        "--records", records,          "--model", model,      "--accelerator", "nvidia-rtx-3090",
            "--kv-dtype", "f16",       "--weight-quant", mix,       "--format", "json"};
        if (imatrix) args.emplace_back("--imatrix");
        Outcome o = KvcatRunner(false).run(args);
        return nlohmann::json::parse(o.out).at("weight_bytes");
    };
    std::string err;
    // Qwen3-32B's Q4_K_M as llama-quantize writes it: 19,756,174,336 bytes (llama.cpp's own load line).
    EXPECT_EQ(curve_weights("qwen3-32b", "Q4_K_M", false, &err), 19756174336LL);
    EXPECT_EQ(fit_weights("qwen3-32b", "Q4_K_M", false), 19756174336LL);
    EXPECT_TRUE(contains(err, "weight_bytes: llama-quantize's Q4_K_M of the model's")) << err;
    EXPECT_FALSE(contains(err, "a lower bound")) << err;
    // An importance matrix changes IQ4_XS's plan; curve follows fit there too.
    EXPECT_EQ(curve_weights("qwen3-8b", "IQ4_XS", true, nullptr), fit_weights("qwen3-8b", "IQ4_XS", true));
    EXPECT_NE(curve_weights("qwen3-8b", "Q4_0", true, nullptr), curve_weights("qwen3-8b", "Q4_0", false, nullptr));
    // DeepSeek-V2-Lite's record has no tensors mapping: its mix stays a lower bound, said so.
    curve_weights("deepseek-v2-lite", "Q4_K_M", false, &err);
    EXPECT_TRUE(contains(err, "a lower bound")) << err;
}

TEST(FitFindings, TheModelsAndTheCardsFindingsAreShownAndNoOtherRecords) {
    // fit judges only what it answers from: an error in the named model is a warning beside the
    // answer, at its file, line and column; an error in another model or in a row is not fit's to say.
    KvcatRunner k;
    auto edit = [&](const char* file, const std::string& from, const std::string& to) {
        fs::path path = k.dir() / "records" / file;
        std::string text = kvcat::test::read_file(path);
        auto at = text.find(from);
        ASSERT_NE(at, std::string::npos) << file;
        text.replace(at, from.size(), to);
        kvcat::test::write_file(path, text);
    };
    edit("models/qwen3.5-27b.yaml", "  count: 16\n", "  count: 15\n");
    edit("models/gemma-3-27b.yaml", "name: ", "bogus_field: 1\nname: ");
    edit("kv-efficiency/llamacpp-qwen35-27b-rtx3090-64k.yaml", "kv_bytes_per_token: 65536",
         "kv_bytes_per_token: 65537");
    ASSERT_EQ(k.run({"lint"}).status, 1);

    Outcome fit = k.run({"fit", "--model", "qwen3.5-27b", "--accelerator", "nvidia-rtx-3090", "--weight-quant", "Q4_K",
                         "--kv-dtype", "f16"});
    EXPECT_EQ(fit.status, 0) << fit.err;
    EXPECT_TRUE(contains(fit.err, "records/models/qwen3.5-27b.yaml:17:3: error: [model-layers] kv_layers.count is 15"))
        << fit.err;
    EXPECT_FALSE(contains(fit.err, "gemma-3-27b")) << fit.err;
    EXPECT_FALSE(contains(fit.err, "llamacpp-qwen35-27b-rtx3090-64k")) << fit.err;

    Outcome other = k.run({"fit", "--model", "llama-3.1-8b", "--accelerator", "nvidia-rtx-3090", "--weight-quant",
                           "Q4_K", "--kv-dtype", "f16"});
    EXPECT_EQ(other.status, 0) << other.err;
    EXPECT_FALSE(contains(other.err, "error")) << other.err;
}
