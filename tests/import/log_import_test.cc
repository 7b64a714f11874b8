// import-log's reading of a start-up log: the figures, the settings and the build it prints,
// each from a real log of tests/fixtures/engine-logs/.
#include "engines/engine_log.h"

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

TEST(LogImport, TheRecurrentLineIsReadInEachOfItsThreeWordings) {
    // Before b9000, from b9421 ("0 rs_seq") and release v0.4.0 (a P part, 0.00 MiB here); a P
    // that holds bytes (a PLE model, which kvcat does not model) does not read.
    const std::string start = "llama_memory_recurrent: size =   50.25 MiB (     1 cells,  32 layers,  1 seqs";
    const std::string figures = "R (f32):    2.25 MiB, S (f32):   48.00 MiB";
    for (const std::string& line : {start + "), " + figures, start + "  0 rs_seq), " + figures,
                                    start + "  0 rs_seq), " + figures + ", P (f32):    0.00 MiB"}) {
        ParsedLog log = parse_engine_log(line + "\n", "x.log");
        ASSERT_TRUE(log.recurrent) << line;
        EXPECT_EQ(log.recurrent->r_mib, "2.25") << line;
        EXPECT_EQ(log.recurrent->s_mib, "48.00") << line;
        EXPECT_EQ(log.recurrent->seqs, 1) << line;
    }
    EXPECT_THROW(parse_engine_log(start + "  0 rs_seq), " + figures + ", P (f32):    3.00 MiB\n", "x.log"), LogError);
}

TEST(LogImport, AWholeStartsBuffersAndTheSettingsThatSizeThemAreRead) {
    // Llama 3 8B Q4_K_M on an RTX 3070 (llama-cpp-python, 2024): the older "<device> buffer size"
    // spelling is the weights; the KV buffer is the cache's own line's.
    ParsedLog log = parse_fixture("llamacpp-python-llama-3-8b-q4_k_m-f16-512-3070");
    ASSERT_EQ(log.buffers.size(), 5u);
    EXPECT_EQ(log.buffers[4].device, "CUDA_Host");
    EXPECT_EQ(log.buffers[4].mib, "9.01");
    EXPECT_EQ(log.buffers[0].device, "CPU");
    EXPECT_EQ(log.buffers[0].kind, "model");
    EXPECT_EQ(log.buffers[0].mib, "281.81");
    EXPECT_EQ(log.buffers[1].device, "CUDA0");
    EXPECT_EQ(log.buffers[1].mib, "4403.49");
    EXPECT_EQ(log.buffers[2].kind, "output");
    EXPECT_EQ(log.buffers[3].device, "CUDA0");
    EXPECT_EQ(log.buffers[3].kind, "compute");
    EXPECT_EQ(log.buffers[3].mib, "258.50");
    EXPECT_EQ(log.n_ubatch, 512);
    EXPECT_EQ(log.flash_attn, "0");
    EXPECT_EQ(log.file_type, "Q4_K - Medium");
    std::string record = allocation_record_text(log, "allocations/x", "models/llama-3.1-8b", "", "", "", "x.log");
    EXPECT_EQ(log.offloaded_layers, "33/33");
    EXPECT_NE(record.find("start:\n  file_type: \"Q4_K - Medium\"\n  n_ubatch: 512\n  flash_attn: \"0\"\n  "
                          "offloaded_layers: \"33/33\"\n  buffers:\n"),
              std::string::npos)
        << record;
    EXPECT_NE(record.find("log_lines:\n  - \"offloaded 33/33 layers to GPU\"\n"), std::string::npos) << record;
    // Early 2024's input buffer (the host's inputs) is not a buffer kvcat reads.
    ParsedLog old = parse_fixture("llamacpp-rs-llama-2-7b-q4_k_m-f16-2048-3090");
    for (const auto& b : old.buffers) EXPECT_NE(b.device, "input");
    EXPECT_EQ(old.buffers.size(), 4u);
    // The same device's compute buffer printed twice with two sizes is two starts, refused.
    const std::string kv =
        "llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  256.00 MiB, "
        "V (f16):  256.00 MiB\n";
    const std::string a = "llama_context:      CUDA0 compute buffer size =   258.50 MiB\n";
    const std::string b = "llama_context:      CUDA0 compute buffer size =   266.50 MiB\n";
    EXPECT_EQ(parse_engine_log(kv + a + a, "x.log").buffers.size(), 1u);  // a retried reserve prints it again
    // A device named with spaces is the whole name; its KV buffer is the cache's, not a start buffer.
    ParsedLog radeon = parse_engine_log(
        kv + "llama_kv_cache_init: AMD Radeon RX 7900 XTX (RADV NAVI31) KV buffer size =  2244.00 MiB\n" +
            "llm_load_tensors: AMD Radeon RX 7900 XTX (RADV NAVI31) buffer size = 17545.11 MiB\n",
        "x.log");
    ASSERT_EQ(radeon.buffers.size(), 1u);
    EXPECT_EQ(radeon.buffers[0].device, "AMD Radeon RX 7900 XTX (RADV NAVI31)");
    EXPECT_EQ(radeon.buffers[0].kind, "model");
    try {
        parse_engine_log(kv + a + b, "x.log");
        FAIL() << "two compute buffers of CUDA0 were read as one start";
    } catch (const LogError& e) {
        EXPECT_NE(std::string(e.what()).find("x.log:3: a second CUDA0 compute buffer, where line 2 gave another"),
                  std::string::npos)
            << e.what();
    }
}

