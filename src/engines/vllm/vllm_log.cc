#include "engines/vllm/vllm_log.h"

#include <regex>

#include <fmt/format.h>

namespace kvcat {

namespace {

const LogPattern kVllmMarker(
    R"((GPU KV cache size:|Available KV cache memory:|Maximum concurrency for|Model loading took [0-9.]+ GiB|)"
    R"(Free memory on device \([0-9.]+/[0-9.]+ GiB\) on startup\. Desired|CUDA graph pool memory:))");
const LogPattern kAvailable(R"(Available KV cache memory: ([0-9.]+) GiB\s*$)");
// Later releases print the concurrency on the same line: "GPU KV cache size: 460,496 tokens,
// Maximum concurrency for 131,072 tokens per request: 3.51x".
const LogPattern kTokens(R"(GPU KV cache size: ([0-9,]+) tokens(?:\s*$|(?=, Maximum concurrency)))");
const LogPattern kConcurrency(R"(Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x\s*$)");
const LogPattern kVllmVersion(R"(V1 LLM engine \(v([0-9][0-9.a-z+]*)\)|vLLM API server version ([0-9][0-9.a-z+]*))");
const LogPattern kMaxSeqLen(R"(max_seq_len=(\d+)|'max_model_len': (\d+))");
const LogPattern kTp(R"(tensor_parallel_size=(\d+)|'tensor_parallel_size': (\d+))");
// The launch command, where a log starts with it: vLLM's --tensor-parallel-size, SGLang's --tp/--tp-size.
const LogPattern kCliTp(R"((?:^|\s)--(?:tensor-parallel-size|tp-size|tp)[= ](\d+)\b)");
const LogPattern kKvDtype(R"(kv_cache_dtype=(\w+)|'kv_cache_dtype': '(\w+)')");
const LogPattern kBatched(R"(max_num_batched_tokens=(\d+)|'max_num_batched_tokens': (\d+))");
const LogPattern kBlockSize(R"('block_size': (\d+)|Setting attention block size to (\d+) tokens)");
const LogPattern kModelDtype(R"(dtype=torch\.(\w+))");
const LogPattern kUtilization(
    R"('gpu_memory_utilization': ([0-9.]+)|gpu_memory_utilization=([0-9.]+)|--gpu-memory-utilization[= ]([0-9.]+))");
// The config line's quantization ("quantization=None" for a checkpoint loaded in the model's dtype),
// or the arguments' where a release prints them as a dictionary.
const LogPattern kQuantization(R"(\bquantization=([\w-]+)|'quantization': '([\w-]+)')");
const LogPattern kExpertParallel(R"(enable_expert_parallel'?(?:=|: )True)");
const LogPattern kModelLoading(R"(Model loading took ([0-9.]+) GiB)");  // "... and 4.42 seconds" follows
// The worker's profile, printed once the CUDA graphs are captured (vllm/v1/worker/gpu_worker.py,
// compile_or_warm_up_model: "for weight ... for non-torch memory" from 0.10.2 at 01efc7ef to 0.20.x,
// "for consumed memory (weights + non-torch)" in later ones, at 4f819f80), then the
// --kv-cache-memory it suggests, in bytes, and the pool's memory (GiB, or bytes in 0.10.2).
const LogPattern kProfile(
    R"(Free memory on device \(([0-9.]+)/([0-9.]+) GiB\) on startup\. Desired GPU memory utilization is )"
    R"(\(([0-9.]+), ([0-9.]+) GiB\)\. Actual usage is ([0-9.]+) GiB for (weight|consumed memory \(weights \+ )"
    R"(non-torch\)), ([0-9.]+) GiB for peak activation, (?:([0-9.]+) GiB for non-torch memory, )?and ([0-9.]+) GiB )"
    R"(for CUDAGraph memory\.)");
const LogPattern kProfileAdvice(
    R"(--kv-cache-memory=(-?\d+)`(?: \(-?[0-9.]+ GiB\))? to fit into requested memory, or `--kv-cache-memory=)"
    R"((-?\d+)`(?: \(-?[0-9.]+ GiB\))? to fully utilize gpu memory\. Current kv cache memory in use is )"
    R"(([0-9.]+) (GiB|bytes)\.)");
const LogPattern kGraphPool(R"(CUDA graph pool memory: ([0-9.]+) GiB \(actual\), ([0-9.]+) GiB \(estimated\))");

void read_concurrency(LogCursor& cur, const std::smatch& m, ParsedLog& out) {
    cur.once("concurrency", out.concurrency, cur.decimal(m[2], "maximum concurrency"));
    if (!out.max_model_len) out.max_model_len = cur.count(m[1], "tokens per request");
}

/// Reads the profile line into `out` (its utilization into the settings' when they gave none).
void read_profile(LogCursor& cur, const std::smatch& m, ParsedLog& out) {
    LoggedVllmProfile& p = out.profile;
    cur.once("profile free", p.free_gib, cur.decimal(m[1], "free memory on device"));
    cur.once("profile total", p.total_gib, cur.decimal(m[2], "total memory on device"));
    std::string utilization = cur.decimal(m[3], "desired GPU memory utilization");
    if (out.gpu_memory_utilization.empty()) out.gpu_memory_utilization = utilization;
    cur.once("profile requested", p.requested_gib, cur.decimal(m[4], "desired GPU memory"));
    std::string& used = m[6] == "weight" ? p.weights_gib : p.consumed_gib;
    cur.once("profile used", used, cur.decimal(m[5], m[6] == "weight" ? "weight" : "consumed memory"));
    cur.once("profile activation", p.activation_gib, cur.decimal(m[7], "peak activation"));
    if (m[8].matched) cur.once("profile non-torch", p.non_torch_gib, cur.decimal(m[8], "non-torch memory"));
    cur.once("profile graphs", p.cudagraph_gib, cur.decimal(m[9], "CUDAGraph memory"));
    std::smatch a;
    std::string rest = m.suffix();
    if (!std::regex_search(rest, a, kProfileAdvice.get())) return;
    using Bytes = std::optional<std::int64_t>;
    cur.once("profile fit", p.fit_bytes, Bytes(cur.whole(a[1], "--kv-cache-memory to fit into requested memory")));
    cur.once("profile full", p.full_bytes, Bytes(cur.whole(a[2], "--kv-cache-memory to fully utilize gpu memory")));
    if (a[4] == "bytes") {
        cur.once("profile in use", p.in_use_bytes, Bytes(cur.whole(a[3], "kv cache memory in use")));
    } else {
        cur.once("profile in use", p.in_use_gib, cur.decimal(a[3], "kv cache memory in use"));
    }
}

class VllmLogReader final : public LogReader {
  public:
    bool read_settings(LogCursor& cur, ParsedLog& out) override {
        std::smatch m;
        if (cur.search(m, kVllmVersion, {"LLM engine (v", "server version"})) {
            out.version = either_group(m, 1, 2);
            seen = true;
        }
        if (cur.search(m, kMaxSeqLen, {"max_seq_len=", "'max_model_len'"}))
            out.max_model_len = cur.count(either_group(m, 1, 2), "max_model_len");
        if (cur.search(m, kTp, {"tensor_parallel_size"}))
            out.tensor_parallel = cur.count(either_group(m, 1, 2), "tensor_parallel_size");
        if (!out.tensor_parallel && cur.search(m, kCliTp, {"--t"}))
            out.tensor_parallel = cur.count(m[1], "tensor-parallel size");
        if (cur.search(m, kKvDtype, {"kv_cache_dtype"})) out.kv_cache_dtype = either_group(m, 1, 2);
        if (cur.search(m, kBatched, {"max_num_batched_tokens"}))
            out.max_num_batched_tokens = cur.count(either_group(m, 1, 2), "max_num_batched_tokens");
        if (cur.search(m, kBlockSize, {"block_size", "block size"}))
            out.block_size = cur.count(either_group(m, 1, 2), "block_size");
        if (cur.search(m, kModelDtype, {"dtype=torch."})) out.model_dtype = m[1];
        if (out.quantization.empty() && cur.search(m, kQuantization, {"quantization"}))
            out.quantization = either_group(m, 1, 2);
        if (cur.search(m, kExpertParallel, {"enable_expert_parallel"})) out.expert_parallel = true;
        if (cur.search(m, kUtilization, {"gpu_memory_utilization", "gpu-memory-utilization"}))
            out.gpu_memory_utilization = m[1].matched ? m[1] : either_group(m, 2, 3);
        return false;
    }

