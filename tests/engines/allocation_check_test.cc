// check_allocation: every printed figure of an allocation record beside the engine model's,
// the one answer the engine-allocation rule, explain and the catalog read.
#include "engines/allocation_check.h"

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "check/lint.h"
#include "engines/engine_log.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

const LintResult& fixture(const std::string& which) {
    static const LintResult pass = lint_paths({fs::path(KVCAT_FIXTURES_DIR) / "engine-allocation/pass"});
    static const LintResult fail = lint_paths({fs::path(KVCAT_FIXTURES_DIR) / "engine-allocation/fail"});
    return which == "pass" ? pass : fail;
}

AllocationCheck check(const LintResult& lint, const std::string& id) {
    const Record* r = lint.records.find(id);
    EXPECT_TRUE(r) << id;
    const Record* m = r ? lint.records.find(r->node("model")->value) : nullptr;
    EXPECT_TRUE(m && m->model) << id;
    return r && m && m->model ? check_allocation(*r, *m->model) : AllocationCheck{};
}

std::vector<std::string> failing(const AllocationCheck& c) {
    std::vector<std::string> keys;
    for (const auto& p : c.parts) {
        for (const auto& f : p.figures) {
            if (!f.holds) keys.push_back(f.key + " " + f.printed + " -> " + f.computed);
        }
    }
    return keys;
}

TEST(AllocationCheck, EveryFigureOfAPassingRecordHolds) {
    for (const char* id : {"allocations/vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25",
                           "allocations/vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-40g-0.5",
                           "allocations/llamacpp-b5781-llama-3.1-8b-q4_0-vulkan-f16-16k",
                           "allocations/sglang-0.5.9-kt-qwen3.5-397b-a17b-fp8-tp2-4090-mamba"}) {
        AllocationCheck c = check(fixture("pass"), id);
        EXPECT_TRUE(failing(c).empty()) << id;
        EXPECT_TRUE(c.problems.empty()) << id;
        EXPECT_TRUE(c.answer.has_value()) << id;
        std::size_t figures = 0;
        for (const auto& p : c.parts) figures += p.figures.size();
        EXPECT_GE(figures, 2u) << id;
    }
}

// The rule reports exactly the figures the check says do not hold: one answer for both.
TEST(AllocationCheck, TheRuleReportsTheFiguresThatDoNotHold) {
    const LintResult& lint = fixture("fail");
    EXPECT_EQ(failing(check(lint, "allocations/llamacpp-b5781-llama-3.1-8b-q4_0-vulkan-f16-16k")),
              std::vector<std::string>{"kv_cache.k_mib 1024.01 -> 1024.00"});
    EXPECT_EQ(failing(check(lint, "allocations/vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25")),
              std::vector<std::string>{"vllm.concurrency 5.75 -> 5.73"});
    EXPECT_EQ(failing(check(lint, "allocations/vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-40g-0.5")),
              std::vector<std::string>{"vllm.tokens 412,945 -> 412,944"});
    EXPECT_EQ(failing(check(lint, "allocations/sglang-0.5.9-kt-qwen3.5-397b-a17b-fp8-tp2-4090-mamba")),
              std::vector<std::string>{"sglang.ssm_state_gb 7.30 -> 7.29"});
    // A CUDA start's compute buffer at the output stage of 512 tokens is that stage, exactly:
    // below it fails, and so does above it.
    EXPECT_EQ(failing(check(lint, "allocations/llamacpp-python-llama-3-8b-q4_k_m-f16-512-3070")),
              std::vector<std::string>{"start.buffers.3.mib 250.00 -> 258.50"});
    // A host compute buffer that is no sum of the graph's inputs in the era of its build (b7342:
    // the lookup's 4 MiB, the ids, the mask of 65,536 cells x 512 tokens and the row indices).
    EXPECT_EQ(
        failing(check(lint, "allocations/llamacpp-b7342-qwen3-coder-30b-a3b-q8_0-f16-64k-4seq-a100")),
        (std::vector<std::string>{
            "start.buffers.3.mib 301.75 -> 300.75",
            "start.buffers.4.mib 128.01 -> 132.01 (pull 14285 (ggml_set_rows): each cache's K and V row indices)"}));
    // vLLM's weights as loaded, a hundredth of a GiB above Qwen3-8B's layers and rotary table.
    EXPECT_EQ(failing(check(lint, "allocations/vllm-0.19.0-qwen3-8b-h100-0.95-8k")),
              std::vector<std::string>{"vllm.model_loading_gib 15.28 -> 15.27"});
    // A hybrid's CUDA compute buffer is its graph's, in either arrangement of the output rows:
    // 1 MiB above the older one (which the start printed) fails.
    EXPECT_EQ(failing(check(lint, "allocations/llamacpp-rs-0.1.146-qwen3.6-27b-q4_k_m-f16-32768-gb10")),
              std::vector<std::string>{"start.buffers.1.mib 496.00 -> 505.00 (the pinned release's graph) or 495.00 "
                                       "(the output rows taken inside the last layer, as older builds did)"});
    EXPECT_EQ(test::find_rule(lint.diagnostics, "engine-allocation").size(), 9u);
}

