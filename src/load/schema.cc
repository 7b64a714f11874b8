#include "load/schema.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "load/load_findings.h"
#include "support/rational.h"
#include "support/suggest.h"
#include "vocab/dtype.h"
#include "vocab/gguf_arch.h"
#include "vocab/state_dtype.h"

namespace kvcat {

std::span<const RecordKind> record_kinds() {
    static constexpr RecordKind kKinds[] = {RecordKind::model, RecordKind::accelerator, RecordKind::kv_efficiency,
                                            RecordKind::allocation};
    return kKinds;
}

std::string kind_folders_text() {
    std::string out;
    auto kinds = record_kinds();
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        if (i > 0) out += i + 1 == kinds.size() ? " or " : ", ";
        out += std::string(kind_folder(kinds[i])) + "/";
    }
    return out;
}

std::string_view kind_folder(RecordKind kind) {
    switch (kind) {
        case RecordKind::model:
            return "models";
        case RecordKind::accelerator:
            return "accelerators";
        case RecordKind::kv_efficiency:
            return "kv-efficiency";
        case RecordKind::allocation:
            return "allocations";
    }
    return "";
}

std::string_view kind_name(RecordKind kind) {
    switch (kind) {
        case RecordKind::model:
            return "model";
        case RecordKind::accelerator:
            return "accelerator";
        case RecordKind::kv_efficiency:
            return "kv-efficiency";
        case RecordKind::allocation:
            return "allocation";
    }
    return "";
}

std::string with_article(std::string_view noun) {
    bool vowel = !noun.empty() && std::string_view("aeiouAEIOU").find(noun.front()) != std::string_view::npos;
    return std::string(vowel ? "an " : "a ") + std::string(noun);
}