TEST(LogImport, TheLayersOnTheGpuAreKeptWithAStartsBuffersAndOnlyThen) {
    const std::string offload = "load_tensors: offloaded 18/33 layers to GPU\n";
    const std::string kv =
        "llama_kv_cache: size =  256.00 MiB (  2048 cells,  32 layers,  1/1 seqs), K (f16):  128.00 MiB, "
        "V (f16):  128.00 MiB\n";
    const std::string compute = "llama_context:      CUDA0 compute buffer size =   192.01 MiB\n";
    ParsedLog with_start = parse_engine_log(offload + kv + compute, "x.log");
    EXPECT_EQ(with_start.offloaded_layers, "18/33");
    ASSERT_FALSE(with_start.lines.empty());
    EXPECT_EQ(with_start.lines.front(), "offloaded 18/33 layers to GPU");  // in the log's order
    // The cache's lines alone make no start block, so the offload line is not kept.
    ParsedLog cache_only = parse_engine_log(offload + kv, "x.log");
    EXPECT_EQ(cache_only.offloaded_layers, "");
    EXPECT_EQ(cache_only.lines.size(), 1u);
    // Two starts that put different layers on the GPU are two starts.
    EXPECT_THROW(parse_engine_log(offload + kv + compute + "load_tensors: offloaded 33/33 layers to GPU\n", "x.log"),
                 LogError);
}

TEST(LogImport, AModelSplitOverFilesMapsABufferForEachWhileItLoads) {
    // gpt-oss-120b in two files on Metal (LM Studio, lmstudio-metal-1.44.0-gpt-oss-120b-...): one
    // Metal_Mapped buffer a file, both kept; the same device's model buffer printed again after
    // the compute buffers would be a second start.
    ParsedLog split = parse_fixture("lmstudio-metal-1.44.0-gpt-oss-120b-mxfp4-f16-4096-m4-max");
    int mapped = 0;
    for (const auto& b : split.buffers) mapped += b.device == "Metal_Mapped" && b.kind == "model";
    EXPECT_EQ(mapped, 2);
    const std::string kv =
        "llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  256.00 MiB, "
        "V (f16):  256.00 MiB\n";
    const std::string model_a = "load_tensors: Metal_Mapped model buffer size = 22479.80 MiB\n";
    const std::string model_b = "load_tensors: Metal_Mapped model buffer size =  1000.00 MiB\n";
    const std::string compute = "llama_context:      Metal compute buffer size =   258.50 MiB\n";
    EXPECT_EQ(parse_engine_log(model_a + model_b + kv + compute, "x.log").buffers.size(), 3u);
    EXPECT_THROW(parse_engine_log(model_a + kv + compute + model_b, "x.log"), LogError);
}