    std::optional<std::size_t> figure_start(const LogCursor& cur) const override {
        return cur.position(kVllmMarker, {"GPU KV cache size:", "Available KV cache memory:", "Maximum concurrency for",
                                          "Model loading took", "Free memory on device", "CUDA graph pool memory"});
    }

    bool read_figure(LogCursor& cur, const std::string& figure, ParsedLog& out) override {
        std::smatch m;
        if (std::regex_search(figure, m, kAvailable.get())) {
            cur.once("available", out.available_gib, cur.decimal(m[1], "available KV cache memory"));
        } else if (std::regex_search(figure, m, kTokens.get())) {
            cur.once("tokens", out.tokens, cur.count(m[1], "GPU KV cache size"));
            std::string rest = m.suffix();
            if (std::regex_search(rest, m, kConcurrency.get())) read_concurrency(cur, m, out);
        } else if (std::regex_search(figure, m, kModelLoading.get())) {
            cur.once("model loading", out.model_loading_gib, cur.decimal(m[1], "model loading"));
        } else if (std::regex_search(figure, m, kProfile.get())) {
            read_profile(cur, m, out);
        } else if (std::regex_search(figure, m, kGraphPool.get())) {
            cur.once("graph pool", out.profile.estimate_gib, cur.decimal(m[2], "CUDA graph estimate"));
        } else if (std::regex_search(figure, m, kConcurrency.get())) {
            read_concurrency(cur, m, out);
        } else {
            return false;
        }
        seen = true;
        return true;
    }