namespace {

using F = FieldType;

constexpr std::array<std::string_view, 6> kVariants = {"mha", "gqa", "mqa", "mla", "hybrid", "sliding"};
constexpr std::array<std::string_view, 4> kProvenance = {"measured", "third-party-measured", "derived", "joined"};
constexpr std::array<std::string_view, 14> kDtypeNames = {"f32",  "fp32",     "f16",      "fp16",  "bf16",
                                                          "fp8",  "fp8_e4m3", "fp8_e5m2", "q8_0",  "q5_1",
                                                          "q5_0", "q4_1",     "q4_0",     "iq4_nl"};
constexpr std::array<std::string_view, 6> kLinearKinds = {"gated-deltanet", "mamba",     "mamba2",
                                                          "short-conv",     "lightning", "kda"};
constexpr std::array<std::string_view, 2> kWindowKinds = {"sliding", "chunked"};
constexpr std::array<std::string_view, 2> kIndexerDtypes = {"fp8", "bf16"};
constexpr const auto& kStateDtypes = kStateDtypeNames;
/// Where a throughput figure was counted (measurement_conditions.h).
constexpr std::array<std::string_view, 2> kThroughputSides = {"server", "client"};

constexpr std::array kSourceFields = {
    FieldSpec{"name", F::string, true, false, "what the source is: a page, a config file, a table"},
    FieldSpec{"detail", F::string, false, false, "the part of the source read: a table, a file path, a cell"},
    FieldSpec{"url", F::string, false, false, "where it can be found, when it has an address"},
    FieldSpec{"date", F::string, false, false, "when it was published or read (YYYY-MM or YYYY-MM-DD)"},
};

constexpr std::array kIgnoreFields = {
    FieldSpec{"rule", F::string, true, false, "the rule id whose finding this record silences"},
    FieldSpec{"reason", F::string, true, false, "why the finding does not apply; shown by lint -v"},
    FieldSpec{"claim", F::string, false, false, "for prose-arithmetic: the text of the one claim silenced"},
};

constexpr std::array kKvLayerFields = {
    FieldSpec{"count", F::integer, true, false,
              "how many layers grow a full (unbounded) KV cache; 0 when every layer is bounded"},
    FieldSpec{"interval", F::integer, false, false, "every Nth layer is a full-attention layer", {}, {}, true},
    FieldSpec{"first_index", F::integer, false, false, "0-based index of the first full-attention layer"},
    FieldSpec{"indices", F::integer_list, false, false, "0-based indices of the layers that grow a KV cache"},
    FieldSpec{"shared", F::integer, false, false,
              "layers that read another layer's KV cache and add none of their own"},
    FieldSpec{"stateless", F::integer, false, false,
              "layers that keep neither a KV cache nor a fixed state (an MLP-only block)"},
};

constexpr std::array kKvGroupFields = {
    FieldSpec{"layers", F::integer, true, false, "growing layers with this shape", {}, {}, true},
    FieldSpec{"kv_heads", F::integer, true, false, "KV heads per layer in this group", {}, {}, true},
    FieldSpec{"head_dim", F::integer, true, false, "elements per head in this group", {}, {}, true},
    FieldSpec{"v_head_dim", F::integer, false, false, "V's elements per head when they differ from K's", {}, {}, true},
};

constexpr std::array kUnstatedFields = {
    FieldSpec{"accelerator", F::string, false, false,
              "why no accelerator record applies: what the source says of the card and what it leaves out"},
    FieldSpec{"gpus", F::string, false, false,
              "why the row gives no card count: what the source says of the machine, never how many cards ran"},
};

constexpr std::array kMlaFields = {
    FieldSpec{"kv_lora_rank", F::integer, true, false, "rank of the compressed KV latent, elements", {}, {}, true},
    FieldSpec{"qk_rope_head_dim", F::integer, true, false, "decoupled RoPE key width, elements", {}, {}, true},
};

constexpr std::array kSlidingFields = {
    FieldSpec{"window", F::integer, true, false, "tokens a sliding layer keeps", {}, {}, true},
    FieldSpec{"layers", F::integer, true, false, "how many layers use the sliding window", {}, {}, true},
    FieldSpec{"kind", F::enumeration, false, false,
              "sliding (the last window tokens; the default) or chunked (within fixed chunks of window tokens)",
              kWindowKinds},
    FieldSpec{"kv_heads", F::integer, false, false, "KV heads of a bounded layer, when not the model's", {}, {}, true},
    FieldSpec{"head_dim",
              F::integer,
              false,
              false,
              "K's elements per head of a bounded layer, when not the model's",
              {},
              {},
              true},
    FieldSpec{
        "v_head_dim", F::integer, false, false, "V's elements per head of a bounded layer, when not K's", {}, {}, true},
};

constexpr std::array kLinearFields = {
    FieldSpec{"kind", F::enumeration, true, false, "the linear-attention or SSM layer type", kLinearKinds},
    FieldSpec{"layers", F::integer, true, false, "how many layers are linear attention", {}, {}, true},
    FieldSpec{"key_heads", F::integer, false, false, "linear_num_key_heads (gated-deltanet, mamba2)", {}, {}, true},
    FieldSpec{"value_heads",
              F::integer,
              false,
              false,
              "linear_num_value_heads (gated-deltanet, mamba2, lightning)",
              {},
              {},
              true},
    FieldSpec{"key_head_dim",
              F::integer,
              false,
              false,
              "linear_key_head_dim, elements (gated-deltanet, mamba2)",
              {},
              {},
              true},
    FieldSpec{"value_head_dim",
              F::integer,
              false,
              false,
              "linear_value_head_dim, elements (gated-deltanet, mamba2, lightning)",
              {},
              {},
              true},
    FieldSpec{"inner_dim",
              F::integer,
              false,
              false,
              "channels of the state, elements (mamba: d_inner; short-conv)",
              {},
              {},
              true},
    FieldSpec{"state_dim", F::integer, false, false, "SSM state per channel, elements (mamba: d_state)", {}, {}, true},
    FieldSpec{
        "conv_kernel", F::integer, false, false, "linear_conv_kernel_dim (every kind but lightning)", {}, {}, true},
    FieldSpec{"state_dtype", F::enumeration, true, false, "dtype of the fixed recurrent state", kStateDtypes},
    FieldSpec{"conv_state_dtype", F::enumeration, false, false,
              "dtype of the conv state when it differs from state_dtype (vLLM: the model's dtype)", kStateDtypes},
    FieldSpec{"beside_attention", F::boolean, false, false,
              "true when these mixers run in the same layers as attention rather than in layers of their own"},
};

constexpr std::array kIndexerFields = {
    FieldSpec{"head_dim", F::integer, true, false, "width of one indexer key, elements", {}, {}, true},
    FieldSpec{"cache_dtype", F::enumeration, true, false, "element type of the cached indexer keys", kIndexerDtypes},
    FieldSpec{"scale_bytes", F::integer, true, false, "bytes of one quantisation scale", {}, {}, true},
    FieldSpec{"quant_block", F::integer, true, false, "elements that share one scale", {}, {}, true},
};

constexpr std::array kTensorFields = {
    FieldSpec{"llama_arch", F::enumeration, true, false, "the architecture llama.cpp loads the model as",
              kGgufArchNames},
    FieldSpec{"hidden_size", F::integer, true, false, "the embedding width (hidden_size), elements", {}, {}, true},
    FieldSpec{"ffn_size",
              F::integer,
              false,
              false,
              "a dense layer's feed-forward width (intermediate_size), elements; required without experts",
              {},
              {},
              true},
    FieldSpec{"vocab_size", F::integer, true, false, "tokens in the vocabulary (vocab_size), tokens", {}, {}, true},
    FieldSpec{"tied_embeddings", F::boolean, true, false,
              "true when the token embeddings serve as the output (tie_word_embeddings): no output.weight"},
    FieldSpec{"rope_freqs", F::boolean, false, false,
              "true when the GGUF holds rope_freqs.weight (Llama 3.1's rope scaling); false when absent"},
    FieldSpec{
        "experts", F::integer, false, false, "routed experts in every layer (num_experts), experts", {}, {}, true},
    FieldSpec{"expert_ffn_size",
              F::integer,
              false,
              false,
              "one expert's feed-forward width (moe_intermediate_size), elements; required with experts",
              {},
              {},
              true},
    FieldSpec{"experts_used",
              F::integer,
              false,
              false,
              "routed experts each token goes through (num_experts_per_tok), experts; with experts",
              {},
              {},
              true},
    FieldSpec{"shared_expert_ffn_size",
              F::integer,
              false,
              false,
              "the shared expert's feed-forward width (shared_expert_intermediate_size), elements; "
              "required for qwen35moe and qwen3next, refused for any other architecture",
              {},
              {},
              true},
    FieldSpec{"dense_layers",
              F::integer,
              false,
              false,
              "deepseek2: the leading layers with a dense feed-forward of ffn_size (first_k_dense_replace), "
              "layers; the others have experts",
              {},
              {},
              false},
    FieldSpec{"shared_experts",
              F::integer,
              false,
              false,
              "deepseek2: shared experts of expert_ffn_size beside the routed ones, without a gate of their own "
              "(n_shared_experts), experts",
              {},
              {},
              false},
    FieldSpec{"q_lora_rank",
              F::integer,
              false,
              false,
              "deepseek2: the rank the queries are compressed to (q_lora_rank), elements; absent when they are not",
              {},
              {},
              true},
    FieldSpec{"expert_score_bias", F::boolean, false, false,
              "deepseek2: true when each layer's router has a per-expert score bias (e_score_correction_bias)"},
};

constexpr std::array kModelFields = {
    FieldSpec{"id", F::string, true, false, "models/NAME: the file's path under records/ without .yaml"},
    FieldSpec{"name", F::string, true, false, "the model's published name"},
    FieldSpec{"config_source", F::string, true, false, "where the architecture figures were read"},
    FieldSpec{"config_verified", F::boolean, true, false,
              "true when read from the model's own config; false for a third-party copy"},
    FieldSpec{"total_params_b", F::number, true, false, "total parameters, billions", {}, {}, true},
    FieldSpec{"active_params_b", F::number, true, false, "parameters active per token, billions", {}, {}, true},
    FieldSpec{"native_context", F::integer, true, false, "max_position_embeddings, tokens", {}, {}, true},
    FieldSpec{"num_layers", F::integer, true, false, "decoder layers", {}, {}, true},
    FieldSpec{"attention_variant", F::enumeration, true, false, "the attention design", kVariants},
    FieldSpec{"attention_heads", F::integer, true, false, "query heads per layer", {}, {}, true},
    FieldSpec{"kv_heads", F::integer, false, false, "key/value heads per layer (not for mla)", {}, {}, true},
    FieldSpec{"head_dim", F::integer, false, false, "elements per head, as configured (not for mla)", {}, {}, true},
    FieldSpec{"v_head_dim",
              F::integer,
              false,
              false,
              "V's elements per head when they differ from K's (head_dim)",
              {},
              {},
              true},
    FieldSpec{"kv_layers", F::mapping, true, false, "which layers grow a KV cache without bound", {}, kKvLayerFields},
    FieldSpec{"kv_groups",
              F::group_list,
              false,
              false,
              "growing layers whose KV heads or head_dim differ, one entry per shape",
              {},
              kKvGroupFields},
    FieldSpec{"mla", F::mapping, false, false, "the MLA latent (mla only)", {}, kMlaFields},
    FieldSpec{"sliding_window", F::mapping, false, false, "sliding-window layers (sliding only)", {}, kSlidingFields},
    FieldSpec{"linear_attention", F::mapping, false, false, "the fixed-state layers of a hybrid", {}, kLinearFields},
    FieldSpec{"indexer",
              F::mapping,
              false,
              false,
              "a sparse-attention indexer's key cache in every growing layer",
              {},
              kIndexerFields},
    FieldSpec{"tensors",
              F::mapping,
              false,
              false,
              "the widths a converted GGUF's tensors take beyond the attention's, for llama-quantize's exact bytes",
              {},
              kTensorFields},
    FieldSpec{"sources", F::source_list, true, false, "where each figure was read", {}, kSourceFields},
    FieldSpec{"notes", F::string, false, false, "anything a reader should know"},
};

constexpr std::array<std::string_view, 4> kMemoryUnits = {"B", "MiB", "GiB", "MB"};
constexpr std::array<std::string_view, 5> kMemoryReporters = {"nvidia-smi", "rocm-smi", "cuda", "hip", "metal"};

/// A printed total's fields beside its `by` (memory_reported, memory_runtime_total).
constexpr FieldSpec kMemoryValue{"value", F::number, true, false, "the total as it was printed, in `unit`",
                                 {},      {},        true};
constexpr FieldSpec kMemoryUnit{"unit",
                                F::enumeration,
                                true,
                                false,
                                "the printed unit: B, MiB (2^20 bytes), GiB (2^30 bytes) or MB (10^6 bytes)",
                                kMemoryUnits};
constexpr FieldSpec kMemoryBytes{"bytes", F::integer, true, false, "value x unit, rounded down to a whole byte",
                                 {},      {},         true};
constexpr FieldSpec kMemoryLine{"line", F::string, true, false, "the line the figure was read from, as printed"};
constexpr FieldSpec kMemorySource{"source", F::mapping, true, false, "where the line was printed", {}, kSourceFields};

/// The card's memory as its driver or runtime reports it (physics.h's memory_bytes reads it).
constexpr std::array kReportedMemoryFields = {
    kMemoryValue,
    kMemoryUnit,
    kMemoryBytes,
    FieldSpec{"by", F::enumeration, true, false,
              "what printed it: nvidia-smi's total, rocm-smi's VRAM total, CUDA's or HIP's total (cudaMemGetInfo, "
              "hipMemGetInfo, as llama.cpp, vLLM or PyTorch print it) or Metal's recommendedMaxWorkingSetSize",
              kMemoryReporters},
    kMemoryLine,
    kMemorySource,
};

constexpr std::array<std::string_view, 2> kEnabledOrNot = {"enabled", "disabled"};
constexpr std::array<std::string_view, 2> kRuntimeMemoryReporters = {"cuda", "hip"};

/// The card's total as CUDA or HIP gives it to a program (physics.h's runtime_memory_bytes reads it).
constexpr std::array kRuntimeMemoryFields = {
    kMemoryValue,
    kMemoryUnit,
    kMemoryBytes,
    FieldSpec{"by", F::enumeration, true, false,
              "whose total: CUDA's (cudaMemGetInfo, torch.cuda.mem_get_info) or HIP's (hipMemGetInfo)",
              kRuntimeMemoryReporters},
    kMemoryLine,
    kMemorySource,
};

constexpr std::array kAcceleratorFields = {
    FieldSpec{"id", F::string, true, false, "accelerators/NAME: the file's path under records/ without .yaml"},
    FieldSpec{"vendor", F::string, true, false, "who makes it"},
    FieldSpec{"name", F::string, true, false, "the product name"},
    FieldSpec{
        "memory_gb", F::number, true, false, "memory capacity as the vendor states it, GB (10^9 bytes)", {}, {}, true},
    FieldSpec{"memory_reported",
              F::mapping,
              false,
              false,
              "the total memory as the card's driver or runtime reports it: what fit and the memory rules use",
              {},
              kReportedMemoryFields},
    FieldSpec{"memory_runtime_total",
              F::mapping,
              false,
              false,
              "the total CUDA or HIP gives a program, a little under the driver's: what vLLM and SGLang take their "
              "share of",
              {},
              kRuntimeMemoryFields},
    FieldSpec{"memory_type", F::string, true, false, "GDDR6X, HBM3, ..."},
    FieldSpec{"memory_bus_bits", F::integer, false, false, "memory interface width, bits", {}, {}, true},
    FieldSpec{
        "memory_bandwidth_gb_s", F::number, true, false, "peak memory bandwidth, GB/s (10^9 bytes/s)", {}, {}, true},
    FieldSpec{"sources", F::source_list, true, false, "where each figure was read", {}, kSourceFields},
    FieldSpec{"notes", F::string, false, false, "anything a reader should know"},
};

// A fork or an application that embeds llama.cpp is named as it is; its lines are llama.cpp's.
constexpr std::array<std::string_view, 6> kAllocationEngines = {"llama.cpp", "ik_llama.cpp", "LM Studio",
                                                                "ollama",    "vllm",         "sglang"};
constexpr std::array<std::string_view, 3> kCacheScopes = {"base", "swa", "all"};

constexpr std::array kLoggedCacheFields = {
    FieldSpec{"log_line", F::integer, false, false, "the line of the log the figures were read from", {}, {}, true},
    FieldSpec{"scope", F::enumeration, true, false,
              "which layers the cache holds: base (an ISWA model's non-SWA cache), swa, or all", kCacheScopes},
    FieldSpec{"cells",
              F::integer,
              true,
              false,
              "cells of each stream, as printed (or the log's kv_size / n_ctx)",
              {},
              {},
              true},
    FieldSpec{"streams", F::integer, false, false, "streams (the T of S/T seqs); 1 when not printed", {}, {}, true},
    FieldSpec{"seqs", F::integer, false, false, "sequences (n_seq_max), as printed", {}, {}, true},
    FieldSpec{"layers", F::integer, false, false, "layers the cache holds, as printed", {}, {}, true},
    FieldSpec{"size_mib", F::number, false, false, "the printed size, MiB (two decimals)"},
    FieldSpec{"mla_latent", F::boolean, false, false, "ik_llama.cpp's c^KV cache: the MLA latent as K, no V"},
    FieldSpec{"mla_off", F::boolean, false, false,
              "an MLA model's every head's K and V: ik_llama.cpp's -mla 0, llama.cpp before b5137"},
    FieldSpec{"k_type", F::string, false, false, "K's ggml type, as printed"},
    FieldSpec{"k_mib", F::number, false, false, "K's printed size, MiB"},
    FieldSpec{"v_type", F::string, false, false, "V's ggml type, as printed"},
    FieldSpec{"v_mib", F::number, false, false, "V's printed size, MiB"},
};

constexpr std::array kLoggedRecurrentFields = {
    FieldSpec{"log_line", F::integer, false, false, "the line of the log the figures were read from", {}, {}, true},
    FieldSpec{"cells", F::integer, true, false, "cells, one per sequence", {}, {}, true},
    FieldSpec{"seqs", F::integer, false, false, "sequences, as printed", {}, {}, true},
    FieldSpec{"layers", F::integer, false, false, "layers, as printed (llama.cpp counts every layer)", {}, {}, true},
    FieldSpec{"size_mib", F::number, false, false, "the printed size, MiB"},
    FieldSpec{"r_type", F::string, false, false, "R's ggml type"},
    FieldSpec{"r_mib", F::number, false, false, "R's printed size (conv state), MiB"},
    FieldSpec{"s_type", F::string, false, false, "S's ggml type"},
    FieldSpec{"s_mib", F::number, false, false, "S's printed size (recurrent state), MiB"},
};

constexpr std::array kLoggedVllmFields = {
    FieldSpec{"available_kv_gib", F::number, false, false, "'Available KV cache memory', GiB as printed"},
    FieldSpec{"tokens", F::integer, true, false, "'GPU KV cache size', tokens", {}, {}, true},
    FieldSpec{"max_model_len", F::integer, false, false, "max_model_len (the config line's max_seq_len)", {}, {}, true},
    FieldSpec{"concurrency", F::number, false, false, "'Maximum concurrency for N tokens per request', as printed"},
    FieldSpec{
        "block_size", F::integer, false, false, "the block size when the log shows it; 16 otherwise", {}, {}, true},
    FieldSpec{"max_num_batched_tokens", F::integer, false, false, "max_num_batched_tokens", {}, {}, true},
    FieldSpec{"tensor_parallel", F::integer, false, false, "tensor_parallel_size; 1 when not shown", {}, {}, true},
    FieldSpec{"kv_cache_dtype", F::string, false, false, "kv_cache_dtype as the log shows it (auto: the model dtype)"},
    FieldSpec{"model_dtype", F::string, false, false, "the model's dtype (torch name)"},
    FieldSpec{"quantization", F::string, false, false,
              "quantization as the config line prints it: None for a checkpoint loaded in the model's dtype"},
    FieldSpec{"expert_parallel", F::boolean, false, false, "the arguments enable expert parallel"},
    FieldSpec{"gpu_memory_utilization",
              F::number,
              false,
              false,
              "gpu_memory_utilization, as the launch shows it",
              {},
              {},
              true},
    FieldSpec{"model_loading_gib", F::number, false, false, "'Model loading took', GiB as printed", {}, {}, true},
    FieldSpec{
        "free_on_start_gib", F::number, false, false,
        "'Free memory on device (F/T GiB) on startup': F, CUDA's free memory when the worker started, GiB as printed"},
    FieldSpec{"cuda_total_gib", F::number, false, false,
              "the same line's T: CUDA's total memory of one card, GiB as printed"},
    FieldSpec{"requested_gib", F::number, false, false,
              "'Desired GPU memory utilization is (U, R GiB)': R, the total x U, GiB as printed"},
    FieldSpec{"weights_gib", F::number, false, false, "'X GiB for weight' in the profile line, GiB as printed"},
    FieldSpec{"consumed_gib", F::number, false, false,
              "'X GiB for consumed memory (weights + non-torch)' in the profile line, GiB as printed"},
    FieldSpec{"activation_peak_gib", F::number, false, false,
              "'X GiB for peak activation' in the profile line, GiB as printed"},
    FieldSpec{"non_torch_gib", F::number, false, false,
              "'X GiB for non-torch memory' in the profile line, GiB as printed"},
    FieldSpec{"cudagraph_gib", F::number, false, false,
              "'X GiB for CUDAGraph memory' in the profile line: the graphs as captured, GiB as printed"},
    FieldSpec{"cudagraph_estimate_gib", F::number, false, false,
              "'CUDA graph pool memory: A GiB (actual), E GiB (estimated)': E, GiB as printed"},
    FieldSpec{"kv_cache_memory_fit_bytes", F::integer, false, false,
              "the profile line's '--kv-cache-memory=N' to fit into requested memory, bytes"},
    FieldSpec{"kv_cache_memory_full_bytes", F::integer, false, false,
              "the profile line's '--kv-cache-memory=N' to fully utilize gpu memory, bytes"},
    FieldSpec{"kv_in_use_gib", F::number, false, false, "'Current kv cache memory in use is X GiB', GiB as printed"},
    FieldSpec{"kv_in_use_bytes", F::integer, false, false,
              "'Current kv cache memory in use is N bytes', as the releases that print bytes give it"},
};

constexpr std::array kLoggedSglangFields = {
    FieldSpec{"tokens", F::integer, true, false, "'#tokens' of the pool", {}, {}, true},
    FieldSpec{"k_gb", F::number, false, false, "K size, GB (2^30 bytes) as printed"},
    FieldSpec{"v_gb", F::number, false, false, "V size, GB as printed"},
    FieldSpec{"kv_gb", F::number, false, false, "an MLA pool's KV size, GB as printed"},
    FieldSpec{"page_size", F::integer, false, false, "page_size; 1 when not shown", {}, {}, true},
    FieldSpec{"tensor_parallel", F::integer, false, false, "tp_size; 1 when not shown", {}, {}, true},
    FieldSpec{"kv_cache_dtype", F::string, false, false, "kv_cache_dtype as the log shows it"},
    FieldSpec{"mamba_slots", F::integer, false, false, "a hybrid's 'max_mamba_cache_size' as printed", {}, {}, true},
    FieldSpec{"conv_state_gb", F::number, false, false, "the Mamba pool's 'conv_state size', GB as printed"},
    FieldSpec{"ssm_state_gb", F::number, false, false, "the Mamba pool's 'ssm_state size', GB as printed"},
    FieldSpec{"mamba_ssm_dtype", F::string, false, false, "the server args' mamba_ssm_dtype, when shown"},
};

constexpr std::array<std::string_view, 3> kBufferKinds = {"model", "compute", "output"};

constexpr std::array kLoggedBufferFields = {
    FieldSpec{"device", F::string, true, false, "the device as printed: CUDA0, CPU_Mapped, CUDA_Host, Metal, CPU, ..."},
    FieldSpec{"kind", F::enumeration, true, false,
              "model (the weights it holds), compute (a micro-batch's graph) or output (the logits handed back)",
              kBufferKinds},
    FieldSpec{"mib", F::number, true, false, "the printed size, MiB"},
    FieldSpec{"log_line", F::integer, false, false, "the line of the log it was read from", {}, {}, true},
};

constexpr std::array kLoggedStartFields = {
    FieldSpec{"file_type", F::string, false, false,
              "the GGUF's type as llama.cpp prints it (file type = Q4_K - Medium); absent when not printed"},
    FieldSpec{
        "n_ubatch", F::integer, false, false, "n_ubatch as printed; absent: llama.cpp's default, 512", {}, {}, true},
    FieldSpec{"flash_attn", F::string, false, false,
              "flash_attn as printed (enabled, disabled, auto, 1, 0); absent: auto, on for a GPU that has it"},
    FieldSpec{"fused_gdn_chunked", F::enumeration, false, false,
              "fused Gated Delta Net (chunked) enabled or disabled, as printed: how a Gated DeltaNet layer ran the "
              "prompt's micro-batch",
              kEnabledOrNot},
    FieldSpec{"offloaded_layers", F::string, false, false,
              "the layers on the GPU of all, as printed (offloaded 18/33 layers to GPU); absent when not printed"},
    FieldSpec{"buffers",
              F::group_list,
              true,
              false,
              "each buffer printed besides the cache, in the log's order",
              {},
              kLoggedBufferFields},
};

constexpr std::array kAllocationFields = {
    FieldSpec{"id", F::string, true, false, "allocations/NAME: the file's path under records/ without .yaml"},
    FieldSpec{"model", F::reference, true, false, "the model record the engine ran"},
    FieldSpec{"engine", F::enumeration, true, false, "the engine that printed the log, named as it is",
              kAllocationEngines},
    FieldSpec{"engine_version", F::string, true, true, "the build or release, or null when the log does not say"},
    FieldSpec{"kv_cache",
              F::mapping,
              false,
              false,
              "llama.cpp's cache (the non-SWA one of an ISWA model)",
              {},
              kLoggedCacheFields},
    FieldSpec{"swa_cache", F::mapping, false, false, "llama.cpp's SWA cache", {}, kLoggedCacheFields},
    FieldSpec{"recurrent", F::mapping, false, false, "llama.cpp's recurrent memory", {}, kLoggedRecurrentFields},
    FieldSpec{"start",
              F::mapping,
              false,
              false,
              "llama.cpp's whole start besides its cache: the buffers it printed and the settings that size them",
              {},
              kLoggedStartFields},
    FieldSpec{"vllm", F::mapping, false, false, "vLLM's pool as printed", {}, kLoggedVllmFields},
    FieldSpec{"sglang", F::mapping, false, false, "SGLang's pool as printed", {}, kLoggedSglangFields},
    FieldSpec{"log_lines", F::string_list, true, false, "the lines read, as the engine printed them"},
    FieldSpec{"url", F::string, true, false, "where the log was copied from"},
    FieldSpec{"notes", F::string, true, false, "the settings the log leaves unsaid and what was assumed"},
};

constexpr std::array kBasisFields = {
    FieldSpec{"layers", F::integer, true, false, "layers that grow a KV cache", {}, {}, true},
    FieldSpec{"kv_heads", F::integer, false, false, "KV heads per layer (absent for an MLA latent)", {}, {}, true},
    FieldSpec{"head_dim", F::integer, false, false, "elements per head (absent for an MLA latent)", {}, {}, true},
    FieldSpec{"v_head_dim", F::integer, false, false, "V's elements per head when they differ from K's", {}, {}, true},
    FieldSpec{"latent_dim", F::integer, false, false, "MLA: kv_lora_rank + qk_rope_head_dim, elements", {}, {}, true},
    FieldSpec{"groups",
              F::group_list,
              false,
              false,
              "for a model whose layers differ: the layers, kv_heads and head_dim of each shape",
              {},
              kKvGroupFields},
    FieldSpec{"kv_factor", F::integer, true, false, "2 for K and V, 1 for an MLA latent", {}, {}, true},
    FieldSpec{"bytes_per_element",
              F::rational,
              true,
              false,
              "bytes per cached element of kv_cache_dtype (the mean of K's and V's when v_cache_dtype differs); a "
              "fraction such as 34/32 is allowed",
              {},
              {},
              true},
    FieldSpec{"indexer_bytes",
              F::integer,
              false,
              false,
              "a sparse-attention indexer's key cache, bytes per token per layer, in its own dtype",
              {},
              {},
              true},
    FieldSpec{"window",
              F::integer,
              false,
              false,
              "for a model whose every layer is bounded: the tokens after which no layer grows",
              {},
              {},
              true},
    FieldSpec{"statement", F::string, true, false, "the product in words, with its result"},
};

constexpr std::array kPointFields = {
    FieldSpec{"context_length", F::integer, true, false,
              "the context (depth) the point was taken at, tokens; 0 for an empty context"},
    FieldSpec{"measured_tps_at_ctx",
              F::number,
              true,
              true,
              "decode speed of one request at context_length, tokens/s; null when the source did not report it",
              {},
              {},
              true},
    FieldSpec{"measured_prefill_tps_at_ctx",
              F::number,
              true,
              true,
              "prompt-processing speed at context_length, tokens/s; null when the source did not report it",
              {},
              {},
              true},
    FieldSpec{"measured_ttft_ms_at_ctx",
              F::number,
              true,
              true,
              "time to first token at context_length, ms; null when the source did not report it",
              {},
              {},
              true},
    FieldSpec{"measured_total_tps_at_ctx",
              F::number,
              false,
              true,
              "decode tokens/s summed over all requests in flight, when the source reports the total rather than "
              "one request's speed",
              {},
              {},
              true},
    FieldSpec{"prompt_tokens", F::integer, false, false, "the prompt length of the prefill test, tokens", {}, {}, true},
    FieldSpec{"gen_tokens", F::integer, false, false, "tokens generated in the decode test", {}, {}, true},
    FieldSpec{
        "concurrency", F::integer, false, false, "requests in flight while measuring; 1 when absent", {}, {}, true},
    FieldSpec{"tps_stddev", F::number, false, false, "the standard deviation printed beside the decode speed"},
    FieldSpec{"prefill_tps_stddev", F::number, false, false, "the standard deviation printed beside the prefill speed"},
    FieldSpec{"prefix_cached", F::boolean, false, false,
              "true when the prompt's prefix was already in the engine's cache, so the TTFT and prefill speed are "
              "not a full prefill of context_length; false when the source says it was not"},
    FieldSpec{"warm", F::boolean, false, false,
              "true when the source measured after warm-up runs (a warm engine), false for a cold first run"},
};

constexpr std::array kQualityFields = {
    FieldSpec{"benchmark", F::string, true, false, "what was run: wikitext-2, MRCR, RULER, ..."},
    FieldSpec{"metric", F::string, true, false, "what was measured: perplexity, KL divergence, AUC, accuracy"},
    FieldSpec{"value", F::number, true, false, "the result at the record's kv_cache_dtype, as printed"},
    FieldSpec{"unit", F::string, true, false, "the unit of value and baseline_value: ppl, nats, percent, ..."},
    FieldSpec{"higher_is_better", F::boolean, true, false, "true when a larger value is a better result"},
    FieldSpec{"baseline_kv_cache_dtype", F::enumeration, false, false,
              "the cache dtype of the baseline run the result is compared with; left out for a plain score",
              kDtypeNames},
    FieldSpec{"baseline_value", F::number, false, true,
              "the result at baseline_kv_cache_dtype, as printed; null when the source gives only a comparison"},
    FieldSpec{"relative_to_baseline", F::boolean, false, false,
              "true when value is itself measured against the baseline run (a divergence, an agreement, a share)"},
    FieldSpec{
        "context_length", F::integer, false, false, "the context the result was measured at, tokens", {}, {}, true},
    FieldSpec{"recovery_percent",
              F::number,
              false,
              false,
              "value / baseline_value x 100, as the source states it; checked when both values are given",
              {},
              {},
              true},
};

constexpr std::array kKvFields = {
    FieldSpec{"id", F::string, true, false, "kv-efficiency/NAME: the file's path under records/ without .yaml"},
    FieldSpec{"model", F::reference, true, false, "the model record, e.g. models/qwen3.5-27b"},
    FieldSpec{"accelerator", F::reference, true, true, "the accelerator record, or null when not tied to hardware"},
    FieldSpec{"engine", F::string, true, false, "the inference engine: llama.cpp, vLLM, ..."},
    FieldSpec{"engine_version", F::string, false, true, "the engine's version or build, when published"},
    FieldSpec{"kv_cache_dtype", F::enumeration, true, false, "the element type of the KV cache", kDtypeNames},
    FieldSpec{"v_cache_dtype", F::enumeration, false, false,
              "the V cache's element type when it differs from K's; kv_cache_dtype then names K's", kDtypeNames},
    FieldSpec{"weight_quant", F::string, false, true, "the weights' quantisation: Q4_K, fp8, bf16, ..."},
    FieldSpec{"attention_variant", F::enumeration, true, false, "the attention design, as the model's", kVariants},
    FieldSpec{"context_length",
              F::integer,
              false,
              false,
              "the context the row describes, tokens (single-point form; a curve uses measurements)",
              {},
              {},
              true},
    FieldSpec{"weight_bytes",
              F::integer,
              false,
              false,
              "the weights' real size in bytes (a GGUF file's tensors, llama-bench's model_size); overrides the "
              "format's nominal size in the roofline and the memory fit",
              {},
              {},
              true},
    FieldSpec{"kv_bytes_per_token",
              F::rational,
              true,
              false,
              "bytes of KV cache each token adds, across the layers that keep growing",
              {},
              {},
              true},
    FieldSpec{
        "kv_bytes_basis", F::mapping, true, false, "the factors whose product is kv_bytes_per_token", {}, kBasisFields},
    FieldSpec{"measured_tps_at_ctx",
              F::number,
              false,
              true,
              "decode speed of one request at context_length, tokens/s; null when the source did not report it "
              "(single-point form)",
              {},
              {},
              true},
    FieldSpec{"measured_ttft_ms_at_ctx",
              F::number,
              false,
              true,
              "time to first token at context_length, ms; null when the source did not report it (single-point form)",
              {},
              {},
              true},
    FieldSpec{"measurements",
              F::point_list,
              false,
              false,
              "the measured points of a curve, one per context (and concurrency); replaces context_length and the "
              "measured_* keys",
              {},
              kPointFields},
    FieldSpec{"quality",
              F::quality_list,
              false,
              false,
              "quality results of kv_cache_dtype against a baseline cache dtype",
              {},
              kQualityFields},
    FieldSpec{"provenance", F::enumeration, false, false,
              "measured, third-party-measured, derived, or joined (architecture and measurement from two sources)",
              kProvenance},
    FieldSpec{"measured_on_model", F::reference, false, true,
              "the model the measurement was taken on, when it is not `model`"},
    FieldSpec{"context_extension", F::string, false, true, "how a context above the model's native one was reached"},
    FieldSpec{"offload", F::string, false, true,
              "what was kept off the accelerator (weights or cache in host memory), when anything was"},
    FieldSpec{"unstated",
              F::mapping,
              false,
              false,
              "what the source leaves unsaid that the row would otherwise state, each with why",
              {},
              kUnstatedFields},
    FieldSpec{"accelerator_named", F::string, false, false,
              "the card as the source names it, when no one accelerator record applies (an edition left unsaid)"},
    FieldSpec{"gpus",
              F::integer,
              false,
              false,
              "how many accelerators (each an `accelerator`) the run used; a measured row states it or says why under "
              "unstated.gpus; 1 when absent on other rows",
              {},
              {},
              true},
    FieldSpec{"tensor_parallel", F::integer, false, false, "the tensor-parallel size the run used", {}, {}, true},
    FieldSpec{"pipeline_parallel", F::integer, false, false, "the pipeline-parallel size the run used", {}, {}, true},
    FieldSpec{"data_parallel", F::integer, false, false, "the data-parallel size the run used", {}, {}, true},
    FieldSpec{"speculative_decoding", F::string, false, true,
              "the speculative decoding the run used (MTP, EAGLE, ...: decode speeds then count accepted tokens); "
              "null when the source says it was off"},
    FieldSpec{"throughput_side", F::enumeration, false, false,
              "where the speeds were counted: server (the engine's own metric) or client (the benchmark client's "
              "clock, with its network and queueing)",
              kThroughputSides},
    FieldSpec{"state_dtype", F::enumeration, false, false,
              "the dtype the engine kept the fixed state in (conv and recurrent); replaces the model's state_dtype "
              "for this row",
              kStateDtypes},
    FieldSpec{"conv_state_dtype", F::enumeration, false, false,
              "the conv state's dtype when the engine kept it apart from state_dtype (vLLM: the model's dtype)",
              kStateDtypes},
    FieldSpec{"methodology", F::string, true, false, "how the figures were obtained"},
    FieldSpec{"notes", F::string, true, false, "what the row shows and its caveats"},
    FieldSpec{"sources", F::source_list, true, false, "where each figure was read", {}, kSourceFields},
    FieldSpec{"lint_ignore",
              F::ignore_list,
              false,
              false,
              "findings this record silences, each with a reason",
              {},
              kIgnoreFields},
};

std::string expected_phrase(const FieldSpec& spec) {
    std::string base(describe_type(spec.type));
    if (spec.type == F::enumeration) {
        base = "one of the allowed values";
    }
    if (spec.nullable) {
        base += " or null";
    }
    return base;
}

/// Words YAML 1.1 readers (PyYAML, many editors) take for booleans when unquoted.
bool yaml_boolean(const std::string& v) {
    // PyYAML's list, which the schema test's validator uses; it leaves out y and n.
    static constexpr std::array<std::string_view, 18> kWords = {"yes",  "Yes",  "YES",  "no",    "No",    "NO",
                                                                "true", "True", "TRUE", "false", "False", "FALSE",
                                                                "on",   "On",   "ON",   "off",   "Off",   "OFF"};
    return std::find(kWords.begin(), kWords.end(), v) != kWords.end();
}

bool plain_integer(const YamlNode& node, std::int64_t* out) {
    if (!node.is_scalar() || node.quoted || node.value.empty()) {
        return false;
    }
    const char* begin = node.value.data();
    const char* end = begin + node.value.size();
    if (*begin == '+') {
        ++begin;
    }
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr != end) {
        return false;
    }
    if (out) *out = v;
    return true;
}

