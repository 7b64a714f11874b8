// vLLM's memory profile line: import-log reads each of its figures, in both of its wordings, and
// the engine-profile rule holds them to the sums vLLM's worker makes, from real starts.
#include "engines/vllm/vllm_profile.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "check/lint.h"
#include "engines/engine_log.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

// Five lines of a vLLM 0.31.0 start of meta-llama/Llama-3.1-8B-Instruct on one A100 80GB, as a
// public study-notes file prints them (found with the code index, id 70682754770, which does not
// name the repository): the later wording of the profile ("consumed memory (weights +
// non-torch)", no suggestions), and the cache size and concurrency on one line.
constexpr std::string_view kLaterWording =
    "(EngineCore pid=326) INFO 10-06 17:00:10 [default_loader.py:484] Loading weights took 0.87 seconds\n"
    "(EngineCore pid=326) INFO 10-06 17:00:11 [model_runner.py:407] Model loading took 15.0 GiB memory and "
    "5.420225 seconds\n"
    "(EngineCore pid=326) INFO 10-06 17:00:33 [kv_cache_utils.py:2464] GPU KV cache size: 460,496 tokens, Maximum "
    "concurrency for 131,072 tokens per request: 3.51x\n"
    "(EngineCore pid=326) INFO 10-06 17:00:41 [gpu_worker.py:955] Free memory on device (78.84/79.25 GiB) on "
    "startup. Desired GPU memory utilization is (0.92, 72.91 GiB). Actual usage is 15.26 GiB for consumed memory "
    "(weights + non-torch), 1.44 GiB for peak activation, and 0.23 GiB for CUDAGraph memory.\n"
    "(EngineCore pid=326) INFO 10-06 17:00:33 [gpu_worker.py:692] Available KV cache memory: 56.21 GiB\n";

ParsedLog llava() {
    fs::path file = test::fixture_path("engine-logs/vllm-0.10.2-llava-v1.6-mistral-7b-offline.log");
    return parse_engine_log(test::read_file(file), file.filename().string());
}

TEST(VllmProfile, ImportReadsEveryFigureOfTheLineAsPrinted) {
    ParsedLog log = llava();
    const LoggedVllmProfile& p = log.profile;
    EXPECT_EQ(log.engine, Engine::vllm);
    EXPECT_EQ(p.free_gib, "78.66");
    EXPECT_EQ(p.total_gib, "79.19");
    EXPECT_EQ(p.requested_gib, "71.27");
    EXPECT_EQ(log.gpu_memory_utilization, "0.9");  // the line's share, where the arguments give none
    EXPECT_EQ(p.weights_gib, "14.08");
    EXPECT_EQ(p.consumed_gib, "");
    EXPECT_EQ(p.activation_gib, "1.97");
    EXPECT_EQ(p.non_torch_gib, "0.07");
    EXPECT_EQ(p.cudagraph_gib, "0.67");
    EXPECT_EQ(p.fit_bytes, 58333988249);
    EXPECT_EQ(p.full_bytes, 66273897472);
    EXPECT_EQ(p.in_use_bytes, 59212694937);
    EXPECT_EQ(p.in_use_gib, "");
    EXPECT_EQ(log.available_gib, "55.15");
}

TEST(VllmProfile, TheLaterWordingAndTheOneLineCacheSizeAreRead) {
    ParsedLog log = parse_engine_log(std::string(kLaterWording), "later.log");
    EXPECT_EQ(log.profile.consumed_gib, "15.26");
    EXPECT_EQ(log.profile.weights_gib, "");
    EXPECT_EQ(log.profile.non_torch_gib, "");
    EXPECT_EQ(log.profile.activation_gib, "1.44");
    EXPECT_EQ(log.profile.cudagraph_gib, "0.23");
    EXPECT_FALSE(log.profile.fit_bytes.has_value());
    EXPECT_EQ(log.tokens, 460496);
    EXPECT_EQ(log.concurrency, "3.51");
    EXPECT_EQ(log.max_model_len, 131072);
}