TEST(LogImport, MinusCOnThePastedCommandLineGivesTheCellsWhenTheLogPrintsNone) {
    // An older "KV self size" line carries no cells; the command line pasted above it does.
    const std::string kv =
        "llama_new_context_with_model: KV self size  = 4096.00 MiB, K (f16): 2048.00 MiB, V (f16): "
        "2048.00 MiB\n";
    ParsedLog log = parse_engine_log("./llama-server -m models/llama-3.1-8b.gguf -c 32768 -ngl 99\n" + kv, "x.log");
    ASSERT_EQ(log.caches.size(), 1u);
    EXPECT_EQ(log.caches[0].cells, 32768);
    EXPECT_TRUE(log.cells_from_command_line);
    std::string record = allocation_record_text(log, "allocations/x", "models/llama-3.1-8b", "", "", "", "x.log");
    EXPECT_NE(record.find("the cells are -c of the command line"), std::string::npos) << record;
    EXPECT_NE(record.find("  cells: 32768\n"), std::string::npos) << record;
    // A -c that a build pads (30,000: 30,016 cells padded to 32, 30,208 padded to 256) is refused.
    try {
        parse_engine_log("llama-cli -m m.gguf --ctx-size 30000\n" + kv, "x.log");
        FAIL() << "-c 30000 was taken as the cells";
    } catch (const LogError& e) {
        EXPECT_NE(std::string(e.what()).find("-c 30000 is not a multiple of 256"), std::string::npos) << e.what();
    }
    // Without any, the cells are unknown, as before; a "-c" of another program is not llama.cpp's.
    EXPECT_THROW(parse_engine_log("bash -c 32768\n" + kv, "x.log"), LogError);
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

// vLLM's quantization, from the config line (quantization=None, quantization=fp8) or from the
// arguments' dictionary ('quantization': 'gptq'), and expert parallel from the arguments: the
// lint's judgement of the weights as loaded depends on both.
TEST(LogImport, VllmsQuantizationAndExpertParallelAreReadInEitherSpelling) {
    ParsedLog plain = parse_fixture("vllm-0.19.0-qwen3-8b-h100-0.95-8k");
    EXPECT_EQ(plain.quantization, "None");
    EXPECT_FALSE(plain.expert_parallel);
    ParsedLog gptq = parse_fixture("vllm-0.11.0-nv25.11-mistral-7b-instruct-v0.2-gptq-dgx-spark");
    EXPECT_EQ(gptq.quantization, "gptq");
    ParsedLog ep = parse_fixture("vllm-0.10.0-qwen3-235b-a22b-fp8-tp8-ep-h100-fp8kv");
    EXPECT_EQ(ep.quantization, "fp8");
    EXPECT_TRUE(ep.expert_parallel);
    std::string record = allocation_record_text(ep, "allocations/x", "models/qwen3-235b-a22b", "", "", "", "x.log");
    EXPECT_NE(record.find("  quantization: fp8\n  expert_parallel: true\n"), std::string::npos) << record;
}

TEST(LogImport, SglangMambaPoolLineGivesItsRequestsAndSizes) {
    ParsedLog log = parse_fixture("sglang-0.5.9-kt-qwen3.5-397b-a17b-fp8-tp2-4090-mamba");
    EXPECT_EQ(log.engine, Engine::sglang);
    ASSERT_TRUE(log.mamba_slots);
    EXPECT_EQ(*log.mamba_slots, 82);
    EXPECT_EQ(log.conv_state_gb, "0.13");
    EXPECT_EQ(log.ssm_state_gb, "7.29");
    EXPECT_EQ(log.kv_cache_dtype, "bfloat16");  // "Using KV cache dtype: torch.bfloat16"
    EXPECT_EQ(log.tokens, 580364);
    EXPECT_EQ(log.tensor_parallel, 2);  // --tp-size 2
    std::string record = allocation_record_text(log, "allocations/x", "models/qwen3.5-397b-a17b", "", "", "", "x.log");
    EXPECT_NE(record.find("  mamba_slots: 82\n  conv_state_gb: 0.13\n  ssm_state_gb: 7.29\n"), std::string::npos)
        << record;
}

TEST(LogImport, NewerSglangLinesNameTheDtypeInThePoolLine) {
    std::string text =
        "[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 454112, K size: 3.46 "
        "GB, V size: 3.46 GB\n";
    ParsedLog log = parse_engine_log(text, "pasted.log");
    EXPECT_EQ(log.tokens, 454112);
    EXPECT_EQ(log.k_gb, "3.46");
    EXPECT_EQ(log.kv_cache_dtype, "float8_e4m3fn");
}

TEST(LogImport, SpeculativeMambaPoolIsRefusedWithItsLine) {
    std::string text =
        "x\nMamba Cache is allocated. max_mamba_cache_size: 48, conv_state size: 0.10GB, ssm_state size: 2.58GB "
        "intermediate_ssm_state_cache size: 1.05GB intermediate_conv_window_cache size: 0.02GB \n";
    try {
        parse_engine_log(text, "spec.log");
        FAIL() << "a speculative Mamba pool was read";
    } catch (const LogError& e) {
        EXPECT_NE(std::string(e.what()).find("spec.log:2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("intermediate caches"), std::string::npos) << e.what();
    }
}

TEST(LogImport, IkLlamaMlaAttnZeroOnALatentModelMarksTheCacheMlaOff) {
    ParsedLog log = parse_fixture("ik-deepseek-r1-q4_k_m-nomla-q8_0k-f16v-8k");
    ASSERT_EQ(log.caches.size(), 1u);
    EXPECT_TRUE(log.caches[0].mla_off);
    EXPECT_EQ(log.caches[0].cells, 8192);
    // A model whose metadata prints no latent (n_lora_kv) is not marked, whatever mla_attn says.
    ParsedLog plain = parse_engine_log(
        "llama_new_context_with_model: n_ctx      = 4096\nllama_new_context_with_model: mla_attn   = 0\n"
        "llama_new_context_with_model: KV self size  =  448.00 MiB, K (f16):  224.00 MiB, V (f16):  224.00 MiB\n",
        "plain.log");
    ASSERT_EQ(plain.caches.size(), 1u);
    EXPECT_FALSE(plain.caches[0].mla_off);
}

// A line of 40 KB once overflowed std::regex's recursion and killed import-log by SIGSEGV: it is
// passed over, and the lines around it are read as ever.
TEST(LogImport, ALineLongerThanAnyEngineLineIsPassedOverNotACrash) {
    std::string text = "main: build = 5192 (a1b2c3d)\n" + std::string(40000, '(') + "llama_kv_cache " +
                       std::string(40000, 'a') + "\n" +
                       "llama_kv_cache: size = 4352.00 MiB (131072 cells, 16 layers, 4/1 seqs), K (q8_0): 2176.00 "
                       "MiB, V (q8_0): 2176.00 MiB\n";
    ParsedLog log = parse_engine_log(text, "long.log");
    ASSERT_EQ(log.caches.size(), 1u);
    EXPECT_EQ(log.caches[0].cells, 131072);
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

TEST(LogImport, SglangsSlidingWindowPairOfPoolsIsRefusedByNameNotReadAsOnePool) {
    // The lines of sgl-project/sglang pull request 18039 (MiMo-V2-Flash, tp 4): two pools, each
    // with its own "KV Cache is allocated" line; read as one they were merged, the last winning.
    std::string text =
        "[2026-01-31 13:50:39 TP0] Use sliding window memory pool. full_layer_tokens=375360, "
        "swa_layer_tokens=300288\n"
        "[2026-01-31 13:50:39 TP0] KV Cache is allocated. #tokens: 300288, K size: 8.38 GB, V size: 5.59 GB\n";
    try {
        parse_engine_log(text, "swa.log");
        ADD_FAILURE() << "read as one pool";
    } catch (const LogError& e) {
        EXPECT_NE(std::string(e.what()).find("swa.log:1: SGLang's sliding-window memory pool keeps two pools"),
                  std::string::npos)
            << e.what();
    }
}

TEST(LogImport, ABaseCacheBesideAPlainOneIsRefusedNamingBothLines) {
    // Found by the import_log fuzz target: an ISWA base cache and a cache of the whole model in
    // one log would both be the record's kv_cache, and the record would name the key twice.
    const std::string size_line =
        "llama_kv_cache: size =  102.00 MiB (  8192 cells,  12 layers,  1/1 seqs), K (q8_0):   51.00 MiB, V (q8_0):   "
        "51.00 MiB\n";
    std::string text = "llama_kv_cache_iswa: creating non-SWA KV cache, size = 8192 cells\n" + size_line + size_line;
    try {
        parse_engine_log(text, "iswa.log");
        ADD_FAILURE() << "two caches read as the record's one kv_cache";
    } catch (const LogError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("iswa.log:3:"), std::string::npos) << what;
        EXPECT_NE(what.find("after the one on line 2"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace kvcat