/// "64k" or "1M" written where a record wants an integer: the integer it means (k and M in
/// powers of two, as kvcat's command line reads them), for the message to say what to write.
std::optional<std::int64_t> suffixed_integer(const YamlNode& node) {
    if (!node.is_scalar() || node.quoted || node.value.size() < 2) return std::nullopt;
    char last = node.value.back();
    std::int64_t factor = last == 'k' || last == 'K' ? 1024 : last == 'M' ? 1024 * 1024 : 0;
    if (!factor) return std::nullopt;
    std::string_view digits = std::string_view(node.value).substr(0, node.value.size() - 1);
    if (digits.find_first_not_of("0123456789.") != std::string_view::npos) return std::nullopt;
    auto exact = Rational::parse(digits);
    if (!exact) return std::nullopt;
    try {
        Rational v = *exact * Rational(factor);
        if (v.is_integer()) return v.num();
    } catch (const OverflowError&) {
    }
    return std::nullopt;
}

bool looks_like_big_integer(const YamlNode& node) {
    if (!node.is_scalar() || node.quoted || node.value.empty()) return false;
    std::size_t i = (node.value[0] == '-' || node.value[0] == '+') ? 1 : 0;
    if (i >= node.value.size()) return false;
    for (; i < node.value.size(); ++i) {
        if (node.value[i] < '0' || node.value[i] > '9') return false;
    }
    return true;
}