TEST(AllocationCheck, TheSummaryHoldsTheSettingsAndTheHeadlineFigure) {
    const LintResult& lint = fixture("pass");
    const Record* r = lint.records.find("allocations/vllm-0.10.1.1-qwen2-7b-instruct-tp2-a100-40g-0.5");
    ASSERT_TRUE(r);
    AllocationSummary s = summarise_allocation(*r, check(lint, r->id));
    EXPECT_EQ(s.kv_cache_dtype, "bf16");
    EXPECT_EQ(s.context, 16384);
    EXPECT_EQ(s.tokens, 412944);
    EXPECT_EQ(s.tensor_parallel, 2);
    EXPECT_FALSE(s.seqs.has_value());
    EXPECT_EQ(s.printed, "412,944 tokens");
    EXPECT_EQ(s.computed, "412,864 to 413,248 tokens");
    const Record* llama = lint.records.find("allocations/llamacpp-b5781-llama-3.1-8b-q4_0-vulkan-f16-16k");
    ASSERT_TRUE(llama);
    AllocationSummary l = summarise_allocation(*llama, check(lint, llama->id));
    EXPECT_EQ(l.kv_cache_dtype, "f16");
    EXPECT_EQ(l.context, 16384);
    EXPECT_EQ(l.printed, "2048.00 MiB");
    EXPECT_EQ(l.computed, "2048.00 MiB");
    // An SGLang hybrid: the Mamba pool's conv and SSM state, then the KV pool's K and V.
    const Record* mamba = lint.records.find("allocations/sglang-0.5.9-kt-qwen3.5-397b-a17b-fp8-tp2-4090-mamba");
    ASSERT_TRUE(mamba);
    AllocationSummary g = summarise_allocation(*mamba, check(lint, mamba->id));
    EXPECT_EQ(g.kv_cache_dtype, "bf16");
    EXPECT_EQ(g.tokens, 580364);
    EXPECT_EQ(g.tensor_parallel, 2);
    EXPECT_EQ(g.printed, "0.13 + 7.29 + 4.15 + 4.15 GB");
    EXPECT_EQ(g.computed, "0.13 + 7.29 + 4.15 + 4.15 GB");
}

// A start with layers left on the CPU splits its graph: its GPU compute buffer is not judged
// against the bound of a start on one device. The same record with every layer on the GPU is.
/// A shipped allocation record and its model in a folder of their own, so that a test can check
/// the record as shipped and then altered.
class OneRecord {
  public:
    OneRecord(std::string id, const std::string& model) : id_(std::move(id)) {
        fs::create_directories(dir_.path() / "models");
        fs::create_directories(dir_.path() / "allocations");
        fs::copy_file(source() / "models" / (model + ".yaml"), dir_.path() / "models" / (model + ".yaml"));
        text = test::read_file(source() / "allocations" / (id_ + ".yaml"));
    }
    AllocationCheck check_with(const std::string& record) {
        test::write_file(dir_.path() / "allocations" / (id_ + ".yaml"), record);
        return check(lint_paths({dir_.path()}), "allocations/" + id_);
    }
    std::string text;

  private:
    static fs::path source() { return fs::path(KVCAT_SOURCE_DIR) / "records"; }
    std::string id_;
    test::TempDir dir_;
};