    void finish(const std::string& file, LogText kind, ParsedLog& out) const override {
        if (!out.tokens && kind == LogText::whole_log) {
            throw LogError(
                fmt::format("{}: a vLLM log without a 'GPU KV cache size' line (vLLM's V0 engine prints GPU "
                            "blocks instead, which kvcat does not model)",
                            file));
        }
    }
};

}  // namespace

std::unique_ptr<LogReader> vllm_log_reader(LogText /*kind*/) {
    return std::make_unique<VllmLogReader>();
}

void vllm_record_block(const ParsedLog& log, std::string& t) {
    t += "vllm:\n";
    yaml_optional(t, "available_kv_gib", log.available_gib);
    yaml_optional(t, "tokens", log.tokens);
    yaml_optional(t, "max_model_len", log.max_model_len);
    yaml_optional(t, "concurrency", log.concurrency);
    yaml_optional(t, "block_size", log.block_size);
    yaml_optional(t, "max_num_batched_tokens", log.max_num_batched_tokens);
    yaml_optional(t, "tensor_parallel", log.tensor_parallel);
    yaml_optional(t, "kv_cache_dtype", log.kv_cache_dtype);
    yaml_optional(t, "model_dtype", log.model_dtype);
    yaml_optional(t, "quantization", log.quantization);
    if (log.expert_parallel) t += "  expert_parallel: true\n";
    yaml_optional(t, "gpu_memory_utilization", log.gpu_memory_utilization);
    yaml_optional(t, "model_loading_gib", log.model_loading_gib);
    for_each_profile_figure(log.profile, [&t](const char* key, const auto& value) { yaml_optional(t, key, value); });
}

}  // namespace kvcat