bool plain_number(const YamlNode& node, double* out) {
    if (!node.is_scalar() || node.quoted || node.value.empty()) {
        return false;
    }
    const std::string& v = node.value;
    // YAML's .inf and .nan are numbers to YAML but never a measurement.
    for (char c : v) {
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) {
            return false;
        }
    }
    double d = 0;
    auto [ptr, ec] = std::from_chars(v.data() + (v[0] == '+' ? 1 : 0), v.data() + v.size(), d);
    if (ec != std::errc() || ptr != v.data() + v.size() || !std::isfinite(d)) {
        return false;
    }
    if (out) *out = d;
    return true;
}

std::string joined(std::span<const std::string_view> values) {
    std::string out;
    for (auto v : values) {
        if (!out.empty()) out += ", ";
        out += v;
    }
    return out;
}

void check_mapping_list(const YamlNode& value, const FieldSpec& spec, const SourceText& source,
                        std::vector<Diagnostic>& out) {
    if (!value.is_sequence()) {
        out.push_back(diag::wrong_type(source.position(value.mark), std::string(spec.name),
                                       std::string(describe_type(spec.type)), value.describe()));
        return;
    }
    if (spec.type == F::source_list && value.items.empty()) {
        out.push_back(
            diag::bad_value(source.position(value.mark), std::string(spec.name), "must name at least one source"));
    }
    for (const auto& item : value.items) {
        if (!item.is_mapping()) {
            out.push_back(diag::wrong_type(source.position(item.mark), fmt::format("{} item", spec.name), "a mapping",
                                           item.describe()));
            continue;
        }
        validate_fields(item, spec.children, fmt::format("{} item", spec.name), source, out);
    }
}