/// Lints the record import-log writes for `log_text` beside the shipped Llama 3.1 8B record.
LintResult lint_imported(const std::string& log_text, const std::string& version) {
    test::TempDir dir;
    ParsedLog log = parse_engine_log(log_text, "start.log");
    fs::create_directories(dir / "allocations");
    fs::create_directories(dir / "models");
    fs::copy_file(fs::path(KVCAT_SOURCE_DIR) / "records/models/llama-3.1-8b.yaml", dir / "models/llama-3.1-8b.yaml");
    test::write_file(dir / "allocations/vllm-start.yaml",
                     allocation_record_text(log, "allocations/vllm-start", "models/llama-3.1-8b", version,
                                            "https://example.org/start.log", "A start for the test.", "start.log"));
    return lint_paths({dir.path()});
}

TEST(VllmProfile, TheLaterWordingAddsUpAndAChangedPeakIsFoundInThePool) {
    LintResult clean = lint_imported(std::string(kLaterWording), "0.31.0");
    EXPECT_TRUE(test::find_rule(clean.diagnostics, "engine-profile").empty()) << test::describe(clean.diagnostics);

    // 0.1 GiB more peak activation in the line: the requested memory less the consumed memory and
    // the peak is then 56.11 (56.09 to 56.12 once each figure's rounding is undone), not the
    // printed pool of 56.21.
    std::string changed(kLaterWording);
    changed.replace(changed.find("1.44 GiB for peak"), 4, "1.54");
    LintResult lint = lint_imported(changed, "0.31.0");
    auto found = test::find_rule(lint.diagnostics, "engine-profile");
    ASSERT_EQ(found.size(), 1u) << test::describe(lint.diagnostics);
    EXPECT_TRUE(test::contains(found[0]->message, "vllm.available_kv_gib is 56.21")) << found[0]->message;
    EXPECT_EQ(found[0]->computed, "56.09 to 56.12");
}

TEST(VllmProfile, APoolFromAReleaseThatTakesOffAnUnprintedGraphEstimateIsNotJudged) {
    // A profile line in the earlier wording, made up for this test from the later one's figures
    // (its 15.26 GiB consumed split as 14.99 for the weights and 0.27 outside torch), filed under
    // 0.26.0: from 0.20.0 the pool is also less the CUDA graphs' estimate, which only the "CUDA
    // graph pool memory" line gives.
    std::string earlier =
        "INFO [gpu_worker.py:298] Available KV cache memory: 56.21 GiB\n"
        "INFO [kv_cache_utils.py:864] GPU KV cache size: 460,496 tokens\n"
        "INFO [gpu_worker.py:391] Free memory on device (78.84/79.25 GiB) on startup. Desired GPU memory "
        "utilization is (0.92, 72.91 GiB). Actual usage is 14.99 GiB for weight, 1.44 GiB for peak activation, 0.27 "
        "GiB for non-torch memory, and 0.23 GiB for CUDAGraph memory.\n";
    LintResult lint = lint_imported(earlier, "0.26.0");
    EXPECT_TRUE(test::find_rule(lint.diagnostics, "engine-profile").empty()) << test::describe(lint.diagnostics);
    bool noted = false;
    for (const auto& d : lint.notes) {
        noted = noted || (d.rule == "not-judged" && test::contains(d.message, "CUDA graph pool memory"));
    }
    EXPECT_TRUE(noted) << test::describe(lint.notes);
    // Before 0.20.0 nothing more comes off, and the same figures are summed: 72.91 - 14.99 - 1.44
    // - 0.27 = 56.21.
    LintResult before = lint_imported(earlier, "0.19.1");
    EXPECT_TRUE(test::find_rule(before.diagnostics, "engine-profile").empty()) << test::describe(before.diagnostics);
    std::string off = earlier;
    off.replace(off.find("0.27 GiB for non"), 4, "0.47");
    LintResult wrong = lint_imported(off, "0.19.1");
    EXPECT_EQ(test::find_rule(wrong.diagnostics, "engine-profile").size(), 1u) << test::describe(wrong.diagnostics);
}

}  // namespace
}  // namespace kvcat