TEST(AllocationCheck, APartlyOffloadedStartsComputeBufferIsNotJudged) {
    OneRecord one("ollama-0.1.28-mixtral-8x7b-q4_0-f16-2048-a4000-18of33", "mixtral-8x7b");
    std::string& text = one.text;
    auto check_with = [&](const std::string& record) { return one.check_with(record); };
    AllocationCheck split = check_with(text);
    EXPECT_TRUE(failing(split).empty());
    bool said = false;
    for (const auto& n : split.not_judged) said = said || n.why.find("18/33 layers on the GPU") != std::string::npos;
    EXPECT_TRUE(said);
    const std::string partly = "offloaded_layers: \"18/33\"";
    ASSERT_NE(text.find(partly), std::string::npos);
    text.replace(text.find(partly), partly.size(), "offloaded_layers: \"33/33\"");
    // Read as a start on one GPU, its device buffer is below the bound, and its host buffer (which
    // held the CPU layers' work) is no era's sum of the graph's inputs.
    std::vector<std::string> whole = failing(check_with(text));
    ASSERT_EQ(whole.size(), 2u);
    EXPECT_EQ(whole[0], "start.buffers.2.mib 192.01 -> at least 194.00");
    EXPECT_TRUE(whole[1].starts_with("start.buffers.3.mib 188.03 -> 8.00 (before pull 6017")) << whole[1];
}

// A Qwen 3.5 hybrid's CUDA compute buffer is judged against its graph only where the log says the
// chunked Gated DeltaNet ran fused, the form kvcat builds; import-log reads that line.
TEST(AllocationCheck, AHybridsComputeBufferIsItsGraphWhereTheLogSaysTheDeltaNetRanFused) {
    OneRecord one("llamacpp-rs-0.1.146-qwen3.6-27b-q4_k_m-f16-32768-gb10", "qwen3.6-27b");
    std::string& text = one.text;
    AllocationCheck fused = one.check_with(text);
    EXPECT_TRUE(failing(fused).empty());
    const AllocationFigure* f = find_figure(fused, "start.buffers.1.mib");
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->holds);
    EXPECT_TRUE(test::contains(f->computed, "495.00 (the output rows taken inside the last layer"));
    auto note = [](const AllocationCheck& c) {
        for (const auto& n : c.not_judged) {
            if (n.key == "start.buffers.1.mib") return n.why;
        }
        return std::string();
    };
    const std::string line = "  fused_gdn_chunked: \"enabled\"\n";
    ASSERT_NE(text.find(line), std::string::npos);
    std::string disabled = text;
    disabled.replace(disabled.find(line), line.size(), "  fused_gdn_chunked: \"disabled\"\n");
    AllocationCheck off = one.check_with(disabled);
    EXPECT_FALSE(find_figure(off, "start.buffers.1.mib"));
    EXPECT_TRUE(test::contains(note(off), "says the fused form was disabled")) << note(off);
    text.erase(text.find(line), line.size());
    AllocationCheck unsaid = one.check_with(text);
    EXPECT_FALSE(find_figure(unsaid, "start.buffers.1.mib"));
    EXPECT_TRUE(test::contains(note(unsaid), "does not say how the layers ran")) << note(unsaid);
    // import-log writes the line's word from the log the record came from.
    std::string log =
        test::read_file(fs::path(KVCAT_SOURCE_DIR) /
                        "tests/fixtures/engine-logs/llamacpp-rs-0.1.146-qwen3.6-27b-q4_k_m-f16-32768-gb10.log");
    EXPECT_EQ(parse_engine_log(log, "gb10.log").fused_gdn_chunked, "enabled");
}

// A mainline build before b5137 on a DeepSeek-R1 file of 128 KV heads caches every head: the
// log's n_head_kv makes import-log write mla_off, and the figures hold only with it. Without
// it the record is read as the latent, and each printed figure is wrong by the heads it keeps.
TEST(AllocationCheck, AMainlineBuildBeforeTheLatentIsJudgedOnEveryHead) {
    OneRecord one("llamacpp-b4905-deepseek-r1-q8_0-f16-2048-every-head", "deepseek-r1");
    std::string& text = one.text;
    EXPECT_TRUE(failing(one.check_with(text)).empty());
    const std::string off = "  mla_off: true\n";
    ASSERT_NE(text.find(off), std::string::npos);
    text.erase(text.find(off), off.size());
    // Read as the latent, the compute buffer is also held to the latent graph's bound, which the
    // printed figure of the every-head graph is below.
    EXPECT_EQ(failing(one.check_with(text)),
              (std::vector<std::string>{"kv_cache.k_mib 5856.00 -> 137.25", "kv_cache.v_mib 3904.00 -> 122.00",
                                        "kv_cache.size_mib 9760.00 -> 259.25",
                                        "start.buffers.17.mib 670.01 -> at least 674.00"}));
}