void check_value(const YamlNode& key, const YamlNode& value, const FieldSpec& spec, const SourceText& source,
                 std::vector<Diagnostic>& out) {
    // Made only for a finding: a position copies the file's name, and most values are fine.
    auto pos = [&] { return source.position(value.mark); };
    std::string name(spec.name);
    if (value.is_null()) {
        if (!spec.nullable) {
            out.push_back(diag::wrong_type(source.position(key.mark.line == value.mark.line ? value.mark : key.mark),
                                           name, expected_phrase(spec), "null"));
        }
        return;
    }
    auto mistyped = [&] { out.push_back(diag::wrong_type(pos(), name, expected_phrase(spec), value.describe())); };
    switch (spec.type) {
        case F::string:
        case F::reference:
            if (!value.is_scalar()) {
                mistyped();
            } else if (value.value.empty()) {
                out.push_back(diag::bad_value(pos(), name, "must not be empty"));
            } else if (!value.quoted && (plain_number(value, nullptr) || yaml_boolean(value.value))) {
                // YAML (and every editor) reads 0.6 or true as a number or a boolean, not as text.
                out.push_back(diag::wrong_type(
                    pos(), name, fmt::format("a string (quote it: \"{}\")", value.value),
                    fmt::format("the {} {}", yaml_boolean(value.value) ? "boolean" : "number", value.value)));
            }
            return;
        case F::integer: {
            std::int64_t v = 0;
            if (!plain_integer(value, &v)) {
                if (looks_like_big_integer(value)) {
                    out.push_back(diag::overflow(pos(), fmt::format("'{}' = {}", name, value.value)));
                } else if (auto meant = suffixed_integer(value)) {
                    out.push_back(diag::wrong_type(
                        pos(), name, expected_phrase(spec),
                        fmt::format("{}; write {} (a record spells numbers out)", value.describe(), *meant)));
                } else {
                    mistyped();
                }
                return;
            }
            if (spec.positive && v <= 0) {
                out.push_back(diag::bad_value(pos(), name, fmt::format("must be greater than zero, found {}", v)));
            } else if (v < 0) {
                out.push_back(diag::bad_value(pos(), name, fmt::format("must not be negative, found {}", v)));
            }
            return;
        }
        case F::number: {
            double v = 0;
            if (!plain_number(value, &v)) {
                mistyped();
                return;
            }
            if (spec.positive && !(v > 0)) {
                out.push_back(
                    diag::bad_value(pos(), name, fmt::format("must be greater than zero, found {}", value.value)));
            }
            return;
        }
        case F::rational: {
            // A whole number, an exact decimal, or a fraction of two whole numbers such as 34/32;
            // no thousands separators, which YAML and JSON readers would take for text.
            auto r = value.is_scalar() ? Rational::parse(value.value) : std::nullopt;
            std::string_view body = value.is_scalar() ? std::string_view(value.value) : std::string_view();
            bool negative = !body.empty() && body.front() == '-';
            if (negative) body.remove_prefix(1);
            bool digits_only = !body.empty() && body.find_first_not_of("0123456789./") == std::string_view::npos &&
                               std::count(body.begin(), body.end(), '/') <= 1 && body.front() != '/' &&
                               body.back() != '/';
            if (r && digits_only && negative) {
                out.push_back(
                    diag::bad_value(pos(), name, fmt::format("must be greater than zero, found {}", value.value)));
                return;
            }
            if (!r || !digits_only || (value.quoted && value.value.find('/') == std::string::npos)) {
                if (value.is_scalar() && looks_like_big_integer(value)) {
                    out.push_back(diag::overflow(pos(), fmt::format("'{}' = {}", name, value.value)));
                } else {
                    mistyped();
                }
                return;
            }
            if (spec.positive && !(*r > Rational(0))) {
                out.push_back(
                    diag::bad_value(pos(), name, fmt::format("must be greater than zero, found {}", value.value)));
            }
            return;
        }
        case F::boolean:
            if (!value.is_scalar() || value.quoted || (value.value != "true" && value.value != "false")) {
                mistyped();
            }
            return;
        case F::enumeration: {
            if (!value.is_scalar()) {
                mistyped();
                return;
            }
            for (auto allowed : spec.allowed) {
                if (allowed == value.value) return;
            }
            out.push_back(diag::bad_enum(pos(), name, value.value, joined(spec.allowed),
                                         closest_match(value.value, spec.allowed)));
            return;
        }
        case F::mapping:
            if (!value.is_mapping()) {
                out.push_back(diag::not_a_mapping(pos(), fmt::format("'{}' (found {})", name, value.describe())));
                return;
            }
            validate_fields(value, spec.children, name, source, out);
            return;
        case F::string_list:
        case F::integer_list:
            if (!value.is_sequence()) {
                mistyped();
                return;
            }
            for (const auto& item : value.items) {
                std::int64_t v = 0;
                bool ok = spec.type == F::string_list ? item.is_scalar() : plain_integer(item, &v) && v >= 0;
                if (!ok) {
                    out.push_back(diag::wrong_type(source.position(item.mark), fmt::format("{} item", name),
                                                   spec.type == F::string_list ? "a string" : "a whole number >= 0",
                                                   item.describe()));
                }
            }
            return;
        case F::source_list:
        case F::ignore_list:
        case F::group_list:
        case F::point_list:
        case F::quality_list:
            check_mapping_list(value, spec, source, out);
            return;
    }
}

}  // namespace

