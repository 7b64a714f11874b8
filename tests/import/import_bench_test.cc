// kvcat import-bench: benchmark output read into points, and a record written from it that
// lints once a person adds notes and sources.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "import/bench_import.h"
#include "kvcat_runner.h"
#include "test_util.h"

namespace kvcat {
namespace {

namespace fs = std::filesystem;

fs::path bench_file(const std::string& name) {
    return test::fixture_path("import-bench/" + name);
}

BenchRun read_one(const std::string& name, const BenchOptions& options = {}) {
    return read_bench_files({bench_file(name).string()}, options);
}

TEST(ImportBench, ReadsTheLlamaBenchReadmeRun) {
    BenchRun run = read_one("llama-bench-readme.json");
    EXPECT_EQ(run.format, "llama-bench JSON");
    EXPECT_EQ(run.engine, "llama.cpp");
    EXPECT_EQ(run.engine_version, "8cf427ff (5163)");
    EXPECT_EQ(run.kv_dtype, "f16");
    EXPECT_EQ(run.weight_quant, "Q4_K_M");
    EXPECT_EQ(run.weight_bytes, 4677120000LL);
    ASSERT_EQ(run.points.size(), 1u);
    const MeasurementPoint& p = run.points[0];
    EXPECT_EQ(p.context_length, 0);
    EXPECT_DOUBLE_EQ(*p.prefill_tps, 7100.002165);
    EXPECT_DOUBLE_EQ(*p.prefill_tps_stddev, 140.341520);
    EXPECT_EQ(p.prompt_tokens, 512);
    EXPECT_DOUBLE_EQ(*p.tps, 118.881588);
    EXPECT_DOUBLE_EQ(*p.tps_stddev, 1.041811);
    EXPECT_EQ(p.gen_tokens, 128);
    EXPECT_FALSE(p.ttft_ms.has_value());
}

TEST(ImportBench, GroupsJsonlTestsByDepthAndLeavesOutCombinedTests) {
    BenchRun run = read_one("depths.jsonl");
    EXPECT_EQ(run.format, "llama-bench JSONL");
    ASSERT_EQ(run.points.size(), 4u);
    std::vector<std::int64_t> depths;
    for (const auto& p : run.points) depths.push_back(p.context_length);
    EXPECT_EQ(depths, (std::vector<std::int64_t>{0, 16384, 32768, 65536}));
    EXPECT_DOUBLE_EQ(*run.points[3].tps, 28.8);
    EXPECT_DOUBLE_EQ(*run.points[3].prefill_tps, 678.9);
    bool said = false;
    for (const auto& f : run.facts) said = said || f.find("1 combined prompt-and-generation (pg) test left out") == 0;
    EXPECT_TRUE(said);
}

TEST(ImportBench, VllmResultsAreOnePointAFile) {
    BenchRun run = read_bench_files({bench_file("vllm-32k.json").string(), bench_file("vllm-8k.json").string()});
    EXPECT_EQ(run.engine, "vLLM");
    EXPECT_FALSE(run.kv_dtype.has_value());  // a result file does not name its cache dtype
    ASSERT_EQ(run.points.size(), 2u);
    EXPECT_EQ(run.points[0].context_length, 8192);  // sorted by context
    EXPECT_DOUBLE_EQ(*run.points[0].tps, 125.0);    // 1000 / 8.0 ms
    EXPECT_DOUBLE_EQ(*run.points[1].tps, 100.0);    // 1000 / 10.0 ms
    EXPECT_DOUBLE_EQ(*run.points[1].ttft_ms, 1830.5);
    EXPECT_DOUBLE_EQ(*run.points[1].total_tps, 92.6);
    EXPECT_EQ(run.points[1].concurrency, 1);
}

TEST(ImportBench, ACsvIsReadAsWritten) {
    BenchRun run = read_one("curve.csv");
    ASSERT_EQ(run.points.size(), 3u);
    EXPECT_DOUBLE_EQ(*run.points[1].prefill_tps, 977.4);
    EXPECT_FALSE(run.points[2].prefill_tps.has_value());
    EXPECT_FALSE(run.engine.has_value());
}

TEST(ImportBench, WeightFormatsFromModelTypes) {
    EXPECT_EQ(weight_quant_of_model_type("qwen2 7B Q4_K - Medium"), "Q4_K_M");
    EXPECT_EQ(weight_quant_of_model_type("gpt-oss 20B MXFP4 MoE"), "MXFP4");
    EXPECT_EQ(weight_quant_of_model_type("qwen3moe 30B.A3B Q8_0"), "Q8_0");
    EXPECT_EQ(weight_quant_of_model_type("llama 7B mostly Q4_0"), "Q4_0");
    EXPECT_EQ(weight_quant_of_model_type("llama 8B BF16"), "bf16");
    EXPECT_FALSE(weight_quant_of_model_type("llama").has_value());
    EXPECT_FALSE(weight_quant_of_model_type("llama 8B IQ2_XXS - 2.0625 bpw").has_value());
}

/// Each malformed file gives an error at its file:line:column with the expected words, and
/// never a crash.
TEST(ImportBench, MalformedFilesAreClearErrors) {
    std::ifstream in(bench_file("bad/expected.tsv"));
    ASSERT_TRUE(in);
    std::string line;
    int cases = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream cells(line);
        std::string name, row, column, text;
        std::getline(cells, name, '\t');
        std::getline(cells, row, '\t');
        std::getline(cells, column, '\t');
        std::getline(cells, text);
        ++cases;
        std::string path = bench_file("bad/" + name).string();
        try {
            read_bench_files({path});
            ADD_FAILURE() << name << " was read without an error";
        } catch (const BenchError& e) {
            std::string want = path + ":" + row + ":" + column + ": ";
            EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << name << ": " << e.what() << "\nwanted " << want;
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << name << ": " << e.what();
        }
    }
    EXPECT_EQ(cases, 17);
    // Every file in bad/ has its line in expected.tsv.
    int files = 0;
    for (const auto& entry : fs::directory_iterator(bench_file("bad")))
        files += entry.path().filename() != "expected.tsv";
    EXPECT_EQ(files, cases);
}

TEST(ImportBench, KAndVAtDifferentTypesAreKeptApart) {
    BenchRun run = read_one("k-and-v-differ.json");
    EXPECT_EQ(run.kv_dtype, "q8_0");
    EXPECT_EQ(run.v_dtype, "q4_0");
}

TEST(ImportBench, FilesOfTwoConfigurationsAreRefused) {
    try {
        read_bench_files({bench_file("llama-bench-readme.json").string(), bench_file("depths.jsonl").string()});
        ADD_FAILURE() << "two runs were merged";
    } catch (const BenchError& e) {
        EXPECT_NE(std::string(e.what()).find("one record holds one configuration"), std::string::npos) << e.what();
    }
}

// ---- the binary ------------------------------------------------------------------------------

using test::Outcome;

TEST(ImportBenchCli, ARunBecomesARecordThatLintsOncePeopleWriteTheirPart) {
    test::KvcatRunner runner;
    const std::string file = "records/kv-efficiency/llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k_m-f16-64k.yaml";
    Outcome r = runner.run({"import-bench", bench_file("depths.jsonl").string(), "--model", "qwen3.5-27b",
                            "--accelerator", "nvidia-rtx-3090", "--provenance", "measured", "--out", file});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = test::read_file(runner.dir() / file);
    EXPECT_NE(text.find("# Written by `kvcat import-bench`"), std::string::npos) << text;
    EXPECT_NE(text.find("engine_version: 1a2b3c4d (7000)\n"), std::string::npos) << text;
    EXPECT_NE(text.find("weight_quant: Q4_K_M\nkv_cache_dtype: f16\nweight_bytes: 16500000000\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("  - context_length: 65536\n    measured_tps_at_ctx: 28.8\n"
                        "    measured_prefill_tps_at_ctx: 678.9\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("methodology: |\n  Imported by kvcat import-bench"), std::string::npos) << text;

    // Until a person writes notes and sources, the lint names exactly those.
    Outcome lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 1);
    EXPECT_NE(lint.out.find("'notes' is missing"), std::string::npos) << lint.out;
    EXPECT_NE(lint.out.find("'sources' is missing"), std::string::npos) << lint.out;
    EXPECT_EQ(lint.out.find("'methodology' is missing"), std::string::npos) << lint.out;

    std::ofstream(runner.dir() / file, std::ios::app) << "notes: |\n  A test run.\nsources:\n  - name: a test file\n";
    lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 0) << lint.out << lint.err;
    Outcome q = runner.run({"query", "--format", "csv", "--columns",
                            "id,context_length,measured_tps_at_ctx,measured_prefill_tps_at_ctx", "context_length>=32k",
                            "model~*qwen3.5-27b*", "record_id~*q4_k_m*"});
    ASSERT_EQ(q.status, 0) << q.err;
    EXPECT_EQ(q.out,
              "id,context_length,measured_tps_at_ctx,measured_prefill_tps_at_ctx\r\n"
              "kv-efficiency/llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k_m-f16-64k@32k,32768,31,848.2\r\n"
              "kv-efficiency/llamacpp-qwen3.5-27b-nvidia-rtx-3090-q4_k_m-f16-64k@64k,65536,28.8,678.9\r\n");
}

/// Qwen2.5-7B-Instruct, the model of the llama-bench README's run, is not in the catalog: the
/// test writes its record from the model's config.json as re-uploaded on Hugging Face
/// (huggingface.co/osllmai-community/Qwen2.5-7B-Instruct/blob/main/config.json, whose
/// _name_or_path is Qwen/Qwen2.5-7B-Instruct): num_hidden_layers 28, num_attention_heads 28,
/// num_key_value_heads 4, hidden_size 3584 (so a head is 3584 / 28 = 128 wide),
/// max_position_embeddings 32768. The parameter count is the run's own model_n_params.
constexpr const char* kQwen25Model = R"(id: models/qwen2.5-7b-instruct
name: Qwen2.5-7B-Instruct
config_source: >-
  Qwen/Qwen2.5-7B-Instruct config.json as re-uploaded in osllmai-community/Qwen2.5-7B-Instruct
  (not the model's own repository)
config_verified: false
total_params_b: 7.615616512
active_params_b: 7.615616512
native_context: 32768
num_layers: 28
attention_variant: gqa
attention_heads: 28
kv_heads: 4
head_dim: 128
kv_layers:
  count: 28
sources:
  - name: Qwen/Qwen2.5-7B-Instruct config.json, a copy re-uploaded by osllmai-community
    url: https://huggingface.co/osllmai-community/Qwen2.5-7B-Instruct/blob/main/config.json
    detail: >-
      num_hidden_layers 28, num_attention_heads 28, num_key_value_heads 4, hidden_size 3584,
      max_position_embeddings 32768
  - name: llama.cpp tools/llama-bench/README.md, the JSON example
    url: https://github.com/ggml-org/llama.cpp/blob/08d0baaca6745ecaec3a75cccf63b533646ead22/tools/llama-bench/README.md
    detail: model_n_params 7615616512
notes: >-
  Grouped-query attention on all 28 layers: 4 key/value heads of width 128 shared by 28
  query heads. The head width is hidden_size over the query heads, 3584 / 28 = 128.
)";

// llama-bench names the card it ran on (gpu_info) and its model's parameters (model_n_params):
// a --model or --accelerator that contradicts them is refused, saying both, instead of filing
// a measurement under the wrong record that the lint would then pass.
TEST(ImportBenchCli, AModelOrCardThatContradictsTheFileIsRefusedSayingBoth) {
    test::KvcatRunner runner(false);
    test::copy_tree(fs::path(KVCAT_SOURCE_DIR) / "records", runner.dir() / "records");
    auto import = [&](const char* model, const char* card) {
        return runner.run({"import-bench", bench_file("depths.jsonl").string(), "--model", model, "--accelerator", card,
                           "--provenance", "measured"});
    };
    Outcome right = import("qwen3.5-27b", "nvidia-rtx-3090");
    EXPECT_EQ(right.status, 0) << right.err;
    Outcome card = import("qwen3.5-27b", "nvidia-rtx-4090");
    EXPECT_EQ(card.status, 2);
    EXPECT_TRUE(test::contains(card.err,
                               "the file ran on 'NVIDIA GeForce RTX 3090' (gpu_info), but --accelerator is "
                               "accelerators/nvidia-rtx-4090 (GeForce RTX 4090)"))
        << card.err;
    Outcome model = import("qwen3-32b", "nvidia-rtx-3090");
    EXPECT_EQ(model.status, 2);
    EXPECT_TRUE(test::contains(model.err,
                               "the file's model has 26,900,000,000 parameters (model_n_params), but "
                               "models/qwen3-32b has"))
        << model.err;
    // The 3090 Ti's record is not the 3090's: "rtx3090ti" is not in "rtx3090".
    EXPECT_EQ(import("qwen3.5-27b", "nvidia-rtx-3090-ti").status, 2);
}

/// A llama-bench file that saw two GPUs does not say which of them the run split over (-sm,
/// -dev): the record gives no count and says why, naming the devices.
TEST(ImportBenchCli, SeveralDevicesInGpuInfoLeaveTheCountUnsaid) {
    test::KvcatRunner runner;
    test::write_file(runner.dir() / "records/models/qwen2.5-7b-instruct.yaml", kQwen25Model);
    std::string json = test::read_file(bench_file("llama-bench-readme.json"));
    const std::string one = "\"gpu_info\": \"NVIDIA GeForce RTX 4080\"";
    for (auto at = json.find(one); at != std::string::npos; at = json.find(one, at + 1)) {
        json.replace(at, one.size(), "\"gpu_info\": \"NVIDIA GeForce RTX 4080, NVIDIA GeForce RTX 4080\"");
    }
    test::write_file(runner.dir() / "two.json", json);
    const std::string file = "records/kv-efficiency/llamacpp-qwen2.5-7b-instruct-two-cards.yaml";
    Outcome r = runner.run({"import-bench", (runner.dir() / "two.json").string(), "--model", "qwen2.5-7b-instruct",
                            "--provenance", "third-party-measured", "--out", file});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = test::read_file(runner.dir() / file);
    EXPECT_NE(text.find("  gpus: \"the file's gpu_info lists 2 devices ('NVIDIA GeForce RTX 4080, NVIDIA GeForce RTX "
                        "4080'), not which of them the run split over\"\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("\ngpus: "), std::string::npos) << text;
}

/// The llama-bench JSON printed in llama.cpp's README, imported as a user would: the record
/// holds the run's one point (depth 0) with both speeds as the file gives them, lints clean
/// once notes and sources are written, and queries as one row.
TEST(ImportBenchCli, TheLlamaBenchReadmeRunImportsLintsAndQueries) {
    test::KvcatRunner runner;
    test::write_file(runner.dir() / "records/models/qwen2.5-7b-instruct.yaml", kQwen25Model);
    // The run's card, an RTX 4080, has no accelerator record, so none is named.
    const std::string file = "records/kv-efficiency/llamacpp-qwen2.5-7b-instruct-rtx4080-q4_k_m-f16.yaml";
    Outcome r = runner.run({"import-bench", bench_file("llama-bench-readme.json").string(), "--model",
                            "qwen2.5-7b-instruct", "--provenance", "third-party-measured", "--out", file});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = test::read_file(runner.dir() / file);
    EXPECT_NE(text.find("accelerator: null\n"), std::string::npos) << text;
    // ... and the record says why, from the file's gpu_info (measured-without-card).
    EXPECT_NE(text.find("unstated:\n  accelerator: \"the file names the card as 'NVIDIA GeForce RTX 4080', and no "
                        "accelerator record was given for it (import-bench --accelerator)\"\n"),
              std::string::npos)
        << text;
    // The card as the file names it, and its count: gpu_info lists one device (measured-without-card-count).
    EXPECT_NE(text.find("accelerator_named: NVIDIA GeForce RTX 4080\ngpus: 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("weight_quant: Q4_K_M\nkv_cache_dtype: f16\nweight_bytes: 4677120000\n"), std::string::npos)
        << text;
    // 28 layers x 4 kv heads x 128 x 2 (K and V) x 2 bytes (f16) = 57,344 bytes a token
    EXPECT_NE(text.find("kv_bytes_per_token: 57344\n"), std::string::npos) << text;
    // Imported by its absolute path, the file is named in the methodology by its name alone.
    ASSERT_TRUE(fs::path(bench_file("llama-bench-readme.json")).is_absolute());
    EXPECT_NE(text.find("from llama-bench JSON output (llama-bench-readme.json)."), std::string::npos) << text;
    EXPECT_EQ(text.find(KVCAT_FIXTURES_DIR), std::string::npos) << text;

    Outcome lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 1) << lint.out;
    EXPECT_NE(lint.out.find("'notes' is missing"), std::string::npos) << lint.out;
    EXPECT_NE(lint.out.find("'sources' is missing"), std::string::npos) << lint.out;

    std::ofstream(runner.dir() / file, std::ios::app)
        << "notes: |\n"
           "  The example run printed in llama-bench's README: one prompt-processing test of 512\n"
           "  tokens and one generation test of 128 tokens, both on an empty cache.\n"
           "sources:\n"
           "  - name: llama.cpp tools/llama-bench/README.md, the JSON example\n"
           "    url: https://github.com/ggml-org/llama.cpp/blob/08d0baaca6745ecaec3a75cccf63b533646ead22/"
           "tools/llama-bench/README.md\n";
    lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 0) << lint.out << lint.err;

    Outcome built = runner.run({"build"});
    ASSERT_EQ(built.status, 0) << built.err;
    Outcome q = runner.run({"query", "--format", "csv", "--columns",
                            "context_length,concurrency,measured_tps_at_ctx,measured_prefill_tps_at_ctx,accelerator",
                            "model=models/qwen2.5-7b-instruct"});
    ASSERT_EQ(q.status, 0) << q.err;
    EXPECT_EQ(q.out,
              "context_length,concurrency,measured_tps_at_ctx,measured_prefill_tps_at_ctx,accelerator\r\n"
              "0,1,118.881588,7100.002165,\r\n");
}

/// facebook/opt-125m, the model of the saved vLLM result, as its config.json reads in a copy
/// of the model's repository (huggingface.co/autoevaluate/zero-shot-classification/blob/main/config.json,
/// "Commit files over from facebook/opt-125m repo"): num_hidden_layers 12,
/// num_attention_heads 12, hidden_size 768 (a head 768 / 12 = 64 wide), no separate key/value
/// head count (every head keeps K and V), max_position_embeddings 2048. 125M is the size the
/// model is published under.
constexpr const char* kOpt125mModel = R"(id: models/opt-125m
name: OPT-125m
config_source: >-
  facebook/opt-125m config.json as copied into autoevaluate/zero-shot-classification (not the
  model's own repository)
config_verified: false
total_params_b: 0.125
active_params_b: 0.125
native_context: 2048
num_layers: 12
attention_variant: mha
attention_heads: 12
kv_heads: 12
head_dim: 64
kv_layers:
  count: 12
sources:
  - name: facebook/opt-125m config.json, copied into autoevaluate/zero-shot-classification
    url: https://huggingface.co/autoevaluate/zero-shot-classification/blob/main/config.json
    detail: >-
      num_hidden_layers 12, num_attention_heads 12, hidden_size 768,
      max_position_embeddings 2048
notes: >-
  Multi-head attention: each of the 12 layers caches K and V for all 12 heads, each
  768 / 12 = 64 wide.
)";

/// A real saved vLLM result (vLLM 0.25.1, two requests in flight), imported: the context is
/// the mean input length, said so in the methodology; the record lints clean once notes and
/// sources are written and queries as one row at concurrency 2 with its speeds.
TEST(ImportBenchCli, ARealVllmResultImportsLintsAndQueries) {
    test::KvcatRunner runner;
    test::write_file(runner.dir() / "records/models/opt-125m.yaml", kOpt125mModel);
    const std::string file = "records/kv-efficiency/vllm-opt-125m-f16-c2.yaml";
    const std::string result = bench_file("vllm-0.25.1-opt-125m.json").string();
    Outcome r = runner.run({"import-bench", result, "--model", "opt-125m", "--kv-dtype", "f16", "--engine-version",
                            "0.25.1", "--provenance", "third-party-measured", "--out", file});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = test::read_file(runner.dir() / file);
    EXPECT_NE(text.find("context_length 32 is the mean input length, total_input_tokens 256 / completed 8, "
                        "rounded to a whole token"),
              std::string::npos)
        << text;
    // 12 layers x 12 kv heads x 64 x 2 (K and V) x 2 bytes (f16) = 36,864 bytes a token
    EXPECT_NE(text.find("kv_bytes_per_token: 36864\n"), std::string::npos) << text;

    std::ofstream(runner.dir() / file, std::ios::app)
        << "notes: |\n"
           "  Eight prompts of 32 tokens on average, two in flight at a time, from a result\n"
           "  file a public repository keeps as a test fixture.\n"
           "sources:\n"
           "  - name: er0080/vllm-benchmarking, packages/protocol/tests/fixtures/bench_serve_v0.25.1.json\n"
           "    url: https://github.com/er0080/vllm-benchmarking/blob/35d37799380d8acc17607202959a5f17999ef30e/"
           "packages/protocol/tests/fixtures/bench_serve_v0.25.1.json\n";
    Outcome lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 0) << lint.out << lint.err;
    Outcome q = runner.run({"query", "--format", "csv", "--columns",
                            "context_length,concurrency,measured_tps_at_ctx,measured_total_tps_at_ctx,"
                            "measured_ttft_ms_at_ctx",
                            "model=models/opt-125m"});
    ASSERT_EQ(q.status, 0) << q.err;
    // 1000 / 11.20450286665194 ms = 89.2498... tokens/s, to 0.01
    EXPECT_EQ(q.out,
              "context_length,concurrency,measured_tps_at_ctx,measured_total_tps_at_ctx,measured_ttft_ms_at_ctx\r\n"
              "32,2,89.25,82.89297074037474,55.68139649994919\r\n");

    // --context wins over what the file holds, and the methodology says it was given.
    r = runner.run({"import-bench", result, "--model", "opt-125m", "--kv-dtype", "f16", "--context", "64"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("context_length 64 was given with --context"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  - context_length: 64\n"), std::string::npos) << r.out;
}

/// A result that holds no input length, nor the totals to work one out, asks for --context.
TEST(ImportBenchCli, AVllmResultWithoutAnInputLengthAsksForContext) {
    test::KvcatRunner runner;
    const std::string bad = bench_file("bad/vllm-no-input-length.json").string();
    Outcome r = runner.run({"import-bench", bad, "--model", "llama-3.1-8b", "--kv-dtype", "bf16"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(bad + ":1:1: the result holds no input length"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("give the context with --context"), std::string::npos) << r.err;
    r = runner.run({"import-bench", bad, "--model", "llama-3.1-8b", "--kv-dtype", "bf16", "--context", "8k"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("  - context_length: 8192\n"), std::string::npos) << r.out;
}

TEST(ImportBenchCli, KAndVAtDifferentTypesGiveAMeanBytesPerElementThatLints) {
    test::KvcatRunner runner;
    const std::string file = "records/kv-efficiency/kv-split.yaml";
    Outcome r = runner.run({"import-bench", bench_file("k-and-v-differ.json").string(), "--model", "qwen3.5-27b",
                            "--accelerator", "nvidia-rtx-3090", "--out", file});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = test::read_file(runner.dir() / file);
    EXPECT_NE(text.find("kv_cache_dtype: q8_0\nv_cache_dtype: q4_0\n"), std::string::npos) << text;
    // 16 layers x 4 kv heads x 256 x 2 (K and V) x (34/32 + 18/32) / 2 = 26,624 bytes a token
    EXPECT_NE(text.find("kv_bytes_per_token: 26624\n"), std::string::npos) << text;
    EXPECT_NE(text.find("bytes_per_element: 26/32"), std::string::npos) << text;
    std::ofstream(runner.dir() / file, std::ios::app) << "notes: |\n  A test run.\nsources:\n  - name: a test file\n";
    Outcome lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 0) << lint.out << lint.err;
    Outcome q = runner.run({"query", "--format", "csv", "--columns", "kv_cache_dtype,v_cache_dtype,kv_bytes_per_token",
                            "record_id=kv-efficiency/kv-split"});
    EXPECT_EQ(q.out, "kv_cache_dtype,v_cache_dtype,kv_bytes_per_token\r\nq8_0,q4_0,26624\r\n") << q.err;

    // Stating K's size alone for such a cache is the kv-dtype-bytes finding, with the mean.
    std::string wrong = test::read_file(runner.dir() / file);
    wrong.replace(wrong.find("bytes_per_element: 26/32"), 24, "bytes_per_element: 34/32");
    std::ofstream(runner.dir() / file, std::ios::trunc) << wrong;
    lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 1);
    EXPECT_NE(lint.out.find("[kv-dtype-bytes] bytes_per_element is 1.0625, but K at q8_0 and V at q4_0 stores "
                            "(1.0625 + 0.5625) / 2 = 0.8125 bytes per element on average"),
              std::string::npos)
        << lint.out;
}

TEST(ImportBenchCli, AVllmResultNeedsItsCacheDtypeNamed) {
    test::KvcatRunner runner;
    Outcome r = runner.run({"import-bench", bench_file("vllm-8k.json").string(), "--model", "llama-3.1-8b"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("does not name its KV cache dtype: give --kv-dtype"), std::string::npos) << r.err;
    r = runner.run(
        {"import-bench", bench_file("vllm-8k.json").string(), "--model", "llama-3.1-8b", "--kv-dtype", "bf16"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("measured_tps_at_ctx: 125\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("measured_total_tps_at_ctx"), std::string::npos) << r.out;
}

constexpr const char* kQwen3_4bModel = R"(id: models/qwen3-4b-thinking-2507
name: Qwen3-4B-Thinking-2507
config_source: >-
  Qwen3-4B config.json as copied into the model card of akougkas/warpio-cli (not the model's
  own repository)
config_verified: false
total_params_b: 4
active_params_b: 4
native_context: 262144
num_layers: 36
attention_variant: gqa
attention_heads: 32
kv_heads: 8
head_dim: 128
kv_layers:
  count: 36
sources:
  - name: Qwen3-4B config.json, copied into akougkas/warpio-cli warpio-docs/ai-docs/model_cards/qwen3:4b.md
    url: https://github.com/akougkas/warpio-cli/blob/main/warpio-docs/ai-docs/model_cards/qwen3:4b.md
    detail: >-
      num_hidden_layers 36, num_attention_heads 32, num_key_value_heads 8, head_dim 128,
      max_position_embeddings 262144
notes: >-
  Grouped-query attention: each of the 36 layers caches K and V for 8 heads of 128.
)";

/// A real GuideLLM report (one benchmark at 4 streams), imported: GuideLLM names no engine, so
/// the importer asks for one; the record lints clean once notes and sources are written and
/// queries as one row at concurrency 4.
TEST(ImportBenchCli, ARealGuidellmReportImportsLintsAndQueries) {
    test::KvcatRunner runner;
    test::write_file(runner.dir() / "records/models/qwen3-4b-thinking-2507.yaml", kQwen3_4bModel);
    const std::string report = bench_file("guidellm-0.5-qwen3-4b-concurrent4.json").string();
    Outcome r = runner.run({"import-bench", report, "--model", "qwen3-4b-thinking-2507", "--kv-dtype", "bf16"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("GuideLLM benchmarks JSON output does not name its engine: give --engine"), std::string::npos)
        << r.err;
    const std::string file = "records/kv-efficiency/guidellm-qwen3-4b-c4.yaml";
    r = runner.run({"import-bench", report, "--model", "qwen3-4b-thinking-2507", "--kv-dtype", "bf16", "--engine",
                    "vLLM", "--provenance", "third-party-measured", "--out", file});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = test::read_file(runner.dir() / file);
    EXPECT_NE(text.find("1 point: one per benchmark; measured_tps_at_ctx is 1000 / the median inter_token_latency_ms"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("benchmark 1: concurrent at 4 streams"), std::string::npos) << text;
    EXPECT_NE(text.find("the speeds are the client's"), std::string::npos) << text;
    // 36 layers x 8 kv heads x 128 x 2 (K and V) x 2 bytes (bf16) = 147,456 bytes a token
    EXPECT_NE(text.find("kv_bytes_per_token: 147456\n"), std::string::npos) << text;
    std::ofstream(runner.dir() / file, std::ios::app)
        << "notes: |\n"
           "  Four AIME 2024 prompts, four in flight, from a GuideLLM report a public repository keeps.\n"
           "sources:\n"
           "  - name: danielkorat/guidellm-bench, a GuideLLM benchmarks.json\n"
           "    url: https://github.com/danielkorat/guidellm-bench/blob/8f24116d0d1b21073be686c2cce9d796f5c1b59e/"
           "guidellm_sanity_results/20260302_1856/Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json\n"
           "    date: 2026-03-02\n";
    Outcome lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 0) << lint.out << lint.err;
    Outcome q = runner.run({"query", "--format", "csv", "--columns",
                            "context_length,concurrency,measured_tps_at_ctx,measured_total_tps_at_ctx,"
                            "measured_ttft_ms_at_ctx",
                            "model=models/qwen3-4b-thinking-2507"});
    ASSERT_EQ(q.status, 0) << q.err;
    EXPECT_EQ(q.out,
              "context_length,concurrency,measured_tps_at_ctx,measured_total_tps_at_ctx,measured_ttft_ms_at_ctx\r\n"
              "99,4,41.36,165.59511945248636,171.52166366577148\r\n");
}

/// A real SGLang bench_serving sweep (five request rates), imported: the engine is the
/// backend's, each line a point at its mean input length and measured concurrency; the record
/// lints clean once notes and sources are written.
TEST(ImportBenchCli, ARealSglangSweepImportsLintsAndQueries) {
    test::KvcatRunner runner;
    fs::copy_file(fs::path(KVCAT_SOURCE_DIR) / "records/models/llama-3.3-70b.yaml",
                  runner.dir() / "records/models/llama-3.3-70b.yaml");
    const std::string file = "records/kv-efficiency/sglang-llama-3.3-70b-h200-rates.yaml";
    Outcome r = runner.run({"import-bench", bench_file("sglang-h200-llama-3.3-70b-online-random.jsonl").string(),
                            "--model", "llama-3.3-70b", "--accelerator", "nvidia-h200", "--kv-dtype", "bf16",
                            "--provenance", "third-party-measured", "--out", file});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = test::read_file(runner.dir() / file);
    EXPECT_NE(text.find("engine: SGLang\n"), std::string::npos) << text;
    EXPECT_NE(text.find("5 points: one per line; measured_tps_at_ctx is 1000 / median_tpot_ms (or median_itl_ms)"),
              std::string::npos)
        << text;
    // 80 layers x 8 kv heads x 128 x 2 (K and V) x 2 bytes (bf16) = 327,680 bytes a token
    EXPECT_NE(text.find("kv_bytes_per_token: 327680\n"), std::string::npos) << text;
    std::ofstream(runner.dir() / file, std::ios::app)
        << "notes: |\n"
           "  Five request rates of the random dataset against Llama 3.3 70B on four H200s; each\n"
           "  concurrency is the mean requests in flight, measured, not set.\n"
           "sources:\n"
           "  - name: datacrunch-research/h200-benchmarks, sglang/outputs/llama_3_3_70b_online_output.jsonl\n"
           "    url: https://github.com/datacrunch-research/h200-benchmarks/blob/"
           "c091ef530a525d2e788bc41c39a4450b09c9f2ad/sglang/outputs/llama_3_3_70b_online_output.jsonl\n"
           "    date: 2024-12-14\n"
           "    detail: lines 1 to 5\n";
    Outcome lint = runner.run({"lint", file});
    EXPECT_EQ(lint.status, 0) << lint.out << lint.err;
    Outcome q = runner.run({"query", "--format", "csv", "--columns",
                            "context_length,concurrency,measured_tps_at_ctx,measured_ttft_ms_at_ctx",
                            "record_id=kv-efficiency/sglang-llama-3.3-70b-h200-rates"});
    ASSERT_EQ(q.status, 0) << q.err;
    EXPECT_EQ(q.out,
              "context_length,concurrency,measured_tps_at_ctx,measured_ttft_ms_at_ctx\r\n"
              "509,8,73.32,85.74514742940664\r\n"
              "509,1245,5.58,614.2499720444903\r\n"
              "510,360,14.13,191.41179136931896\r\n"
              "513,52,51.49,106.06311704032123\r\n"
              "515,16,67.43,87.55627297796309\r\n");
}

}  // namespace
}  // namespace kvcat