// max_model_len 0 once gave a concurrency range of "inf to infx" that held: it is a problem of
// its own now, and nothing is worked out from it.
TEST(AllocationCheck, AMaximumModelLengthOfZeroIsAProblemNotADivision) {
    OneRecord one("vllm-0.10.1.1-qwen2-7b-instruct-a100-80g-0.25", "qwen2-7b-instruct");
    std::string& text = one.text;
    const std::string len = "max_model_len: 16384";
    ASSERT_NE(text.find(len), std::string::npos);
    text.replace(text.find(len), len.size(), "max_model_len: 0");
    AllocationCheck c = one.check_with(text);
    ASSERT_EQ(c.problems.size(), 1u);
    EXPECT_EQ(c.problems[0].key, "vllm.max_model_len");
    for (const auto& p : c.parts) {
        for (const auto& f : p.figures) EXPECT_EQ(f.computed.find("inf"), std::string::npos) << f.computed;
    }
}

std::string weights_term(const AllocationCheck& c) {
    for (const auto& p : c.parts) {
        for (const auto& t : p.terms) {
            if (t.rfind("weights:", 0) == 0) return t;
        }
    }
    return "";
}

TEST(AllocationCheck, TiedEmbeddingsHeldOnTheHostAndOnTheDeviceAreNamedNotCalledAnotherRecipe) {
    // Qwen3-0.6B ties its output to its token embeddings; a full Vulkan offload prints the
    // whole file (604.15 MiB) on the device and the embeddings again on the host (157.65 MiB).
    OneRecord one("llamacpp-b5398-vulkan-qwen3-0.6b-q8_0-f16-4096-gfx1151", "qwen3-0.6b");
    std::string& text = one.text;
    auto term_with = [&](const std::string& record) { return weights_term(one.check_with(record)); };
    std::string tied = term_with(text);
    EXPECT_NE(tied.find("157.65 MiB apart: the tied token embeddings"), std::string::npos) << tied;
    // The host's buffer 1 MiB larger is no longer the embeddings: another recipe, as before.
    const std::string host = "mib: 157.65";
    ASSERT_NE(text.find(host), std::string::npos);
    text.replace(text.find(host), host.size(), "mib: 158.65");
    std::string other = term_with(text);
    EXPECT_NE(other.find("158.65 MiB apart (the file was made by other rules"), std::string::npos) << other;
}

// DeepSeek-R1 on a Xeon with AMX (b4905): the mapped file's buffers hold every tensor, and the AMX
// buffer a repacked second copy of some of them. Without that copy the mapped buffers are
// llama-quantize's Q8_0 of the model to the printed 0.01 MiB of each; counted in, they were 18 GiB
// apart. Its graph ran every head without the latent, which kvcat does not bound: not judged.
TEST(AllocationCheck, ARepackedCopyIsNotCountedAmongTheMappedWeights) {
    OneRecord one("llamacpp-b4905-deepseek-r1-q8_0-f16-2048-every-head", "deepseek-r1");
    std::string& text = one.text;
    AllocationCheck c = one.check_with(text);
    EXPECT_TRUE(failing(c).empty());
    std::string weights = weights_term(c);
    EXPECT_NE(weights.find("the 15 model buffers sum to 680237.93 MiB (the AMX buffer's 18214.39 MiB beside them"),
              std::string::npos)
        << weights;
    EXPECT_NE(weights.find("680238.00 MiB, the same to the printed 0.01 MiB"), std::string::npos) << weights;
    auto said = [](const AllocationCheck& check, const std::string& part) {
        return std::any_of(check.not_judged.begin(), check.not_judged.end(),
                           [&](const auto& n) { return n.why.find(part) != std::string::npos; });
    };
    EXPECT_TRUE(said(c, "without the latent (mla_off)"));
    EXPECT_FALSE(said(c, "the model buffers"));
    // A mapped buffer 1 MiB larger is no longer the file: said, and counted as not judged.
    const std::string last = "mib: 28077.60";
    ASSERT_NE(text.find(last), std::string::npos);
    text.replace(text.find(last), last.size(), "mib: 28078.60");
    AllocationCheck other = one.check_with(text);
    EXPECT_TRUE(failing(other).empty());
    EXPECT_TRUE(said(other, "the model buffers (680238.93 MiB) stand 0.96 MiB from llama-quantize's Q8_0"));
}

}  // namespace
}  // namespace kvcat