std::span<const FieldSpec> record_fields(RecordKind kind) {
    switch (kind) {
        case RecordKind::model:
            return kModelFields;
        case RecordKind::accelerator:
            return kAcceleratorFields;
        case RecordKind::kv_efficiency:
            return kKvFields;
        case RecordKind::allocation:
            return kAllocationFields;
    }
    return {};
}

std::span<const FieldSpec> source_fields() {
    return kSourceFields;
}
std::span<const FieldSpec> ignore_fields() {
    return kIgnoreFields;
}
std::span<const FieldSpec> kv_group_fields() {
    return kKvGroupFields;
}
std::span<const FieldSpec> point_fields() {
    return kPointFields;
}
std::span<const FieldSpec> quality_fields() {
    return kQualityFields;
}
std::span<const std::string_view> attention_variants() {
    return kVariants;
}
std::span<const std::string_view> provenance_values() {
    return kProvenance;
}
std::span<const std::string_view> cache_dtype_names() {
    return kDtypeNames;
}

std::string_view describe_type(FieldType type) {
    switch (type) {
        case F::string:
            return "a string";
        case F::integer:
            return "a whole number";
        case F::number:
            return "a number";
        case F::rational:
            return "a whole number, an exact decimal or a fraction such as 34/32";
        case F::boolean:
            return "true or false";
        case F::enumeration:
            return "one of the allowed values";
        case F::reference:
            return "a record id";
        case F::mapping:
            return "a mapping";
        case F::string_list:
            return "a list of strings";
        case F::integer_list:
            return "a list of whole numbers";
        case F::source_list:
            return "a list of sources";
        case F::ignore_list:
            return "a list of {rule, reason}";
        case F::group_list:
            return "a list of {layers, kv_heads, head_dim}";
        case F::point_list:
            return "a list of measured points";
        case F::quality_list:
            return "a list of quality results";
    }
    return "a value";
}

void validate_fields(const YamlNode& mapping, std::span<const FieldSpec> fields, const std::string& context,
                     const SourceText& source, std::vector<Diagnostic>& out) {
    std::vector<std::string_view> names;
    names.reserve(fields.size());
    for (const auto& f : fields) names.push_back(f.name);

    for (const auto& [key, value] : mapping.entries) {
        const FieldSpec* spec = nullptr;
        for (const auto& f : fields) {
            if (f.name == key.value) {
                spec = &f;
                break;
            }
        }
        if (!spec) {
            out.push_back(
                diag::unknown_key(source.position(key.mark), key.value, closest_match(key.value, names), context));
            continue;
        }
        check_value(key, value, *spec, source, out);
    }
    for (const auto& f : fields) {
        if (f.required && !mapping.find(f.name)) {
            out.push_back(
                diag::missing_key(source.position(mapping.mark), std::string(f.name), expected_phrase(f), f.nullable));
        }
    }
}

std::optional<std::int64_t> as_integer(const YamlNode* node) {
    std::int64_t v = 0;
    if (node && plain_integer(*node, &v)) return v;
    return std::nullopt;
}

std::optional<double> as_number(const YamlNode* node) {
    double v = 0;
    if (node && plain_number(*node, &v)) return v;
    return std::nullopt;
}

std::optional<std::string> as_string(const YamlNode* node) {
    if (node && node->is_scalar()) return node->value;
    return std::nullopt;
}

}  // namespace kvcat
